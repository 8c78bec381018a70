import {
	CATCH_UP_MS,
	END_OF_WORK_S,
	LONG_WORK_S,
	LOWER_BOUND_GROWTH_PER_SECOND,
	MIN_ANSWERS_FOR_RATE,
	MIN_RATE,
	PROBE_DOUBLING_ANSWERS,
	PROBE_GROWTH_PER_SECOND,
	PROBE_QUIET_ANSWERS,
	PROBE_QUIET_MS,
	PROBE_DOUBLING_MS,
	RECOVERED_SHARE,
	RECOVERY_PER_ANSWER,
	SEARCH_DOUBLING_ANSWERS,
	SEARCH_GROWTH_PER_SECOND,
	SHARED_PROBE_GROWTH_PER_SECOND,
	STORM_PAUSE_MS,
	STORM_UNTOLD_PAUSE_MS,
	STORM_UNTOLD_PAUSE_REQUESTS,
	WAVE_DECREASE,
} from './constants';
import type { FirstWave, PaceState } from './paceState';
import { refillShown, searchGrowth, type Lately } from './search';

export const unknownPace = (): PaceState => ({
	rate: undefined,
	ceiling: undefined,
	lowerBound: undefined,
	floorRate: 0,
	stepFrom: undefined,
	searchSpell: undefined,
	searchEndedAt: 0,
	credit: 0,
	creditCap: 1,
	creditAt: 0,
	firstWave: undefined,
	shared: false,
});

/**
 * The pace a first wave's answers show: a rate where they are enough to measure one, with the burst
 * beyond that rate as credit; a lower bound to search up from where fewer; unknown where none.
 */
export function measureFirstWave(pace: PaceState, wave: FirstWave): void {
	pace.firstWave = wave;
	if (wave.answers >= MIN_ANSWERS_FOR_RATE) {
		pace.rate = (wave.answers * 1000) / wave.rateSpanMs;
		pace.creditCap = Math.max(
			1,
			Math.min(wave.answers, wave.answers - (pace.rate * wave.activeMs) / 1000),
		);
		pace.lowerBound = undefined;
		pace.floorRate = 0;
	} else if (wave.answers > 0) {
		pace.rate = (wave.answers * 1000) / wave.boundSpanMs;
		pace.creditCap = 1;
		pace.lowerBound = pace.rate;
		pace.floorRate = WAVE_DECREASE * pace.rate;
	} else {
		pace.rate = undefined;
		pace.lowerBound = undefined;
		pace.floorRate = 0;
		pace.creditCap = 1;
	}
}

/**
 * A refusal is cheap and comes back at once, an admission only after the registry's latency: the first
 * 429 may come before any answer, the pace then unknown, and after the pause the whole concurrency went
 * again, refused again but for the burst (bench:sim s7, s209: a bucket of 1-4/s, burst 1). Answers to
 * requests sent by that 429 are part of its wave: while they are fewer than a rate is measured from (a
 * small burst), each sets the lower bound answers before the 429 would have set. More are a burst
 * that one wave cannot tell from a window's budget: the pace stays unknown, the next wave measures.
 * Returns whether it was such an answer (the pace does not climb on it).
 */
export function firstWaveAnswered(pace: PaceState, sentAt: number): boolean {
	const wave = pace.firstWave;
	if (wave === undefined || sentAt > wave.at) return false;
	if (wave.told > 0) {
		pace.firstWave = { ...wave, admittedAfter: wave.admittedAfter + 1 };
		return false;
	}
	const answers = wave.answers + 1;
	measureFirstWave(pace, {
		...wave,
		answers: answers < MIN_ANSWERS_FOR_RATE ? answers : 0,
		admittedAfter: answers,
	});
	if (answers >= MIN_ANSWERS_FOR_RATE) pace.firstWave = undefined;
	// What it admitted is back by the pause's end (counted from when sending began): that goes at once.
	else pace.credit = pace.creditCap = answers;
	return true;
}

/**
 * Credit kept even where the registry holds no burst: a timer fires a little late, and without this
 * slack every late wake-up would be lost from the pace.
 */
export function catchUpCredit(pace: PaceState): number {
	return Math.max(1, ((pace.rate ?? 0) * CATCH_UP_MS) / 1000);
}

/** Whether reckoning the credit at `now` would change anything (most calls come at the same moment). */
export function creditDue(pace: PaceState, now: number): boolean {
	return (
		pace.rate !== undefined &&
		(now > pace.creditAt || pace.credit > Math.max(pace.creditCap, catchUpCredit(pace)))
	);
}

/** Adds the credit earned since it was last reckoned, up to the cap. */
export function refreshCredit(pace: PaceState, now: number): void {
	if (pace.rate === undefined) return;
	const cap = Math.max(pace.creditCap, catchUpCredit(pace));
	pace.credit = Math.min(cap, pace.credit + (Math.max(0, now - pace.creditAt) * pace.rate) / 1000);
	// Credit may be set to begin later (at a pause's end).
	pace.creditAt = Math.max(pace.creditAt, now);
}

/** When the pace allows the next start (refreshing the credit): at once while credit lasts. */
export function pacedStart(pace: PaceState, rate: number, now: number): number {
	refreshCredit(pace, now);
	return startOnCredit(pace, rate, now);
}

/** When the credit as reckoned allows the next start. */
export function startOnCredit(pace: PaceState, rate: number, now: number): number {
	if (pace.credit >= 1) return 0;
	return now + ((1 - pace.credit) * 1000) / rate;
}

/**
 * An admission: the pace climbs quickly back towards the last wave's rate, then beyond it, so a limit
 * that rose (or that others sharing it stopped spending) is found again; with little work left
 * (`workLeft` lookups) it stops probing. `quiet`: admissions, and ms, since the last congestion event.
 */
export function climb(pace: PaceState, workLeft: number, quiet: Quiet, lately: Lately): void {
	if (pace.rate === undefined) return;
	if (pace.ceiling !== undefined && pace.rate < RECOVERED_SHARE * pace.ceiling) {
		pace.rate += (pace.ceiling - pace.rate) * RECOVERY_PER_ANSWER;
		return;
	}
	// Near the end of the work a higher limit would gain nothing, and a 429 would cost its request a
	// whole Retry-After with nothing else left to send meanwhile: the pace stops probing.
	if (workLeft < pace.rate * END_OF_WORK_S) return;
	// A registry that admitted too few at once to measure (a burst of a handful) refuses at once any
	// pace beyond its rate, and each refusal costs its row a whole Retry-After: past the last wave's
	// rate, no probing until a long quiet spell says the limit is no longer spent by others.
	// Unless the work left would take long at this pace: then a 429 costs one row a Retry-After, and a
	// pace below the limit (others sharing it stopped spending it) costs every row.
	// A pace that no registry's answer put there (a first wave admitted this worker nothing: others
	// spent the limit) and too slow for PROBE_QUIET_ANSWERS within PROBE_QUIET_MS: the answers come too
	// seldom to tell a quiet spell, the time tells (bench:sim s25, three workers: 59 s for a floor of 18).
	// A limit others spend too refuses at any pace (their requests as well as ours), so the waves come
	// whatever this pace is: the time tells there too (bench:sim s86, three workers: 48.6 s for 4.9 s).
	const longWork =
		pace.shared ||
		workLeft / pace.rate >= LONG_WORK_S ||
		(pace.floorRate === 0 && (pace.rate * PROBE_QUIET_MS) / 1000 < PROBE_QUIET_ANSWERS);
	if (
		pace.floorRate > 0 &&
		pace.ceiling !== undefined &&
		pace.searchSpell !== 'overshot' &&
		!longWork &&
		quiet.answers < PROBE_QUIET_ANSWERS
	)
		return;
	// Its own waves say less of a limit others spend too: the probe does not wait for a quiet spell. An
	// overshot search climbs at least as the search does, and never slower than the probe it stands for.
	const growth =
		pace.ceiling !== undefined
			? Math.max(
					pace.searchSpell === 'overshot' ? SEARCH_GROWTH_PER_SECOND : 0,
					pace.shared ? SHARED_PROBE_GROWTH_PER_SECOND : 0,
					probeGrowth(quiet, longWork),
				)
			: pace.lowerBound !== undefined
				? LOWER_BOUND_GROWTH_PER_SECOND
				: searchGrowth(pace.rate, workLeft);
	const wave = pace.firstWave;
	const refills = refillShown(pace, lately);
	pace.stepFrom =
		refills || (wave !== undefined && wave.told + wave.admittedAfter === 1) ? pace.rate : undefined;
	if (refills) pace.searchSpell = 'perRoundTrip';
	const perAnswer = refills
		? 1 / Math.max(SEARCH_DOUBLING_ANSWERS, (pace.rate * lately.latencyMs) / 1000)
		: 1 / pace.rate;
	pace.rate *= Math.pow(1 + growth, perAnswer);
}

/** Admissions, and ms, since the last congestion event. */
export interface Quiet {
	answers: number;
	ms: number;
}

/**
 * Beyond the last event's rate the probe creeps (2% a second); after PROBE_QUIET_ANSWERS admissions and
 * PROBE_QUIET_MS with no congestion event its growth doubles every PROBE_DOUBLING_ANSWERS more and every
 * PROBE_DOUBLING_MS, whichever is slower, up to slow start's doubling a second. At the limit the waves
 * come sooner than that; a pace far below a limit that others sharing it stopped spending (queue-mode
 * workers that finished) finds it within seconds, instead of creeping 2% a second, or (a pace born of
 * a first wave that admitted a handful) not at all. With `longWork` (LONG_WORK_S or more left at this
 * pace) the time alone counts: at a slow pace the answers come too seldom to tell.
 */
function probeGrowth(quiet: Quiet, longWork: boolean): number {
	const byTime = (quiet.ms - PROBE_QUIET_MS) / PROBE_DOUBLING_MS;
	const doublings = Math.max(
		0,
		longWork
			? byTime
			: Math.min((quiet.answers - PROBE_QUIET_ANSWERS) / PROBE_DOUBLING_ANSWERS, byTime),
	);
	return Math.min(LOWER_BOUND_GROWTH_PER_SECOND, PROBE_GROWTH_PER_SECOND * 2 ** doublings);
}

/**
 * How long a storm pauses where no Retry-After says (at `level`, storm pauses in a row): a guess,
 * STORM_UNTOLD_PAUSE_REQUESTS at the pace, at least STORM_UNTOLD_PAUSE_MS, doubling, at most
 * STORM_PAUSE_MS (constants.ts says why).
 */
export function untoldStormPauseMs(rate: number | undefined, level: number): number {
	const guess = Math.max(
		STORM_UNTOLD_PAUSE_MS,
		(STORM_UNTOLD_PAUSE_REQUESTS * 1000) / (rate ?? MIN_RATE),
	);
	return Math.min(STORM_PAUSE_MS, guess * 2 ** level);
}

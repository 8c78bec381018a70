import { pause, type Action } from './actions';
import {
	ADMITTED_SPAN_ANSWERS,
	ADMITTED_SPAN_MAX_MS,
	ADMITTED_SPAN_MS,
	BURST_BLAME_MS,
	CONGESTION_SPELL_MS,
	FIRST_PAUSE_MAX_MS,
	MIN_RATE,
	MIN_WAIT_MS,
	SPENT_QUOTA_WAVES,
	STORM_EVENTS,
	STORM_PAUSE_MAX_MS,
	STORM_WINDOW_MS,
	TOLD_RESET_MIN_MS,
	WAVE_BURST_PARTS_OF_SECOND,
	WAVE_CEILING_ABOVE,
	WAVE_CEILING_BELOW,
	WAVE_DECREASE,
} from './constants';
import { budgetLeft, countRefused, overrunReset, remainingIsFresh } from './count';
import { firstPauseEnd } from './firstAsk';
import { countWhere } from './log';
import { catchUpCredit, measureFirstWave } from './pace';
import { laterWave, searchCeiling, searchWave } from './search';
import { firstWaveLog } from './slidingLog';
import { stormPause } from './storm';
import { pauseFor, type ControlState } from './state';
import type { RequestReport } from './types';
import { earliestReset } from './windowReset';
import { inStep, nothingAdmitted, nothingAdmittedSince, othersRefusal } from './workers';

/**
 * A 429 (part of `transition`, on its copy). In a window the window has heard it already. Where the
 * count tells the budget, it says which limit refused (count.ts) and whether a window is suspected or
 * the budget is spent. Otherwise 429s teach the limit:
 * - the first pauses everybody briefly; the admitted rate is the successes seen since sending began
 *   divided by the time including that pause (a bucket refills while nobody sends), and the burst it
 *   allowed sets the credit. Refused within that pause of the first request, the pause counts from when
 *   sending began (what a window admitted first leaves it first) and the pace starts from nothing;
 * - each later wave is one congestion event: the pace drops at least 5% (at most by half) towards what
 *   the registry admitted lately, then climbs back (pace.ts). Requests sent before an event that meet
 *   429 belong to it. A wave right after a burst of saved-up credit says the registry holds no bursts;
 * - waves with nothing admitted between them are a storm: everybody waits out the Retry-After (capped,
 *   doubling); told each time to wait for hours, a spent quota.
 */
export function rateLimited(
	state: ControlState,
	now: number,
	report: RequestReport,
	actions: Action[],
	phase: number,
	workLeft: number,
): void {
	if (state.window) return;
	countRefused(state.count, now, report.remaining);
	if (
		budgetLeft(state.count, now) !== undefined &&
		(budgetRefused(state, now, report, actions) || budgetSpent(state, now, report, actions))
	)
		return;
	// A request sent before the last event met the same congestion: one wave, one decrease.
	if (state.lastEventAt !== undefined && report.sentAt <= state.lastEventAt) return;
	actions.push({ kind: 'congestion', as: 'wave' });
	// A later wave: the first one's answers measure no more, an overshot search ends (search.ts).
	laterWave(state.pace);
	const lastEventAt = state.lastEventAt;
	const since = lastEventAt ?? state.firstSentAt ?? now;
	const answered = state.answeredSinceEvent;
	congestionEvent(state, now);
	state.answeredSinceEvent = 0;
	state.recentEvents.push(now);
	state.wavesInRow += 1;
	while (state.recentEvents.length > 0 && now - state.recentEvents[0] > STORM_WINDOW_MS)
		state.recentEvents.shift();
	// A 429 ends what the remaining budget said: the registry is out, whatever it told before.
	state.count.remaining = undefined;
	// Refused in wave after wave with nothing admitted, told each time to wait longer than a storm's
	// longest pause: a spent quota (a day's). Everybody waits until then, and who cannot wait that
	// long fails now, instead of each row spending a round trip to learn it.
	if (
		state.recentEvents.length >= SPENT_QUOTA_WAVES &&
		report.retryAfterMs !== undefined &&
		report.retryAfterMs > STORM_PAUSE_MAX_MS
	) {
		state.quotaSpentUntil = now + report.retryAfterMs;
		pause(state, now, actions, state.quotaSpentUntil, 'quotaSpent');
		return;
	}
	const pace = state.pace;
	// Where this controller resumes within its interval after the wave: at its start, or (where workers
	// sharing the limit would otherwise stay alike) at a phase of its own (full jitter).
	let shift = 0;
	if (pace.rate === undefined && nothingAdmittedSince(state, lastEventAt, now)) {
		nothingAdmitted(state, now, report, actions);
		shift = -phase;
	} else if (pace.rate === undefined) {
		// The first limit seen: pause briefly, then pace at what was admitted over the time including
		// the pause, with the burst beyond that rate as credit. Too few answers say nothing of a rate.
		const pauseMs = pauseFor(report, FIRST_PAUSE_MAX_MS, FIRST_PAUSE_MAX_MS);
		const activeMs = Math.max(1, now - since);
		// Refused within a pause of the first request: a window's admissions leave it (a bucket refills)
		// counted from when sending began, so the pause is too. What was admitted came back by then, at
		// the speed it went: nothing is spent at once after the pause (it would meet requests that have
		// not left a sliding window yet), the pace starts from nothing.
		const early = activeMs < pauseMs;
		measureFirstWave(pace, {
			at: now,
			told: answered,
			answers: answered,
			admittedAfter: 0,
			rateSpanMs: early ? pauseMs : activeMs + pauseMs,
			// A burst of fewer: the rate is unknown, but about this (sent since the last pause ended, over
			// that time and the pause to come); paced from it, searching upwards.
			boundSpanMs: Math.max(0, now - Math.max(since, state.pausedUntil)) + pauseMs,
			activeMs,
		});
		if (early) {
			const pauseEnd = Math.max(now + MIN_WAIT_MS, since + pauseMs);
			const askOrEnd = firstPauseEnd(state, report, pauseEnd, now, workLeft);
			pause(state, now, actions, askOrEnd, 'firstLimit');
			pace.credit = 0;
			pace.creditAt = pauseEnd;
			return;
		}
		pause(state, now, actions, now + pauseMs, 'firstLimit');
	} else if (
		pace.creditCap > catchUpCredit(pace) &&
		report.sentAt - state.lastBurstAt < BURST_BLAME_MS
	) {
		// The registry did not hold the burst (a window, not a bucket): keep the pace, burst no more,
		// and let the burst leave the registry's window before sending on.
		pace.creditCap = 1;
		const burstLeft =
			state.burstStartedAt + pauseFor(report, FIRST_PAUSE_MAX_MS, FIRST_PAUSE_MAX_MS);
		pause(state, now, actions, Math.max(now + MIN_WAIT_MS, burstLeft), 'burstRefused');
	} else if (state.stormLevel === 0) {
		// Waves close together are one spell of congestion: what was admitted since it began tells the limit.
		if (now - state.lastCongestionAt > CONGESTION_SPELL_MS) state.congestionSince = now;
		state.lastCongestionAt = now;
		const admitted = admittedRate(state, now);
		searchWave(pace, { now, rate: pace.rate, admitted });
		// Climb back to what the registry took, not the pace that overshot it: where 429s lag (a sliding
		// window) the pace has grown past the limit by then; where it took more (after a pause), the
		// limit is higher. A lone refusal on a limit others spend too is a token another took (workers.ts).
		pace.ceiling = othersRefusal(state, since)
			? WAVE_DECREASE * pace.rate
			: Math.min(
					WAVE_CEILING_ABOVE * pace.rate,
					Math.max(WAVE_CEILING_BELOW * pace.rate, admitted),
				);
		// The wave that ends a search from a lower bound came within a step of the limit (pace.ts).
		if (pace.lowerBound !== undefined)
			pace.ceiling = Math.max(pace.ceiling, searchCeiling(pace, pace.rate));
		pace.lowerBound = undefined;
		// Never below what the registry gave per pause at the first wave (asking all at once gets that).
		pace.ceiling = Math.max(pace.ceiling, pace.floorRate);
		pace.rate = Math.max(
			MIN_RATE,
			pace.floorRate,
			Math.min(WAVE_DECREASE * pace.rate, pace.ceiling),
		);
		pace.creditCap = Math.max(1, Math.min(pace.creditCap, pace.rate / WAVE_BURST_PARTS_OF_SECOND));
		if (inStep(state)) shift = 0.5 - phase;
		if (state.recentEvents.length >= STORM_EVENTS) stormPause(state, now, report, actions);
	} else {
		// Still refused after a storm's pause, nothing admitted since: the registry refuses everything
		// (a window until its reset, a quota), which says nothing of how fast it admits. Halving the pace
		// at each such wave left a 10 s window's budget paced at 1 a second once it came back (bench:sim
		// s275); the pace stays.
		if (state.recentEvents.length >= STORM_EVENTS) stormPause(state, now, report, actions);
	}
	pace.credit = shift;
	pace.creditAt = now;
	budgetToldSpent(state, now, report, actions);
}

/**
 * A 429 that itself says 0 left and when the budget is back, further than TOLD_RESET_MIN_MS (a window's
 * reset of seconds or minutes, not a bucket's next token), and no sooner Retry-After: nobody sends
 * before then, and who cannot wait that long fails now. Paced on, every request until then would meet a 429, wave after wave, and
 * each wave would cut the pace the next window could be spent at.
 */
function budgetToldSpent(
	state: ControlState,
	now: number,
	report: RequestReport,
	actions: Action[],
): void {
	if (report.remaining !== 0 || report.resetMs === undefined) return;
	if (report.resetMs <= TOLD_RESET_MIN_MS) return;
	// A Retry-After told for this very refusal, and sooner: the registry's word for it, over a count's
	// reset that may be another quota's (or in another unit).
	if (
		report.retryAfterMs !== undefined &&
		report.retryAfterMs > 0 &&
		report.retryAfterMs < report.resetMs
	)
		return;
	const resetAt = report.sentAt + report.resetMs;
	// The reset of a count the registry admitted requests beyond (count.ts countAdmitted), told again: that
	// count says nothing of this refusal (an hourly quota's 0 on a per-second limit's 429).
	if (overrunReset(state.count, resetAt, now)) return;
	if (resetAt <= state.pausedUntil) return;
	state.quotaSpentUntil = Math.max(state.quotaSpentUntil, resetAt);
	pause(state, now, actions, resetAt, 'quotaSpent');
}

/**
 * What the registry admitted per second of sending just before this wave: over the last second, or
 * over the time 20 answers take at a slow pace (a few answers more or less swing the figure). Not
 * since the last wave: that would average in the climb back after it, and the pace would settle
 * below the limit. A pause is no time the registry refused.
 */
function admittedRate(state: ControlState, now: number): number {
	// In a spell of waves, the second before it began may have spent a reserve the registry no longer
	// has (a bucket filled during a pause): once requests sent during the spell have been admitted
	// often enough, only they count, per ms of sending up to those whose answers are due by now. A spell
	// longer than the admissions remembered is counted, and divided, over what is remembered: divided by
	// the whole spell, each wave of a long one (workers sharing a limit) would read less admitted.
	const until = now - state.latencyMs;
	const spellFrom = Math.max(state.congestionSince, now - ADMITTED_SPAN_MAX_MS);
	const inSpell = countWhere(state.admitted, ({ sentAt }) => sentAt > spellFrom && sentAt <= until);
	if (until > spellFrom && inSpell >= ADMITTED_SPAN_ANSWERS / 2) {
		const pausedMs = Math.max(
			0,
			Math.min(until, state.pausedUntil) - Math.max(spellFrom, state.pausedSince),
		);
		return (inSpell * 1000) / Math.max(1, until - spellFrom - pausedMs);
	}
	const spanMs = Math.min(
		ADMITTED_SPAN_MAX_MS,
		Math.max(ADMITTED_SPAN_MS, (ADMITTED_SPAN_ANSWERS * 1000) / (state.pace.rate ?? 1)),
	);
	const from = now - spanMs;
	const pausedMs = Math.max(
		0,
		Math.min(now, state.pausedUntil) - Math.max(from, state.pausedSince),
	);
	const count = countWhere(state.admitted, ({ at }) => at > from);
	return (count * 1000) / Math.max(1, now - from - pausedMs);
}

/**
 * A 429 from a registry that tells its budget on its answers: the budget may come back whole at a
 * reset, not request by request (a window). A refill measured so far does not rule that out: a
 * window's reset that falls while its first budget is spent looks like one. Where the registry says
 * when (X-RateLimit-Reset), one request alone a moment later tells: refused too, it is a window,
 * reckoned per window from then on; admitted, it is a bucket (and stays one). Where the registry does
 * not say when, the budget paces on (budgetSpent).
 */
function budgetRefused(
	state: ControlState,
	now: number,
	report: RequestReport,
	actions: Action[],
): boolean {
	if (!remainingIsFresh(state.count, now) || state.refillsSeen) return false;
	const resetAt = earliestReset(state.resetAt, report, now);
	if (resetAt === undefined) return false;
	actions.push({ kind: 'congestion', as: 'windowSuspected' });
	congestionEvent(state, now);
	state.window = firstWaveLog(state, now, Math.max(resetAt, now + MIN_WAIT_MS));
	return true;
}

/**
 * A 429 from a registry that tells its budget on its answers, not taken for a window: the budget is
 * spent. Nobody sends until the 429 says it is back (at most a second); the next answer's count, set
 * beside the earlier ones, tells how fast it refills. The budget keeps pacing: a rate guessed from
 * 429s, with a burst of credit, would overshoot a bucket that refills slowly.
 */
function budgetSpent(
	state: ControlState,
	now: number,
	report: RequestReport,
	actions: Action[],
): boolean {
	if (!remainingIsFresh(state.count, now) || state.pace.rate !== undefined) return false;
	actions.push({ kind: 'congestion', as: 'budgetSpent' });
	congestionEvent(state, now);
	const count = state.count;
	count.remaining = 0;
	count.remainingAt = now;
	count.remainingSentAt = report.sentAt;
	count.startedSinceRemaining = state.inFlight;
	const pauseMs = pauseFor(report, report.resetMs ?? FIRST_PAUSE_MAX_MS, FIRST_PAUSE_MAX_MS);
	pause(state, now, actions, now + pauseMs, 'budgetSpent');
	return true;
}

/** A congestion event: the next spend of saved-up credit begins a burst, however soon (transitions.ts). */
function congestionEvent(state: ControlState, now: number): void {
	state.lastEventAt = now;
	state.burstSinceEvent = false;
}

import {
	LOWER_BOUND_GROWTH_PER_SECOND,
	REFILL_SHOWN_MIN_BURST,
	SEARCH_GROWTH_PER_SECOND,
	SEARCH_LONG_WORK_S,
	SEARCH_OVERSHOT_SPAN_MS,
	WAVE_DECREASE,
} from './constants';
import type { PaceState } from './paceState';

/**
 * The search: how a pace that no wave has yet bounded from above climbs to find the limit, and what
 * the wave that ends it says of the limit (pace.ts climbs, rateLimited.ts meets the wave).
 */

/** How the registry answered lately: the round trip, and admissions over the last second. */
export interface Lately {
	latencyMs: number;
	admittedLastSecond: number;
}

/**
 * A search from a lower bound where the registry admitted, within the last second, more than twice what
 * the first wave got at once: no window of a second or more with that budget admits that (a fixed
 * window's second holds the end of one budget and the start of the next), so the registry refills as
 * it goes, a bucket, which admits any pace up to its refill. The pace then doubles per round trip while
 * the answers come back clean (TCP's slow start), not per second: bench:sim s31 (428/s, burst 1) met
 * its rate 9 s in, 3.13x its floor, and now 2.06x. The first wave's burst is taken as at least
 * REFILL_SHOWN_MIN_BURST (a worker's first wave may hold only its share of a shared burst): a bucket of
 * 8/s and a burst of 1 shows it with five admitted in a second, and its search ends at the step before
 * the refused one (bench:sim s182, 1.72x -> 1.23x), where eight a second were needed.
 */
export function refillShown(pace: PaceState, lately: Lately): boolean {
	const wave = pace.firstWave;
	return (
		pace.ceiling === undefined &&
		pace.lowerBound !== undefined &&
		wave !== undefined &&
		lately.admittedLastSecond > 2 * Math.max(wave.told + wave.admittedAfter, REFILL_SHOWN_MIN_BURST)
	);
}

/**
 * What the wave that ends a search from a lower bound (a burst under MIN_ANSWERS_FOR_RATE) at `rate`
 * says of the limit, 0 where nothing: the search came within a step of it. Where one request a second
 * is no more than one decrease of the pace, the limit is just below it (what was admitted over the last
 * second is what the doubling sent, about 0.7 of it: bench:sim s31, 428/s, paced at 303/s). At a few a
 * second one step is 20-40% of the pace: where the first wave admitted one (a bucket of burst 1), the
 * limit lies between the refused pace and the step before, which the registry took (bench:sim s209,
 * 4/s burst 1: admitted 277 ms apart, refused 228 ms apart), while what was admitted over the seconds
 * before is mostly the search's slow start (1.4/s). Where it admitted more (a burst of 2 to 4, a log's
 * budget), the pace the budget took once it may not keep: the 429s measure. A search per round trip
 * (refillShown) steps up to 19% at a time, at any pace: the limit lies past the step before, as for a
 * burst of 1 (bench:sim seed 2 s33, 62/s burst 3: met at 180/s after the step from 151/s).
 */
export function searchCeiling(pace: PaceState, rate: number): number {
	if (pace.stepFrom !== undefined) return Math.min(WAVE_DECREASE * rate, pace.stepFrom);
	return rate * (1 - WAVE_DECREASE) >= 1 ? WAVE_DECREASE * rate : 0;
}

/**
 * The search up from a first wave's rate, before any later wave. That rate is what a window of the
 * wave's budget allows, but only a floor of a token bucket's refill: the bucket refilled during the
 * pause, which Retry-After in whole seconds makes long against a fast bucket's next token (bench:sim
 * s271, 159/s with a burst of 18: measured 9/s). Nothing the registry says tells the two apart (a
 * bucket's Limit is its burst, its Reset a second away, as a window's), so the work left decides:
 * with SEARCH_LONG_WORK_S or more of it at this pace, every row waits on a pace that may be far below a
 * bucket's refill, and the search doubles each second as from a lower bound; a window's budget
 * overshot costs a wave.
 */
export function searchGrowth(rate: number, workLeft: number): number {
	return workLeft / rate >= SEARCH_LONG_WORK_S
		? LOWER_BOUND_GROWTH_PER_SECOND
		: SEARCH_GROWTH_PER_SECOND;
}

/**
 * Any later wave, whichever branch takes it: the first wave's late answers no longer measure the pace
 * (pace.ts), and an 'overshot' search ends, unless `searchWave` finds this wave one more such wave. A
 * storm's or a refused burst's wave left it searching on, 25% a second past its ceiling after the storm.
 */
export function laterWave(pace: PaceState): void {
	pace.firstWave = undefined;
	// 'ended', not none: `searchWave` still reads the search as recent.
	if (pace.searchSpell === 'overshot') pace.searchSpell = 'ended';
}

/**
 * A wave met at `rate`, before the ceiling is set from `admitted`, the rate the registry admitted over
 * the last second: where it stands after a search per round trip (pace.ts `searchSpell`). The search's
 * steps overshoot a bucket whose burst absorbs them (bench:sim seed 2 s184, 24/s burst 3: met at 63/s,
 * the step before 53/s), so its ceiling is refused again at once. A wave within
 * SEARCH_OVERSHOT_SPAN_MS of the search's end reads a second mostly within the search's climb from far
 * below the limit: admitting less than WAVE_DECREASE of the pace, it says a floor of the limit, not the
 * limit (s184 settled at 20/s; seed 1 s255, 18/s burst 2, at 12/s). Beyond such a ceiling the pace
 * searches on (SEARCH_GROWTH_PER_SECOND) until the next wave that is not such a wave. The rule reads no
 * burst: any bucket whose refusal comes that soon and admitted that little is searched on (seed 1 s53,
 * 263/s burst 1, gained). Workers sharing the limit pay for it: another's wave (bench:sim s73, s139).
 */
export function searchWave(
	pace: PaceState,
	wave: { now: number; rate: number; admitted: number },
): void {
	if (pace.lowerBound !== undefined) {
		pace.searchSpell = pace.searchSpell === 'perRoundTrip' ? 'ended' : undefined;
		pace.searchEndedAt = wave.now;
		return;
	}
	pace.searchSpell =
		pace.searchSpell !== undefined &&
		wave.now - pace.searchEndedAt < SEARCH_OVERSHOT_SPAN_MS &&
		wave.admitted < WAVE_DECREASE * wave.rate
			? 'overshot'
			: undefined;
}

import { pause, type Action } from './actions';
import {
	ADMITTED_SPAN_MAX_MS,
	FIRST_PAUSE_MAX_MS,
	IN_STEP_WAVES,
	OTHERS_REFUSAL_ANSWERS,
} from './constants';
import { countWhere } from './log';
import { pauseFor, type ControlState } from './state';
import type { RequestReport } from './types';

// Queue-mode workers sharing one limit, each with its own controller, learn of each other only through
// 429s, and meet the same ones at the same moments: at a 429 wave (rateLimited.ts) these say when a
// worker's case is theirs. Chance (random.ts, the 429's `phase`) breaks their symmetry.

/**
 * Refused wave after wave (IN_STEP_WAVES) with nothing admitted, at a pace that cannot go lower (its
 * floor): a worker a few ms behind another at the same pace, refused at every request until its rows
 * give up (bench:sim s116: 47 rows failed, s201: 46). A shift of its own, earlier or later by up to half
 * an interval, separates them; a fixed one moves every worker alike (a single process's pace, which
 * such waves at its floor also reach, keeps its mean). Fewer waves in a row are a pace finding its
 * limit: there a shift only disturbs it (sliding windows, bench:sim s120, s129; seed 2 s123).
 */
export function inStep(state: ControlState): boolean {
	const pace = state.pace;
	// A pace is never below MIN_RATE: at or below its floor means there is one.
	return state.wavesInRow >= IN_STEP_WAVES && pace.rate! <= pace.floorRate;
}

/**
 * Refused again with nothing admitted since the last wave, a few seconds ago: not a first wave whose
 * admissions are still on their way (a refusal comes back before an admission's answer). An admission
 * answered in the wave's own ms counts as since it: the log keeps answers' ms, not their order, and where
 * the pace is still unknown after a first wave, those of its ms came after it (before, they had measured
 * one).
 */
export function nothingAdmittedSince(
	state: ControlState,
	lastEventAt: number | undefined,
	now: number,
) {
	return (
		lastEventAt !== undefined &&
		now - lastEventAt < ADMITTED_SPAN_MAX_MS &&
		countWhere(state.admitted, ({ at }) => at >= lastEventAt) === 0
	);
}

/**
 * A first wave that admitted nothing: others spend the limit (queue-mode workers that started together)
 * or nobody may send (a quota). Asking with the whole concurrency after each pause met the same refusal,
 * 90-100% refused, for seconds (bench:sim s22: 38 s, 80 rows failed). One request per pause instead,
 * each worker at a phase of its own (the caller's jitter), the pace searching upwards from there as
 * from a handful admitted; nothing was given, so no floor under it.
 */
export function nothingAdmitted(
	state: ControlState,
	now: number,
	report: RequestReport,
	actions: Action[],
): void {
	const pauseMs = pauseFor(report, FIRST_PAUSE_MAX_MS, FIRST_PAUSE_MAX_MS);
	const pace = state.pace;
	pace.rate = 1000 / pauseMs;
	pace.creditCap = 1;
	pace.lowerBound = pace.rate;
	pause(state, now, actions, now + pauseMs, 'firstLimit');
}

/**
 * A 429 on a pace others spend too (count.ts `othersSpend`) after OTHERS_REFUSAL_ANSWERS admissions
 * (2xx: a 503 admits nothing) remembered since the last wave (`since`): a lone refusal among them is a
 * token another took (a bucket of small burst refuses whoever comes within a token of another's
 * admission), whatever our pace, so it says little of the limit. The
 * rate admitted lately is then only our own climbing pace, measured late: cut to it, every such wave
 * took a third off the pace, and workers at a tenth of the limit stayed there (bench:sim s86). Refused
 * after fewer, the pace (or all of ours) is over the limit: the rate admitted tells it.
 */
export function othersRefusal(state: ControlState, since: number): boolean {
	return (
		state.pace.shared &&
		countWhere(state.admitted, ({ at, succeeded }) => succeeded && at > since) >=
			OTHERS_REFUSAL_ANSWERS
	);
}

import { ASK_MIN_WORK } from './constants';
import { pause, type Action } from './actions';
import { logSize, newest, oldest } from './log';
import type { ControlState } from './state';
import type { RequestReport } from './types';
import { askFirstTurn, askOnAdmission } from './windowTurn';

/** Enough lookups left for a first pause to ask sooner than it did (constants.ts ASK_MIN_WORK). */
const longWork = (workLeft: number): boolean => workLeft >= ASK_MIN_WORK;

/**
 * The first pause of a first wave refused early (rateLimited.ts), ending at `pauseEnd`, or halfway where
 * one request asks alone first (windowTurn.ts askFirstTurn): its answer takes an admission's round trip,
 * the first wave's first (sent before any queue built up). The pace's credit begins at `pauseEnd`
 * either way (rateLimited.ts): only the asking request goes before it.
 */
export function firstPauseEnd(
	state: ControlState,
	report: RequestReport,
	pauseEnd: number,
	now: number,
	workLeft: number,
): number {
	const first = logSize(state.admitted) > 0 ? oldest(state.admitted) : undefined;
	const roundTripMs = first === undefined ? Number.POSITIVE_INFINITY : first.at - first.sentAt;
	return askFirstTurn(state.turn, report, pauseEnd, roundTripMs, now, longWork(workLeft));
}

/**
 * An admission during a first pause whose ask waited for one (windowTurn.ts askOnAdmission): the pause
 * ends at the ask's moment, the ask's to everybody else.
 */
export function firstPauseAdmission(
	state: ControlState,
	report: RequestReport,
	now: number,
	workLeft: number,
): void {
	const askAt = askOnAdmission(state.turn, report, now, state.pausedUntil, longWork(workLeft));
	if (askAt !== undefined) state.pausedUntil = askAt;
}

/**
 * The request that asked alone got its answer (askAnswered: the first pause ended at `until`). Admitted,
 * everybody goes on from now; refused or unanswered, the first pause ends as it would have, with the
 * credit it would have had.
 */
export function firstAskAnswered(
	state: ControlState,
	now: number,
	until: number,
	report: RequestReport,
	admitted: boolean,
	actions: Action[],
): void {
	// The asking request spent no credit (transitions.ts started): admitted, the pace begins afresh from
	// now; refused, from the pause's end with what credit it would have had.
	const pace = state.pace;
	if (admitted) {
		pace.credit = 0;
		pace.creditAt = now;
		// A first wave that admitted too few to measure a rate paces up from what an ask at once showed
		// (windowTurn.ts askFirstTurn): admitted this soon after the last admission, the registry refills
		// at least that fast. A halfway ask's gap is as much a window's turn as a refill (bench:sim seed 4
		// s162, a bucket that tells nothing: 1.26x -> 1.46x its floor over 20 draws where it counted).
		const last = logSize(state.admitted) > 0 ? newest(state.admitted) : undefined;
		if (pace.lowerBound !== undefined && last !== undefined && report.sentAt > last.sentAt) {
			const shown = 1000 / (report.sentAt - last.sentAt);
			if (shown > pace.lowerBound && state.turn.countAdmitted) pace.rate = pace.lowerBound = shown;
		}
		return;
	}
	pace.creditAt = until;
	// The same spell of pause as the first one (the ask's time was a pause to everybody else): what was
	// admitted before it is reckoned over the time less all of it (rateLimited.ts admittedRate).
	state.pausedUntil = Math.max(state.pausedUntil, now);
	pause(state, now, actions, until, 'firstLimit');
}

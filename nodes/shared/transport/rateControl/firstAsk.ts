import { pause, type Action } from './actions';
import { logSize, oldest } from './log';
import type { ControlState } from './state';
import type { RequestReport } from './types';
import { askFirstTurn } from './windowTurn';

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
): number {
	const first = logSize(state.admitted) > 0 ? oldest(state.admitted) : undefined;
	const roundTripMs = first === undefined ? Number.POSITIVE_INFINITY : first.at - first.sentAt;
	return askFirstTurn(state.turn, report, pauseEnd, roundTripMs);
}

/**
 * The request that asked alone got its answer (askAnswered: the first pause ended at `until`). Admitted,
 * everybody goes on from now; refused or unanswered, the first pause ends as it would have, and nothing
 * is spent at once after it (as at the first pause).
 */
export function firstAskAnswered(
	state: ControlState,
	now: number,
	until: number,
	admitted: boolean,
	actions: Action[],
): void {
	// The asking request spent no credit: the pace begins afresh, from now or from the pause's end.
	state.pace.credit = 0;
	state.pace.creditAt = admitted ? now : until;
	if (admitted) return;
	// The same spell of pause as the first one (the ask's time was a pause to everybody else): what was
	// admitted before it is reckoned over the time less all of it (rateLimited.ts admittedRate).
	state.pausedUntil = Math.max(state.pausedUntil, now);
	pause(state, now, actions, until, 'firstLimit');
}

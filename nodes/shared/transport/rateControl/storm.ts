import { pause, type Action } from './actions';
import { STORM_PAUSE_MAX_MS, STORM_PAUSE_MS } from './constants';
import { untoldStormPauseMs } from './pace';
import { pauseFor, type ControlState } from './state';
import type { RequestReport } from './types';
import { nextTurn } from './windowTurn';

/**
 * Waves with nothing admitted between them: everybody waits out the Retry-After, capped, doubling;
 * where none is told, until the window's learned turn, else a guess.
 */
export function stormPause(
	state: ControlState,
	now: number,
	report: RequestReport,
	actions: Action[],
): void {
	const pauseMs = pauseFor(
		report,
		untoldStormPauseMs(state.pace.rate, state.stormLevel),
		Math.min(STORM_PAUSE_MAX_MS, STORM_PAUSE_MS * 2 ** state.stormLevel),
	);
	// The turn after this request left: where its refusal came back after that turn, at once.
	const turn = report.retryAfterMs === undefined ? nextTurn(state.turn, report.sentAt) : undefined;
	state.stormLevel += 1;
	pause(state, now, actions, turn ?? now + pauseMs, 'storm');
}

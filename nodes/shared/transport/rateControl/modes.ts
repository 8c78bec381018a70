import { budgetLeft, countIntervalMs } from './count';
import { creditDue, pacedStart, startOnCredit } from './pace';
import { roomWhileUnknown } from './slowStart';
import type { ControlState } from './state';
import { waitingForReset, windowNextStart } from './window';
import { resetDue } from './windowReset';
import { copyWindow, type WindowState } from './windowState';
import { asking } from './windowTurn';

/**
 * What governs the next start, in the registry's words. The first that applies, in this order:
 * - `window`: the registry refused beyond its own count and its budget comes back whole at a reset;
 * - `headerBudget`: its answers tell a count (X-RateLimit-Remaining or another dialect's) it enforces:
 *   spent freely while it lasts, then paced at the refill measured from how it moves;
 * - `paced`: 429s taught a rate, kept by a mirror token bucket (pace.ts);
 * - `unknown`: nothing shown yet: as fast as each execution's concurrency allows (but see slowStart.ts).
 */
export type Limit =
	| { kind: 'window'; window: WindowState }
	| { kind: 'headerBudget'; left: number; refillIntervalMs: number }
	| { kind: 'paced'; rate: number }
	| { kind: 'unknown' };

/**
 * Over any limit, nobody may send for a while: a `quotaSpent` (waves of 429s saying to wait for hours),
 * a `storm` (waves with nothing admitted between them, each pause twice as long) or a plain `paused`.
 */
export type Mode =
	| Limit
	| { kind: 'quotaSpent'; until: number; limit: Limit }
	| { kind: 'storm'; until: number; level: number; limit: Limit }
	| { kind: 'paused'; until: number; limit: Limit };

export function limitOf(state: ControlState, now: number): Limit {
	if (state.window) return { kind: 'window', window: state.window };
	const left = budgetLeft(state.count, now);
	if (left !== undefined)
		return { kind: 'headerBudget', left, refillIntervalMs: countIntervalMs(state.count) };
	if (state.pace.rate !== undefined) return { kind: 'paced', rate: state.pace.rate };
	return { kind: 'unknown' };
}

export function modeOf(state: ControlState, now: number): Mode {
	const limit = limitOf(state, now);
	if (state.pausedUntil <= now) return limit;
	const until = state.pausedUntil;
	if (state.quotaSpentUntil >= until) return { kind: 'quotaSpent', until, limit };
	if (state.stormLevel > 0) return { kind: 'storm', until, level: state.stormLevel, limit };
	return { kind: 'paused', until, limit };
}

/**
 * When the limit allows the next start (0: now), undefined while only an answer can tell (a known
 * budget spent and no refill measured, or a window's lone request out). Pure: reckoning the credit and
 * rolling a window over its reset happen on the returned copy, which the controller keeps (the state
 * itself where neither is due: this is asked at every start).
 */
export function nextStart(
	state: ControlState,
	now: number,
): { state: ControlState; at: number | undefined } {
	// One request asks alone whether the registry admits again (at once, the pace's credit begins only
	// at the pause's end): nobody else until its answer.
	if (asking(state.turn, now)) return { state, at: state.inFlight > 0 ? undefined : 0 };
	const limit = limitOf(state, now);
	switch (limit.kind) {
		case 'window': {
			if (!resetDue(limit.window, now))
				return {
					state,
					at: countBounds(state, now, windowNextStart(limit.window, now, state.inFlight)),
				};
			const window = copyWindow(limit.window);
			return {
				state: { ...state, window },
				at: countBounds(state, now, windowNextStart(window, now, state.inFlight)),
			};
		}
		case 'headerBudget':
			// While the registry's budget lasts, spend it; pace at the refill rate once it is nearly gone,
			// but only where a 429 at a spent budget did not show the count to be another limit's (count.ts).
			if (limit.left >= 2) return { state, at: 0 };
			if (limit.refillIntervalMs > 0)
				return { state, at: state.lastStartAt + limit.refillIntervalMs };
			return { state, at: limit.left <= 0 && state.inFlight > 0 ? undefined : 0 };
		case 'paced': {
			if (!creditDue(state.pace, now))
				return { state, at: startOnCredit(state.pace, limit.rate, now) };
			const pace = { ...state.pace };
			return { state: { ...state, pace }, at: pacedStart(pace, limit.rate, now) };
		}
		case 'unknown':
			// Nothing told of a limit: as fast as the concurrency allows, but for a count that said it
			// holds one or none (slowStart.ts), which an answer widens.
			return { state, at: roomWhileUnknown(state) ? 0 : undefined };
	}
}

/**
 * Whether waiting until `holdUntil` is waiting for the registry's limit itself (a window's reset, a
 * spent quota), which a lookup may do only as long as its execution allows.
 */
export function waitIsTheLimit(state: ControlState, now: number, holdUntil: number): boolean {
	return (
		(state.window !== undefined && waitingForReset(state.window, now)) ||
		state.quotaSpentUntil >= holdUntil
	);
}

/**
 * A window whose answers tell a count that comes back request by request (`refills`: a bucket's, no reset
 * ahead): the window reckons only our own requests since it began, the count everybody's. Where the
 * window would let one start now but the count (less ours since it was told) leaves none, wait for an
 * answer, as the count's own budget would; a window spent keeps its own wait.
 */
function countBounds(state: ControlState, now: number, at: number | undefined): number | undefined {
	if (at === undefined || at > now || !state.window?.refills || state.inFlight === 0) return at;
	const left = budgetLeft(state.count, now);
	return left !== undefined && left < 1 ? undefined : at;
}

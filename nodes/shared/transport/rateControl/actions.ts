import type { ControlState } from './state';

/** Why everybody pauses. */
export type PauseReason = 'firstLimit' | 'burstRefused' | 'storm' | 'quotaSpent' | 'budgetSpent';

/** What a transition did that the world outside its state may want to know (the controller counts them). */
export type Action =
	/** One congestion event: a 429 wave, a refusal that suggests a window, or the count's budget spent. */
	| { kind: 'congestion'; as: 'wave' | 'windowSuspected' | 'budgetSpent' }
	/** Nobody sends before `until` (a pause already reaching that far is not told again). */
	| { kind: 'pause'; until: number; why: PauseReason };

/** Nobody sends before `until`; `pausedSince` tells when this spell of pauses began. */
export function pause(
	state: ControlState,
	now: number,
	actions: Action[],
	until: number,
	why: PauseReason,
): void {
	if (until <= state.pausedUntil) return;
	actions.push({ kind: 'pause', until, why });
	if (state.pausedUntil < now) state.pausedSince = now;
	state.pausedUntil = until;
}

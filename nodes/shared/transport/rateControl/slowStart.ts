import type { ControlState } from './state';
import type { RequestReport } from './types';

/**
 * A registry that tells its count on every answer and said, before any 429, that it holds one or none
 * (X-RateLimit-Remaining 0 or 1, never more: a bucket of burst 1 or 2, a budget of 1 or 2): the count
 * tells no budget to spend (count.ts budgetLeft: such a count looks the same however fast it refills),
 * and the whole concurrency went at once on what it did not say, every request but one refused (bench:sim
 * s24, s155: a bucket of 2/s, burst 1, no token stored: its lone first answer said 0 left, and the 20
 * after it met 19 429s, half the sheet's requests). As TCP's slow start: what it said is left, at least
 * one, in flight, one more with each admission (doubling each round trip), until the first 429, from
 * which the 429s teach the limit (rateLimited.ts). Where nothing says so little is left, nothing changes.
 */
export function slowStartAnswered(state: ControlState, report: RequestReport): void {
	if (state.rateLimitedEver || !admitted(report)) return;
	if (state.slowStartRoom !== undefined) state.slowStartRoom += 1;
	else if (report.remaining !== undefined && state.count.peak <= 1)
		state.slowStartRoom = Math.max(1, report.remaining);
}

/** A 429: the slow start is over for good. */
export function slowStartRefused(state: ControlState): void {
	state.rateLimitedEver = true;
	state.slowStartRoom = undefined;
}

/** While no limit is known, whether another request may start now. */
export function roomWhileUnknown(state: ControlState): boolean {
	return state.slowStartRoom === undefined || state.inFlight < state.slowStartRoom;
}

const admitted = (report: RequestReport) =>
	report.status !== undefined && report.status >= 200 && report.status < 300;

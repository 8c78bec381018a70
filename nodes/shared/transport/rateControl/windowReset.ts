import { MIN_WAIT_MS, WINDOW_FALLBACK_RESET_MS } from './constants';
import type { RequestReport } from './types';
import type { WindowState } from './windowState';

// When a window's budget is back: the reset an answer tells, and the roll to a new window once it has come.

/** Whether a reset has come that the window has not rolled over yet. */
export const resetDue = (window: WindowState, now: number): boolean =>
	!window.confirming && window.resetAt !== undefined && window.resetAt <= now;

/** A reset that has come starts a new window, whether or not the last one was spent. */
export function rollIfDue(window: WindowState, now: number): void {
	if (!resetDue(window, now)) return;
	window.lastResetAt = now;
	window.resetAt = undefined;
	// What a log may hold of ours: the last `limit` requests, whichever window they went in.
	window.previousStarts = [...window.previousStarts, ...window.starts].slice(
		-(window.limit ?? Number.POSITIVE_INFINITY),
	);
	window.starts = [];
	window.leadSentAt = undefined;
	window.cut = false;
	window.askedEarlyAt = undefined;
	// Unknown until the first request's answer tells it: that request goes alone.
	window.budget = undefined;
}

/** The earliest of a known reset and the one this answer tells, where it is still ahead. */
export function earliestReset(
	known: number | undefined,
	report: RequestReport,
	now: number,
): number | undefined {
	const current = known !== undefined && known > now ? known : undefined;
	if (report.resetMs === undefined || report.resetMs <= 0) return current;
	// Counted from when the request left: a request sent that long after this one reaches the registry
	// about when the budget is back (from when it answered, each window would start a little later).
	const at = report.sentAt + report.resetMs;
	if (at <= now) return current;
	return current === undefined ? at : Math.min(current, at);
}

/** Where a refusal in a window gives no reset: Retry-After, or a second. */
export function fallbackReset(report: RequestReport, now: number): number {
	return now + Math.max(MIN_WAIT_MS, report.retryAfterMs ?? WINDOW_FALLBACK_RESET_MS);
}

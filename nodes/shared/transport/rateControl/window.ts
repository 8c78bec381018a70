import { EARLY_RESET_DOUBLINGS, EARLY_RESET_HOLD_MS } from './constants';
import { RESET_RESOLUTION_MS } from './headers/reading';
import { leadReset, logRoom, waveAdmitted } from './slidingLog';
import type { RequestReport } from './types';
import { earliestReset, fallbackReset, rollIfDue } from './windowReset';
import type { WindowState } from './windowState';

/**
 * How long before a drained log's told reset one request alone asks: that reset is told in whole
 * seconds, rounded up, so its oldest request leaves somewhere in the second before it. From the start of
 * that second the ask was refused more often than not (bench:sim s32: 429s 1.8% -> 3.3%); from its
 * middle it finds a request gone about half the time, and a refusal costs one 429 and no more wait.
 */
export const ASK_BEFORE_RESET_MS = RESET_RESOLUTION_MS / 2;

/** When the next request may start; undefined while only an answer can tell. Edits `window` (a copy). */
export function windowNextStart(
	window: WindowState,
	now: number,
	inFlight: number,
): number | undefined {
	rollIfDue(window, now);
	if (window.probeSentAt !== undefined) return undefined;
	if (window.holdUntil > now) return window.holdUntil;
	// The first request after a reset: a log has no room before our request `limit` back has left.
	const room = logRoom(window);
	if (window.budget === undefined) return room > now ? room : 0;
	if (left(window) >= 1) return 0;
	// A log that drains, spent, nothing out: its reset (when its oldest request leaves) is told in whole
	// seconds, rounded up, so up to a second late; one request alone asks before it. Only while the log
	// still holds requests from before the last reset (ours since then fewer than its limit): those are
	// what leaves first; ours since it leave a whole window after each left. Admitted, its count tells
	// what came back; refused, the cut waits for the reset.
	if (window.resetAt !== undefined)
		return window.drains &&
			!window.refills &&
			!window.cut &&
			inFlight === 0 &&
			window.starts.length < (window.limit ?? Number.POSITIVE_INFINITY)
			? Math.max(window.resetAt - ASK_BEFORE_RESET_MS, room)
			: window.resetAt;
	// Spent, and no answer said when it returns: the answers still out will; with none out, ask.
	return inFlight > 0 ? undefined : 0;
}

/** Spent, confirmed, and waiting for a reset that an answer announced. */
export function waitingForReset(window: WindowState, now: number): boolean {
	return (
		!window.confirming &&
		left(window) < 1 &&
		window.holdUntil <= now &&
		window.resetAt !== undefined &&
		window.resetAt > now
	);
}

export function windowStarted(window: WindowState, now: number): void {
	if (window.budget === undefined) window.probeSentAt = now;
	if (window.starts.length === 0) {
		window.leadSentAt = now;
		// Sent at or after the reset it was told: nothing was asked ahead of it.
		if (window.toldResetAt !== undefined && window.toldResetAt <= now)
			window.toldResetAt = undefined;
	}
	// Sent over a known budget: only the early ask of a drained log (windowNextStart) is.
	if (window.budget !== undefined && left(window) < 1) window.askedEarlyAt = now;
	window.starts.push(now);
}

export function windowAnswered(window: WindowState, report: RequestReport, now: number): void {
	rollIfDue(window, now);
	const admitted = report.status !== undefined && report.status >= 200 && report.status < 300;
	if (window.probeSentAt !== undefined && report.sentAt >= window.probeSentAt) {
		window.probeSentAt = undefined;
		if (window.confirming) {
			// Only a 429 or an admission tells window from bucket; anything else asks again.
			if (admitted) window.refuted = true;
			if (report.status !== 429) {
				forget(window, report.sentAt);
				return;
			}
			// A window: spent until its reset.
			window.confirming = false;
			window.budget = 0;
			window.starts = [];
			window.resetAt = earliestReset(window.resetAt, report, now) ?? fallbackReset(report, now);
			return;
		}
	}
	if (admitted) waveAdmitted(window, report.sentAt);
	// An answer to a request sent before the last reset speaks of the window that ended.
	if (report.sentAt < window.lastResetAt) return;
	// Ties count as before: requests started together left in one moment.
	const before = window.starts.filter((start) => start <= report.sentAt).length - 1;
	if (report.status === 429) {
		forget(window, report.sentAt);
		if (report.sentAt === window.leadSentAt) {
			// The first request after a reset refused: the reset was reckoned a little early, not the
			// budget wrong; nobody sends for a moment, longer each time in a row. Where the refusal says
			// none is left and when some is back (a sliding log's next request to leave it, seconds
			// away), not before: that reset is told in whole seconds, rounded up, so a second sooner.
			// Sent ahead of the reset told as a time (leadReset) and refused: the window did not begin with
			// its first request (a fixed window on the clock's seconds); its resets are as told from now on.
			const told = report.remaining === 0 ? earliestReset(undefined, report, now) : undefined;
			const ahead = window.toldResetAt;
			window.toldResetAt = undefined;
			if (ahead !== undefined) window.resetsAsTold = true;
			window.holdUntil = Math.max(
				now + EARLY_RESET_HOLD_MS * 2 ** Math.min(window.early++, EARLY_RESET_DOUBLINGS),
				(told ?? 0) - RESET_RESOLUTION_MS,
				ahead ?? 0,
			);
			return;
		}
		window.resetAt =
			earliestReset(window.resetAt, report, now) ?? window.resetAt ?? fallbackReset(report, now);
		window.budget = Math.min(window.budget ?? Number.POSITIVE_INFINITY, Math.max(0, before));
		window.cut = true;
		return;
	}
	if (!admitted) {
		// No answer, or one the registry may not have counted: it spends nothing of the window.
		if (report.status === undefined || report.status >= 500 || report.status === 401)
			forget(window, report.sentAt);
		return;
	}
	window.early = 0;
	if (report.limit !== undefined) window.limit = report.limit;
	if (report.remaining !== undefined && !(report.resetMs !== undefined && report.resetMs > 0))
		window.refills = true;
	// The early ask admitted: the oldest request has left, the reset told for it is past; this answer's
	// says when the next leaves (keeping the old one, the next reset's first request found none left).
	window.resetAt = earliestReset(
		report.sentAt === window.askedEarlyAt ? undefined : window.resetAt,
		report,
		now,
	);
	if (report.sentAt === window.leadSentAt) {
		window.toldResetAt = undefined;
		const reset = leadReset(window, report, now);
		if (reset !== undefined && window.resetAt !== undefined && reset < window.resetAt) {
			window.toldResetAt = window.resetAt;
			window.resetAt = reset;
		}
	}
	if (window.budget !== undefined && report.sentAt !== window.leadSentAt) {
		// A count above what the window reckons left: the budget came back between resets (a sliding
		// log's oldest requests leave it one by one, its reset says only when the first does, and in
		// whole seconds). Requests that left with this one count as after it: among those, the first
		// to arrive tells the most, and none tells more than was left. Not after a refusal cut it: the
		// count is shared with others (workers), each would take what is left for itself.
		if (report.remaining !== undefined && !window.cut) {
			const told =
				window.starts.filter((start) => start < report.sentAt).length + 1 + report.remaining;
			if (told > window.budget) {
				window.drains = true;
				// What the lead's answer reckoned would leave has left, and is spent again: the next to
				// leave is what the registry tells.
				if (window.toldResetAt !== undefined) window.resetAt = window.toldResetAt;
				window.toldResetAt = undefined;
			}
			window.budget = Math.max(window.budget, told);
		}
		return;
	}
	// What this reset gave (up or down); an answer without a count is taken to give what the last did.
	if (report.remaining !== undefined) window.given = Math.max(0, before) + 1 + report.remaining;
	window.budget = window.given;
}

function left(window: WindowState): number {
	return window.budget === undefined ? 1 : window.budget - window.starts.length;
}

function forget(window: WindowState, sentAt: number): void {
	const at = window.starts.indexOf(sentAt);
	if (at >= 0) window.starts.splice(at, 1);
}

import {
	CONFIRM_AFTER_MS,
	EARLY_RESET_DOUBLINGS,
	EARLY_RESET_HOLD_MS,
	MIN_WAIT_MS,
	WINDOW_FALLBACK_RESET_MS,
} from './constants';
import { RESET_RESOLUTION_MS } from './headers/reading';
import type { RequestReport } from './types';

/**
 * How long before a drained log's told reset one request alone asks: that reset is told in whole
 * seconds, rounded up, so its oldest request leaves somewhere in the second before it. From the start of
 * that second the ask was refused more often than not (bench:sim s32: 429s 1.8% -> 3.3%); from its
 * middle it finds a request gone about half the time, and a refusal costs one 429 and no more wait.
 */
export const ASK_BEFORE_RESET_MS = RESET_RESOLUTION_MS / 2;

/**
 * A registry whose budget comes back whole at a reset (a fixed window, a quota): the budget is spent,
 * then nobody sends until X-RateLimit-Reset says it is back. What a reset gives is told by the answer to
 * the first request after it, which goes alone (later answers overtake each other, so their remaining
 * counts are only roughly ordered): one round trip per window, and nothing is sent on a guess, so a slow
 * token bucket taken for a window (its reset says when one token is back, not a whole budget) is served
 * at its rate without 429s. A refusal within a window lowers that window's budget to what it admitted.
 *
 * Plain data: the functions below edit a copy the transition made (see transitions.ts).
 */
export interface WindowState {
	resetAt: number | undefined;
	lastResetAt: number;
	/** Our requests sent since the last reset that the registry may have counted, oldest first. */
	starts: number[];
	/** This window's budget; undefined until an answer tells it (then one request goes alone). */
	budget: number | undefined;
	/** What the last reset gave, as the answer to its first request told it: assumed where an answer tells no budget. */
	given: number | undefined;
	/** The first request after the last reset, whose answer tells what the reset gave. */
	leadSentAt: number | undefined;
	/** A request sent alone whose answer is awaited before anybody else sends. */
	probeSentAt: number | undefined;
	/** Refusals of the first request after a reset in a row: the reset came a little later than reckoned. */
	early: number;
	holdUntil: number;
	/** Not yet sure: the one request sent after a moment decides (see rateLimited.ts, budgetRefused). */
	confirming: boolean;
	/** That request was admitted: the budget refills request by request, a bucket's. */
	refuted: boolean;
	/** A refusal since the last reset cut the budget: a count shared with others, no longer raised by it. */
	cut: boolean;
	/** A count rose between resets: its budget comes back request by request (a sliding log's). */
	drains: boolean;
	/**
	 * An admitted answer told a count but no reset ahead: nothing it counts waits to leave, so it is no
	 * log (a log holds every request it admitted until it leaves, and says when the oldest does); a
	 * bucket's, whose tokens come back by time, not one window after our requests.
	 */
	refills: boolean;
	/** What the registry last said its budget holds when full. */
	limit: number | undefined;
	/** A request sent with the budget spent, before the reset (see windowNextStart). */
	askedEarlyAt: number | undefined;
	/** The told reset that `resetAt` was put ahead of (see leadReset), until the next lead leaves. */
	toldResetAt: number | undefined;
	/** A lead sent ahead of its told reset was refused: this registry's resets are as told. */
	resetsAsTold: boolean;
	/** How long a request stays in the log, as a lead that found it empty told it (see leadReset). */
	windowMs: number | undefined;
	/** Our last requests before the last reset (at most `limit`), oldest first: those a log may still hold. */
	previousStarts: number[];
	/** The last lead's round trip: a request reaches the registry at most this long after it left. */
	roundTripMs: number;
	/** A lead found requests of ours from before the last reset still counted: a log's (see logRoom). */
	keepsRequests: boolean;
}

/** Entered on a refusal: one request alone after a moment, then (a window) nobody until `resetAt`. */
export function suspectWindow(now: number, resetAt: number | undefined): WindowState {
	return {
		resetAt,
		lastResetAt: now,
		starts: [],
		budget: undefined,
		given: undefined,
		leadSentAt: undefined,
		probeSentAt: undefined,
		early: 0,
		holdUntil: now + CONFIRM_AFTER_MS,
		confirming: true,
		refuted: false,
		cut: false,
		drains: false,
		refills: false,
		limit: undefined,
		askedEarlyAt: undefined,
		toldResetAt: undefined,
		resetsAsTold: false,
		windowMs: undefined,
		previousStarts: [],
		roundTripMs: 0,
		keepsRequests: false,
	};
}

export const copyWindow = (window: WindowState): WindowState => ({
	...window,
	starts: [...window.starts],
});

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

/** Whether a reset has come that the window has not rolled over yet. */
export const resetDue = (window: WindowState, now: number): boolean =>
	!window.confirming && window.resetAt !== undefined && window.resetAt <= now;

/** A reset that has come starts a new window, whether or not the last one was spent. */
function rollIfDue(window: WindowState, now: number): void {
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

/**
 * A log's next reset from its first request's answer: when the oldest request it holds leaves, one
 * window after that request reached the registry (at most a round trip, the lead's, after it left).
 * Found empty, the lead is that oldest and tells the window: in seconds its reset, told as a time
 * (Unix seconds) the whole seconds short of it (rounded up to the registry clock's second, the reset
 * holds the part of a second the request arrived in; windows are whole seconds as registries state
 * them). Found holding others, those are ours of the last windows (what a log holds), the oldest of
 * the most recent as many. Either way the reset told is rounded up, up to a second late: the lead sent
 * at it reaches the registry just past a whole second, its own reset is told a second late again,
 * every window (bench:sim s272: one 1 s window in 2 s). A fixed window on the clock's seconds is no
 * such log: the refusal of the lead sent ahead shows it (windowAnswered).
 */
function leadReset(window: WindowState, report: RequestReport, now: number): number | undefined {
	if (
		window.resetsAsTold ||
		report.resetMs === undefined ||
		report.limit === undefined ||
		report.remaining === undefined
	)
		return undefined;
	window.roundTripMs = now - report.sentAt;
	const others = report.limit - 1 - report.remaining;
	if (others === 0) {
		const windowMs = toldWindowMs(report.resetMs, report.resetToldAsTime === true);
		window.windowMs = windowMs;
		// Found empty, though ours went less than a window before it: those left at a reset, not one by
		// one (a fixed window, as a lead alone after others stopped finds it): no log.
		if (
			windowMs !== undefined &&
			window.previousStarts.some((start) => start > report.sentAt - windowMs + window.roundTripMs)
		)
			window.keepsRequests = false;
	} else window.keepsRequests = true;
	const oldest =
		others === 0 ? report.sentAt : window.previousStarts[window.previousStarts.length - others];
	return window.windowMs === undefined || oldest === undefined
		? undefined
		: oldest + window.windowMs + window.roundTripMs;
}

/** A log's length from the reset its lead was told, where the lead found it empty. */
function toldWindowMs(resetMs: number, asTime: boolean): number | undefined {
	const windowMs = asTime
		? (Math.ceil(resetMs / RESET_RESOLUTION_MS) - 1) * RESET_RESOLUTION_MS
		: resetMs;
	return windowMs >= RESET_RESOLUTION_MS ? windowMs : undefined;
}

/**
 * When a log of a known length holding our last `limit` requests has room again: once the one `limit`
 * back has left it, a window after it reached the registry (0 where unknown, fewer were sent, or the
 * answers show no log: a fixed window's budget comes back whole at its reset, whenever ours went). The
 * lead alone, the others a round trip later: a reset's first request found those still in the log
 * (bench:sim s169, 7 a second: 8 requests in 2 s).
 */
function logRoom(window: WindowState): number {
	const log = window.keepsRequests || (window.drains && !window.refills);
	const sent = [...window.previousStarts, ...window.starts];
	const back = sent.length - (window.limit ?? Number.POSITIVE_INFINITY);
	return !log || window.windowMs === undefined || back < 0
		? 0
		: sent[back] + window.windowMs + window.roundTripMs;
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
function fallbackReset(report: RequestReport, now: number): number {
	return now + Math.max(MIN_WAIT_MS, report.retryAfterMs ?? WINDOW_FALLBACK_RESET_MS);
}

import { CONFIRM_AFTER_MS } from './constants';

/**
 * A registry whose budget comes back whole at a reset (a fixed window, a quota): the budget is spent,
 * then nobody sends until X-RateLimit-Reset says it is back. What a reset gives is told by the answer to
 * the first request after it, which goes alone (later answers overtake each other, so their remaining
 * counts are only roughly ordered): one round trip per window, and nothing is sent on a guess, so a slow
 * token bucket taken for a window (its reset says when one token is back, not a whole budget) is served
 * at its rate without 429s. A refusal within a window lowers that window's budget to what it admitted.
 *
 * Plain data: window.ts, windowReset.ts and slidingLog.ts edit a copy the transition made (see transitions.ts).
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
	/** Our last requests before the last reset (at most `limit` once one rolled), oldest first: those a log may still hold. */
	previousStarts: number[];
	/**
	 * The first wave's requests sent from (none where firstWaveLog seeded nothing), until the window was
	 * suspected, that moment's too: their admissions join previousStarts (slidingLog.ts waveAdmitted).
	 */
	waveFrom: number;
	waveUntil: number;
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
		waveFrom: Number.POSITIVE_INFINITY,
		waveUntil: now,
		roundTripMs: 0,
		keepsRequests: false,
	};
}

export const copyWindow = (window: WindowState): WindowState => ({
	...window,
	starts: [...window.starts],
});

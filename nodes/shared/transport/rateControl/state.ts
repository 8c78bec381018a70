import { MIN_WAIT_MS } from './constants';
import { copyCount, noCount, type CountState } from './count';
import { emptyLog, type Log } from './log';
import { unknownPace } from './pace';
import type { PaceState } from './paceState';
import type { RequestReport } from './types';
import { copyWindow, type WindowState } from './windowState';
import { noTurn, type TurnState } from './windowTurn';

/**
 * All a controller knows of its registry, as plain data: what it was told (the count, a window's reset),
 * what it learned (the pace), and the recent past both are reckoned from. Which of these governs the next
 * start is the mode (modes.ts); only a transition (transitions.ts) changes it, on a copy.
 */
export interface ControlState {
	inFlight: number;
	/** Requests started, ever (the second one tells whether the first went alone). */
	requests: number;
	/** When any request last got an answer. */
	lastAnswerAt: number;
	/** When the registry last answered a request with a 2xx (a 401 may come before its limit): refusalStreak.ts. */
	lastAdmittedAt: number;
	/**
	 * When any request's try last ended, answered or not: by then the credential's token exchange has
	 * happened (a token is stored) or failed (its lookup says so). A registry that never answers must
	 * not keep everybody else behind the first request.
	 */
	lastTryEndedAt: number;
	lastStartAt: number;
	pausedUntil: number;
	pausedSince: number;
	/** A spent quota: nobody sends before this (see rateLimited.ts). */
	quotaSpentUntil: number;
	/** Storm pauses in a row, each twice as long. */
	stormLevel: number;
	/**
	 * The requests the registry admitted lately (ADMITTED_SPAN_MAX_MS): when each was answered, and sent;
	 * `succeeded`: a 2xx, the lookup itself answered (a 503 or a gateway's 52x passed the limit, or not).
	 */
	admitted: Log<{ at: number; sentAt: number; succeeded: boolean }>;
	/** How long an answer takes, lately (a moving average). */
	latencyMs: number;
	/** Answers, ever (admitted or not, 429s aside). */
	answered: number;
	/** When sending began (after the last quiet spell), while no limit is known. */
	firstSentAt: number | undefined;
	/** The first admitted answer since sending began, before any 429, and when it came (slidingLog.ts). */
	firstWaveLead: { report: RequestReport; at: number } | undefined;
	/** The last congestion event (a 429 wave, a suspected window, a spent budget). */
	lastEventAt: number | undefined;
	answeredSinceEvent: number;
	/** The last answer whose count said others spend the quota too (count.ts `othersSpend`). */
	othersSpentAt: number;
	/** Congestion events of the last STORM_WINDOW_MS with nothing admitted since. */
	recentEvents: number[];
	/** 429 waves since the last admission, however far apart. */
	wavesInRow: number;
	/** When the current spell of congestion (waves at most CONGESTION_SPELL_MS apart) began. */
	congestionSince: number;
	lastCongestionAt: number;
	lastBurstAt: number;
	/**
	 * A burst of saved-up credit was spent since the last congestion event: the next spend within
	 * BURST_BLAME_MS goes on with it (transitions.ts `started`). Kept as the order they came in: a 429 in
	 * the very ms of a spend came after it, which their times do not tell.
	 */
	burstSinceEvent: boolean;
	/** When the last burst of saved-up credit began. */
	burstStartedAt: number;
	pace: PaceState;
	count: CountState;
	/** The earliest moment the answers say the registry's budget is refilled (X-RateLimit-Reset). */
	resetAt: number | undefined;
	/** Set once the registry refused beyond its own budget: it comes back whole, at a reset. */
	window: WindowState | undefined;
	/** A suspected window was a bucket after all. */
	refillsSeen: boolean;
	/**
	 * While no limit is known, how many may be in flight where the count said it holds one or none
	 * (slowStart.ts); undefined: the concurrency alone decides.
	 */
	slowStartRoom: number | undefined;
	/** A 429 was met: what a limit is, the 429s teach from here (no slow start any more). */
	rateLimitedEver: boolean;
	/** Where bare 429s come from a window: when it turns, learned from its refusals (windowTurn.ts). */
	turn: TurnState;
}

/** A registry nobody has heard from. */
export const unknownRegistry = (): ControlState => ({
	inFlight: 0,
	requests: 0,
	lastAnswerAt: 0,
	lastAdmittedAt: Number.NEGATIVE_INFINITY,
	lastTryEndedAt: Number.NEGATIVE_INFINITY,
	lastStartAt: 0,
	pausedUntil: 0,
	pausedSince: 0,
	quotaSpentUntil: 0,
	stormLevel: 0,
	admitted: emptyLog(),
	latencyMs: 0,
	answered: 0,
	firstSentAt: undefined,
	firstWaveLead: undefined,
	lastEventAt: undefined,
	answeredSinceEvent: 0,
	othersSpentAt: Number.NEGATIVE_INFINITY,
	recentEvents: [],
	wavesInRow: 0,
	congestionSince: 0,
	lastCongestionAt: Number.NEGATIVE_INFINITY,
	lastBurstAt: Number.NEGATIVE_INFINITY,
	burstSinceEvent: false,
	burstStartedAt: 0,
	pace: unknownPace(),
	count: noCount(),
	resetAt: undefined,
	window: undefined,
	refillsSeen: false,
	slowStartRoom: undefined,
	rateLimitedEver: false,
	turn: noTurn(),
});

/** A copy a transition may edit: the caller's state stays as it was (its logs are persistent, log.ts). */
export const copyState = (state: ControlState): ControlState => ({
	...state,
	recentEvents: [...state.recentEvents],
	pace: { ...state.pace },
	count: copyCount(state.count),
	window: state.window && copyWindow(state.window),
	turn: { ...state.turn },
});

/**
 * How long everybody pauses at a 429: its Retry-After, or `fallbackMs` where it gives none, at most
 * `capMs`, and never less than MIN_WAIT_MS whatever Retry-After says (a pause of 0 is a retry storm).
 */
export function pauseFor(report: RequestReport, fallbackMs: number, capMs: number): number {
	return Math.max(MIN_WAIT_MS, Math.min(capMs, report.retryAfterMs ?? fallbackMs));
}

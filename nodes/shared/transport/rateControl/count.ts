import {
	LOWER_BOUND_GROWTH_PER_SECOND,
	OVERRUN_ADMISSIONS,
	OVERRUN_RESET_DOUBTED_MS,
	QUOTA_LEFT_AT_429,
	REFILL_SPAN_MIN_MS,
	REFILL_WINDOW_MS,
	REMAINING_TTL_MS,
	SHARED_COUNT_QUIET_MS,
} from './constants';
import { RESET_RESOLUTION_MS } from './headers/reading';
import { append, emptyLog, logSize, newest, oldest, trim, type Log } from './log';

/**
 * The registry's own count (X-RateLimit-Remaining, or any dialect's): the budget it says is left, how
 * fast it refills, and what the registry's behaviour says of it. It is taken for the budget the registry
 * enforces until the registry shows otherwise. A count that never rose above 1 tells nothing (see
 * budgetLeft). A 429 while it said plenty was left makes it a longer quota's (5,000 an hour), whose reset
 * says when that quota refills, not how long this 429 lasts: the 429s teach the limit that refuses. So
 * do admissions of requests sent after it said none was left, past what a lagging count lets through
 * (countAdmitted).
 * Plain data, edited only on a transition's copy.
 */
export interface CountState {
	remaining: number | undefined;
	remainingAt: number;
	/** When the request whose answer told `remaining` left. */
	remainingSentAt: number;
	/** When that same answer said the budget is back (its reset), where it said. */
	remainingResetAt: number | undefined;
	/** Requests started since `remaining` was told (those in flight then included). */
	startedSinceRemaining: number;
	refillIntervalMs: number;
	/**
	 * While the count says its budget is full (at its peak), the refill measured is only what we sent
	 * (the registry refilled all of it): the interval kept shrinks with each such answer, doubling the
	 * pace per second as a pace's lower bound does (pace.ts). Undefined once the count falls below its peak.
	 */
	probeIntervalMs: number | undefined;
	/** Counts over the last REFILL_WINDOW_MS, with our answers, and ours answered or in flight, by then. */
	samples: Log<{ at: number; remaining: number; answered: number; ours: number }>;
	/** The highest count seen. */
	peak: number;
	isQuota: boolean;
	/**
	 * The reset the count told when the registry went on admitting requests past its 0 (countAdmitted): the
	 * count is no budget the registry enforces, whatever a 429 later says of it. Undefined: not overrun.
	 */
	overrunResetAt: number | undefined;
	/** Admissions of requests sent after the count said 0, for the reset it told then (countAdmitted). */
	admittedPastZero: number;
	pastZeroResetAt: number | undefined;
	/**
	 * When a refusal last came while the count still left this controller a request beyond the refused
	 * one: others spend from it too (queue-mode workers sharing a client id, each its own controller).
	 */
	sharedAt: number;
}

export const noCount = (): CountState => ({
	remaining: undefined,
	remainingAt: 0,
	remainingSentAt: 0,
	remainingResetAt: undefined,
	startedSinceRemaining: 0,
	refillIntervalMs: 0,
	probeIntervalMs: undefined,
	samples: emptyLog(),
	peak: 0,
	isQuota: false,
	overrunResetAt: undefined,
	admittedPastZero: 0,
	pastZeroResetAt: undefined,
	sharedAt: Number.NEGATIVE_INFINITY,
});

/** A copy to edit; its log is persistent. */
export const copyCount = (count: CountState): CountState => ({ ...count });

export function remainingIsFresh(count: CountState, now: number): boolean {
	return count.remaining !== undefined && now - count.remainingAt < REMAINING_TTL_MS;
}

/**
 * What the count says is left for requests not yet counted; undefined where it said nothing lately, or
 * where it turned out to describe another quota, or nothing at all, or where it never rose above 1: a
 * bucket of one says 0 left after every admission however fast it refills (its refill, measured from
 * how the count moves, is only the rate we sent at), and a constant 0 or 1 looks the same; the 429s
 * teach the pace instead. Of a count shared lately, half: each worker that spent all it said was left
 * took it twice over, refused wave after wave (test:queue scenario 3: 296 429s of 2,996); half is ours
 * beside one other as fast (one at a time, at the refill, left a bucket's burst unspent).
 */
export function budgetLeft(count: CountState, now: number): number | undefined {
	if (!remainingIsFresh(count, now) || count.isQuota || count.peak <= 1) return undefined;
	// Our requests since the count was told come out of our half: taken from the whole count before
	// halving, two workers together held up to twice what it left in flight (bench/sim/queueShape.ts).
	const ours =
		now - count.sharedAt < SHARED_COUNT_QUIET_MS
			? Math.floor(count.remaining! / 2)
			: count.remaining!;
	return ours - count.startedSinceRemaining;
}

/**
 * A 429: refused with plenty left, the count is not the limit that refused; refused at the end of it,
 * it is. The count on the 429 itself, where it has one, is the registry's own word on which budget refused.
 */
export function countRefused(count: CountState, now: number, remaining: number | undefined): void {
	// What the count last told, less our requests since (the refused one among them): our own reckoning.
	const reckoned = remainingIsFresh(count, now)
		? count.remaining! - count.startedSinceRemaining
		: undefined;
	const left = remaining ?? reckoned;
	if (left !== undefined && left >= QUOTA_LEFT_AT_429) count.isQuota = true;
	// Refused at the end of it, the count is the limit again; not one the registry overran.
	else if (left !== undefined && left <= 0 && count.overrunResetAt === undefined)
		count.isQuota = false;
	// Refused with a request of ours still left after this one, and the limit it tells (not a longer
	// quota's): somebody else spent it.
	if (!count.isQuota && reckoned !== undefined && reckoned >= 1) count.sharedAt = now;
}

/**
 * An admission of a request sent after the count said none was left, more than a reset's rounding before
 * the reset then told: counted, and past OVERRUN_ADMISSIONS of them (more than a counter that lags lets
 * through before it refuses) the count is not the budget that refuses, whatever it is (a longer quota's,
 * another credential's, a soft quota the registry lets callers exceed), and is read no more as one (a
 * quota's, like one that a 429 came with plenty left of; overrun for good). Paced by it, each admission
 * with 0 left was read as the refill, and two workers on an hourly count of 5,000 that went on admitting
 * sent ever fewer, never refused (bench:sim seed 4 s178: 9,000 rows in 382 s, the floor 2.7 s). One or two
 * past it are a count one behind, whose 429s at 0 are the quota's: taken for an overrun, they were ignored
 * and the spent quota hammered (bench:sim --guards).
 */
export function countAdmitted(count: CountState, sentAt: number, now: number): void {
	if (
		!remainingIsFresh(count, now) ||
		count.remaining! > 0 ||
		sentAt < count.remainingAt ||
		count.remainingResetAt === undefined ||
		sentAt >= count.remainingResetAt - RESET_RESOLUTION_MS
	)
		return;
	// Another reset than the one counted (beyond a reset's rounding: a reset told in seconds from now moves
	// with each answer by up to that): the count refilled, and may be overrun anew.
	if (
		count.pastZeroResetAt === undefined ||
		Math.abs(count.remainingResetAt - count.pastZeroResetAt) > RESET_RESOLUTION_MS
	) {
		count.pastZeroResetAt = count.remainingResetAt;
		count.admittedPastZero = 0;
	}
	count.admittedPastZero += 1;
	if (count.admittedPastZero <= OVERRUN_ADMISSIONS) return;
	count.isQuota = true;
	count.overrunResetAt = count.remainingResetAt;
}

/**
 * Whether a 429's `resetAt`, `now` + a minute or more away, is (within a reset's rounding) the reset of a
 * count the registry overran: a quota's (an hour's, a day's) that the registry let us past, which says
 * nothing of this refusal. A nearer one (a window's seconds told by the same fields) is believed.
 */
export const overrunReset = (count: CountState, resetAt: number, now: number): boolean =>
	resetAt - now >= OVERRUN_RESET_DOUBTED_MS &&
	// Not overrun (undefined): no reset is within any distance of it.
	Math.abs(resetAt - (count.overrunResetAt ?? Number.NaN)) <= RESET_RESOLUTION_MS;

/** A told count: the budget now, and (over a window of counts) how fast it refills. */
export function recordRemaining(
	count: CountState,
	told: {
		now: number;
		sentAt: number;
		remaining: number;
		resetAt?: number;
		answered: number;
		inFlight: number;
	},
): void {
	const { now, sentAt, remaining, answered } = told;
	// Answers overtake each other: a count from a request that left before the one that told the current
	// count is older news, and of requests that left together the lowest count is the latest.
	const older =
		sentAt < count.remainingSentAt ||
		(sentAt === count.remainingSentAt && remaining >= count.remaining!);
	if (remainingIsFresh(count, now) && older) return;
	count.peak = Math.max(count.peak, remaining);
	count.remaining = remaining;
	count.remainingAt = now;
	count.remainingSentAt = sentAt;
	count.remainingResetAt = told.resetAt;
	// Requests still in flight were sent before this answer and will spend from this budget.
	count.startedSinceRemaining = told.inFlight;
	count.samples = trim(
		append(count.samples, { at: now, remaining, answered, ours: answered + told.inFlight }),
		({ at }) => now - at > REFILL_WINDOW_MS,
		2,
	);
	if (!count.isQuota && fellByOthers(count)) count.sharedAt = now;
	const first = oldest(count.samples);
	const spanMs = now - first.at;
	if (spanMs >= REFILL_SPAN_MIN_MS) {
		const refillPerSecond =
			((remaining - first.remaining + (answered - first.answered)) * 1000) / spanMs;
		if (refillPerSecond > 0) count.refillIntervalMs = 1000 / refillPerSecond;
	}
	if (remaining < count.peak || count.refillIntervalMs <= 0) count.probeIntervalMs = undefined;
	else {
		const from = Math.min(count.probeIntervalMs ?? count.refillIntervalMs, count.refillIntervalMs);
		count.probeIntervalMs = from * Math.pow(1 + LOWER_BOUND_GROWTH_PER_SECOND, -from / 1000);
	}
}

/**
 * Since some count kept, the count fell by more than every request of ours it could have counted since
 * (those answered since, and those in flight now) and one more: others spend it. A refill only raises a
 * count, so one process alone never sees this; workers sharing a client id do, while each spends the
 * count at its whole concurrency, when no 429 yet came with its own reckoning left (test:queue scenario 3
 * with the warm worker's sheet a second late: a wave every 1.25 s, 188 429s of 2,888). The one more: a
 * bucket tells its tokens rounded down, so two counts fall by up to one more than was spent between them
 * (50.9 then 40.0 after 10 of ours). Read as shared, that rounding marked the slowest of workers pacing
 * a small burst at its refill (its own requests the fewest between two counts), and only it: half the
 * count left it nothing to start at once, so it went on at its own share's refill while the others took
 * the rest (bench:sim seed 2 s200, four workers on 97/s burst 6: 1.101 -> 1.235; s98 1.479 -> 1.869).
 */
function fellByOthers(count: CountState): boolean {
	const last = newest(count.samples);
	for (let index = count.samples.from; index < count.samples.to - 1; index++) {
		const earlier = count.samples.items[index];
		if (earlier.remaining - last.remaining > last.ours - earlier.answered + 1) return true;
	}
	return false;
}

/** How long apart the count's pace starts requests once its budget is nearly spent (0: unknown). */
export function countIntervalMs(count: CountState): number {
	return count.probeIntervalMs ?? count.refillIntervalMs;
}

/**
 * A quota's count (it refills only at its reset) that fell by more than twice our own requests over the
 * counts kept: every admission of anybody spending the same credential is counted there, so others
 * spend this limit too (queue-mode workers sharing a client id). Ours are those answered since the first
 * count and those in flight at the last: answers overtake each other, and one process's requests sent
 * together may tell the last one's count first (three at once: a fall of 3 on one answer).
 */
export function othersSpend(count: CountState): boolean {
	// A quota may be told on a 429 before any answer told a count: nothing to compare yet.
	if (!count.isQuota || logSize(count.samples) === 0) return false;
	const first = oldest(count.samples);
	const last = newest(count.samples);
	return first.remaining - last.remaining > 2 * (last.ours - first.answered);
}

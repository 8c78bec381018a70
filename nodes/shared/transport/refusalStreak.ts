import { refusesForRateLimit, retryAfterOf } from './answerReport';
import type { LookupFailure } from './registryError';
import { TOKEN_REFUSAL_STATUSES, type RegistryAnswer } from './registryRequest';

/**
 * The shortest streak of refusals after which an execution gives up, whatever its Max Rate-Limit Wait: a
 * shorter one is a per-minute window's turn or a first wave the controller learns from. With a wait of 0
 * (no lookup waits) the execution still gives up only after a minute of nothing but refusals.
 */
export const GIVE_UP_AFTER_MIN_MS = 60_000;

/** Whether the registry is admitting an execution's lookups at all. */
export type RefusalStreakMode =
	/** An answer that was no refusal came after the last refusal (or nothing was refused yet). */
	| { kind: 'admitting' }
	/** Every answer since `since` refused for the rate limit; the last one's status and Retry-After. */
	| { kind: 'refusing'; since: number; status: number; retryAfterMs?: number }
	/**
	 * Refused for longer than the execution waits, the last refusal at `at`: every lookup not yet answered
	 * fails without a request. Final: the lookups already failed; one admission in flight changes nothing.
	 */
	| { kind: 'givenUp'; since: number; at: number; status: number; retryAfterMs?: number };

/** An answer to one of the execution's requests (a request that got none tells nothing). */
export type StreakEvent =
	| { kind: 'admitted' }
	| { kind: 'refused'; status: number; retryAfterMs?: number };

/** The one transition: pure, time only from `now`. */
export function nextStreak(
	mode: RefusalStreakMode,
	event: StreakEvent,
	now: number,
	giveUpAfterMs: number,
): RefusalStreakMode {
	if (mode.kind === 'givenUp') return mode;
	if (event.kind === 'admitted') return { kind: 'admitting' };
	const since = mode.kind === 'refusing' ? mode.since : now;
	const { status, retryAfterMs } = event;
	// Given up on a refusal, never on the clock alone: a limit that lifted meanwhile is found by asking.
	return now - since >= giveUpAfterMs
		? { kind: 'givenUp', since, at: now, status, retryAfterMs }
		: { kind: 'refusing', since, status, retryAfterMs };
}

/**
 * A registry that refuses everything (a key blocked, a daily quota spent that tells nothing, a window far
 * longer than the wait) fails the execution's rows once it has admitted none of them for its Max
 * Rate-Limit Wait (at least GIVE_UP_AFTER_MIN_MS), instead of each row waiting its own turn and its own
 * wait at the slow pace refusals bring: 100 rows took 12 minutes, one lone ask every 10 s. A lookup's own
 * wait (retryDecision.ts) still ends a lookup the registry refuses while it admits others.
 */
export class RefusalStreak {
	mode: RefusalStreakMode = { kind: 'admitting' };
	private readonly giveUpAfterMs: number;

	constructor(maxRateLimitWaitMs: number) {
		this.giveUpAfterMs = Math.max(maxRateLimitWaitMs, GIVE_UP_AFTER_MIN_MS);
	}

	/**
	 * Takes in an answer to one of the execution's requests (none, or a token's refusal, says nothing of
	 * the limit); true where it gave the execution up (the lookups waiting for a start are to be told).
	 */
	answered(answer: RegistryAnswer, now: number): boolean {
		if (this.mode.kind === 'givenUp') return false;
		if (answer.kind !== 'response' || TOKEN_REFUSAL_STATUSES.has(answer.status)) return false;
		const { status, headers } = answer;
		const event: StreakEvent = refusesForRateLimit(status, headers)
			? { kind: 'refused', status, retryAfterMs: retryAfterOf(headers, now) }
			: { kind: 'admitted' };
		this.mode = nextStreak(this.mode, event, now, this.giveUpAfterMs);
		return this.mode.kind === 'givenUp';
	}

	/** The failure of every lookup not yet answered, once given up. */
	failure(now: number): Extract<LookupFailure, { kind: 'rate-limited' }> | undefined {
		if (this.mode.kind !== 'givenUp') return undefined;
		const { since, status, retryAfterMs } = this.mode;
		return {
			kind: 'rate-limited',
			waitedMs: now - since,
			retryAfterMs,
			status,
			refusedThroughout: true,
		};
	}
}

import { refusesForRateLimit, retryAfterOf } from './answerReport';
import type { LookupFailure } from './registryError';
import { TOKEN_REFUSAL_STATUSES, type RegistryAnswer } from './registryRequest';

/**
 * The shortest streak of refusals after which an execution gives up, whatever its Max Rate-Limit Wait: a
 * shorter one is a per-minute window's turn or a first wave the controller learns from. With a wait of 0
 * (no lookup waits) the execution still gives up only after a minute of nothing but refusals.
 */
export const GIVE_UP_AFTER_MIN_MS = 60_000;

/** Whether the registry lets an execution's lookups through at all. */
export type RefusalStreakMode =
	/** Nothing admitted yet, and nothing refused. */
	| { kind: 'waiting' }
	/** Every answer since `since` refused for the rate limit, nothing admitted; the last refusal's status and Retry-After. */
	| { kind: 'refusing'; since: number; status: number; retryAfterMs?: number }
	/**
	 * The registry let one of the execution's lookups through, or another execution's here during the
	 * streak: it admits, and this execution only loses turns of a shared limit. Final: each lookup's own
	 * wait decides from here (retryDecision.ts).
	 */
	| { kind: 'admitted' }
	/**
	 * Refused from the first answer for longer than the execution waits: every lookup not yet answered fails
	 * without a request. Final.
	 */
	| { kind: 'givenUp'; since: number; status: number; retryAfterMs?: number };

/** An answer to one of the execution's requests (a request that got none tells nothing). */
export type StreakEvent =
	| { kind: 'admitted' }
	/** `admittedHereAt`: when the registry last let through any execution's request in this process. */
	| { kind: 'refused'; status: number; retryAfterMs?: number; admittedHereAt: number };

/** The one transition: pure, time only from `now`. */
export function nextStreak(
	mode: RefusalStreakMode,
	event: StreakEvent,
	now: number,
	giveUpAfterMs: number,
): RefusalStreakMode {
	if (mode.kind === 'givenUp' || mode.kind === 'admitted') return mode;
	if (event.kind === 'admitted') return { kind: 'admitted' };
	const since = mode.kind === 'refusing' ? mode.since : now;
	if (event.admittedHereAt >= since) return { kind: 'admitted' };
	const { status, retryAfterMs } = event;
	// Given up on a refusal, never on the clock alone: a limit that lifted meanwhile is found by asking.
	return now - since >= giveUpAfterMs
		? { kind: 'givenUp', since, status, retryAfterMs }
		: { kind: 'refusing', since, status, retryAfterMs };
}

/**
 * A registry that refuses everything (a key blocked, a daily quota spent that tells nothing) fails the
 * execution's rows once it has refused its lookups from the first answer for its Max Rate-Limit Wait (at
 * least GIVE_UP_AFTER_MIN_MS), letting none through, nor any other execution's here meanwhile: each row
 * waiting its own turn and its own wait, at the slow pace refusals bring, took 12 minutes for 100 rows.
 * An execution the registry let through once only loses turns of a shared limit (queue-mode workers, a
 * window other clients spend): from then on, each lookup's own wait decides (retryDecision.ts).
 */
export class RefusalStreak {
	mode: RefusalStreakMode = { kind: 'waiting' };
	private readonly giveUpAfterMs: number;

	constructor(maxRateLimitWaitMs: number) {
		this.giveUpAfterMs = Math.max(maxRateLimitWaitMs, GIVE_UP_AFTER_MIN_MS);
	}

	/**
	 * Takes in an answer to one of the execution's requests (none, or a token's refusal, says nothing of
	 * the limit; an answer too large or not decodable passed it); `admittedHereAt`: the controller's last
	 * admission of any execution. True where it gave the execution up (the lookups waiting are to be told).
	 */
	answered(answer: RegistryAnswer, now: number, admittedHereAt: number): boolean {
		if (this.givenUp) return false;
		const event = eventOf(answer, now, admittedHereAt);
		if (event === undefined) return false;
		this.mode = nextStreak(this.mode, event, now, this.giveUpAfterMs);
		return this.givenUp;
	}

	get givenUp(): boolean {
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

function eventOf(
	answer: RegistryAnswer,
	now: number,
	admittedHereAt: number,
): StreakEvent | undefined {
	if (answer.kind === 'oversized' || answer.kind === 'undecodable') return { kind: 'admitted' };
	if (answer.kind !== 'response' || TOKEN_REFUSAL_STATUSES.has(answer.status)) return undefined;
	const { status, headers } = answer;
	return refusesForRateLimit(status, headers)
		? { kind: 'refused', status, retryAfterMs: retryAfterOf(headers, now), admittedHereAt }
		: { kind: 'admitted' };
}

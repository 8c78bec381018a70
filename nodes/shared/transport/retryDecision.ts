import type { CompanyRecord } from '../model/companyRecord';
import type { LookupFailure } from './registryError';
import { MAX_RATE_LIMITED_TRIES } from './retryPolicy';

export type LookupOutcome =
	| { kind: 'record'; record: CompanyRecord }
	| { kind: 'failed'; failure: LookupFailure }
	/** Not sent: the execution was cancelled, or stopped at another row's failure. */
	| { kind: 'cancelled' };

export const failed = (failure: LookupFailure): LookupOutcome => ({ kind: 'failed', failure });

/** The answer that refused a token: its status (401, 413, 431) and, where told, the token's size. */
export interface TokenRefusal {
	status: number;
	tokenBytes?: number;
}

/** How one try of a lookup ended (lookupSession.ts, `attempt`). */
export type TryResult =
	/** Nothing to try again: an answer, a failure no retry mends, or the execution stopped. */
	| { kind: 'final'; outcome: LookupOutcome }
	/** Its permit given back unsent (a credential failure or a token renewal began while it queued). */
	| { kind: 'unsent' }
	/** Everybody must wait for the rate limit past what this lookup's wait budget allows, until `until`. */
	| { kind: 'paused'; until: number }
	/** A 401 to a token another lookup has renewed meanwhile: send again with the new one. */
	| { kind: 'tokenResend'; refusal: TokenRefusal }
	/**
	 * A refusal for the rate limit (`status`: 429, or a 420 or 403 that says so); `delayMs` is the wait
	 * its Retry-After (or the backoff, drawn now) asks for.
	 */
	| { kind: 'rateLimited'; status: number; retryAfterMs: number | undefined; delayMs: number }
	/** No answer, or a 5xx: worth trying again within the limits. `probe`: the breaker's probe. */
	| { kind: 'transient'; failure: LookupFailure; retryAfterMs: number | undefined; probe: boolean };

/** What one lookup has spent so far. */
export interface Tries {
	/** The try under way (1: the first). */
	attempt: number;
	rateLimited: number;
	/** When this lookup first met a 429: only such a lookup spends its rate-limit wait budget. */
	rateLimitedSince: number | undefined;
	/** The status of its last refusal for the rate limit (a 420 or 403 is named as such, not as a 429). */
	refusedWith: number | undefined;
	tokenResends: number;
}

export const firstTry = (): Tries => ({
	attempt: 1,
	rateLimited: 0,
	rateLimitedSince: undefined,
	refusedWith: undefined,
	tokenResends: 0,
});

export interface RetryLimits {
	maxAttempts: number;
	maxRateLimitWaitMs: number;
}

/** 401s to tokens renewed meanwhile, resent before the token counts as refused. */
const MAX_TOKEN_RESENDS = 3;

export type RetryDecision =
	| { kind: 'finish'; outcome: LookupOutcome }
	/** The token is refused for good: every lookup of the execution fails with it. */
	| { kind: 'refuseToken'; refusal: TokenRefusal }
	/** Try again at once. */
	| { kind: 'again'; tries: Tries }
	/** Try again after `ms` (a 429). */
	| { kind: 'wait'; ms: number; tries: Tries }
	/**
	 * Try again after a backoff for `backoffAttempt` (at least `retryAfterMs`), if the execution's retry
	 * budget pays for it (a timeout costs more); otherwise `failure` is final.
	 */
	| {
			kind: 'backOff';
			failure: LookupFailure;
			timeout: boolean;
			retryAfterMs: number | undefined;
			backoffAttempt: number;
			tries: Tries;
	  };

/** Whether and when a lookup tries again after `result`: pure, time only from `now`. */
export function decideRetry(
	result: TryResult,
	tries: Tries,
	limits: RetryLimits,
	now: number,
): RetryDecision {
	switch (result.kind) {
		case 'final':
			return { kind: 'finish', outcome: result.outcome };
		case 'unsent':
			return { kind: 'again', tries };
		case 'paused': {
			const waitedMs = tries.rateLimitedSince === undefined ? 0 : now - tries.rateLimitedSince;
			return {
				kind: 'finish',
				outcome: failed({
					kind: 'rate-limited',
					waitedMs,
					retryAfterMs: result.until - now,
					status: tries.refusedWith,
				}),
			};
		}
		case 'tokenResend':
			return tries.tokenResends < MAX_TOKEN_RESENDS
				? { kind: 'again', tries: { ...tries, tokenResends: tries.tokenResends + 1 } }
				: { kind: 'refuseToken', refusal: result.refusal };
		case 'rateLimited': {
			const since = tries.rateLimitedSince ?? now;
			const next = {
				...tries,
				rateLimited: tries.rateLimited + 1,
				rateLimitedSince: since,
				refusedWith: result.status,
			};
			const waitedMs = now - since;
			// Real time counts: the wait, and the time spent queueing and asking.
			if (
				next.rateLimited >= MAX_RATE_LIMITED_TRIES ||
				waitedMs + result.delayMs > limits.maxRateLimitWaitMs
			)
				return {
					kind: 'finish',
					outcome: failed({
						kind: 'rate-limited',
						waitedMs,
						retryAfterMs: result.retryAfterMs,
						status: result.status,
					}),
				};
			return { kind: 'wait', ms: result.delayMs, tries: next };
		}
		case 'transient': {
			const { failure, retryAfterMs, probe } = result;
			// A failed probe is the breaker's, not its row's: with retries on, the row waits for the breaker's verdict.
			const heldByBreaker = probe && limits.maxAttempts > 1;
			if (
				(tries.attempt >= limits.maxAttempts && !heldByBreaker) ||
				// Asked (503 Retry-After) to wait past the budget.
				(retryAfterMs !== undefined && retryAfterMs > limits.maxRateLimitWaitMs)
			)
				return { kind: 'finish', outcome: failed(failure) };
			return {
				kind: 'backOff',
				failure,
				timeout: failure.kind === 'no-response' && failure.reason === 'timeout',
				retryAfterMs,
				backoffAttempt: tries.attempt,
				// A failed probe asked on behalf of every row held by the breaker does not spend its row's attempts.
				tries: { ...tries, attempt: tries.attempt + (probe ? 0 : 1) },
			};
		}
	}
}

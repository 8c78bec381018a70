import { readRateLimitHeaders } from './rateControl/headers';
import type { RequestReport } from './rateControl';
import type { RegistryAnswer } from './registryRequest';
import { parseRetryAfter } from './retryAfter';

/**
 * Whether an answer refuses its request for the registry's rate limit. A 429 says so by its status;
 * some registries and the gateways before them say it otherwise: 420 (Enhance Your Calm) is a rate
 * limit by name, and a 403 is one when its headers say the rate-limit budget is spent (Remaining 0, in
 * any dialect) or when to try again (Retry-After): waiting mends no missing plan or scope, so no such
 * refusal says either. A limit of 0 is a plan without the budget (none left of none), not one spent.
 * Each is waited out as a 429 is, and tells the controller what a 429 does.
 */
export function refusesForRateLimit(status: number, headers: Record<string, unknown>): boolean {
	if (status === 429 || status === 420) return true;
	if (status !== 403) return false;
	if (header(headers, 'retry-after') !== undefined) return true;
	const told = readRateLimitHeaders(headers, 0);
	return told.remaining === 0 && told.limit !== 0;
}

/** What an answer tells the rate controller. */
export function report(sentAt: number, answer: RegistryAnswer, now: number): RequestReport {
	if (answer.kind !== 'response') return { sentAt };
	const refused = refusesForRateLimit(answer.status, answer.headers);
	// The controller acts on the budget left, its refill and its limit (a sliding log's whole length).
	const { remaining, resetMs, resetToldAsTime, limit } = readRateLimitHeaders(
		answer.headers,
		sentAt,
		now,
	);
	return {
		sentAt,
		status: refused ? 429 : answer.status,
		// On a 429 too: 0 says the count is the limit that refused; plenty left says it is another quota's.
		remaining,
		retryAfterMs: refused ? retryAfterOf(answer.headers, now) : undefined,
		resetMs,
		resetToldAsTime,
		limit,
	};
}

/** An answer's Retry-After in ms from `now`, read by the registry's own clock (its Date). */
export function retryAfterOf(headers: Record<string, unknown>, now: number): number | undefined {
	return parseRetryAfter(header(headers, 'retry-after'), now, header(headers, 'date'));
}

/** A header's (first) value. */
export function header(headers: Record<string, unknown>, name: string): string | undefined {
	const value = headers[name];
	return Array.isArray(value) ? String(value[0]) : typeof value === 'string' ? value : undefined;
}

import { readRateLimitHeaders } from './rateControl/headers';
import type { RequestReport } from './rateControl';
import type { RegistryAnswer } from './registryRequest';
import { parseRetryAfter } from './retryAfter';

/** What an answer tells the rate controller. */
export function report(sentAt: number, answer: RegistryAnswer, now: number): RequestReport {
	if (answer.kind !== 'response') return { sentAt };
	// The controller acts on the budget left, its refill and its limit (a sliding log's whole length).
	const { remaining, resetMs, resetToldAsTime, limit } = readRateLimitHeaders(
		answer.headers,
		sentAt,
	);
	return {
		sentAt,
		status: answer.status,
		// On a 429 too: 0 says the count is the limit that refused; plenty left says it is another quota's.
		remaining,
		retryAfterMs:
			answer.status === 429
				? parseRetryAfter(header(answer.headers, 'retry-after'), now)
				: undefined,
		resetMs,
		resetToldAsTime,
		limit,
	};
}

/** A header's (first) value. */
export function header(headers: Record<string, unknown>, name: string): string | undefined {
	const value = headers[name];
	return Array.isArray(value) ? String(value[0]) : typeof value === 'string' ? value : undefined;
}

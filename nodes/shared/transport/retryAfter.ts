/**
 * Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP date, in milliseconds from `now`. A date in
 * the past is 0. Anything else (absent, negative, a number with a fraction, words) is unreadable:
 * undefined, so that the caller's own backoff applies, never "retry at once".
 */
export function parseRetryAfter(
	value: string | undefined,
	now: number = Date.now(),
): number | undefined {
	const header = value?.trim();
	if (!header) return undefined;
	if (/^\d+$/.test(header)) return Number(header) * 1000;
	// Only something that reads like a date: Date.parse would take '-5' for the year -5.
	if (!/[A-Za-z]{3}/.test(header)) return undefined;
	const date = Date.parse(header);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

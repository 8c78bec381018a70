/**
 * Within this, a registry's Date header cannot tell a clock off ours from its own whole seconds and the
 * answer's way here: a Retry-After date is read against our clock, to the millisecond. Beyond it the
 * registry's clock is off ours (never synchronised, its local time written as GMT), and its date means
 * "so long after my Date".
 */
export const CLOCKS_AGREE_WITHIN_MS = 5_000;

/**
 * Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP date, in milliseconds from `now`. A date is
 * read against the answer's Date (`registryDate`) where the registry's clock is off ours, as HTTP caches
 * read Expires against Date (RFC 9111 4.2.1). A date in the past is 0. Anything else (absent, negative,
 * a number with a fraction, words) is unreadable: undefined, so that the caller's own backoff applies,
 * never "retry at once".
 */
export function parseRetryAfter(
	value: string | undefined,
	now: number = Date.now(),
	registryDate?: string,
): number | undefined {
	const header = value?.trim();
	if (!header) return undefined;
	if (/^\d+$/.test(header)) return Number(header) * 1000;
	const date = httpDate(header);
	if (date === undefined) return undefined;
	const told = httpDate(registryDate);
	const registryNow =
		told !== undefined && Math.abs(told - now) > CLOCKS_AGREE_WITHIN_MS ? told : now;
	return Math.max(0, date - registryNow);
}

/** An HTTP date in ms; only something that reads like a date: Date.parse would take '-5' for the year -5. */
function httpDate(value: string | undefined): number | undefined {
	if (value === undefined || !/[A-Za-z]{3}/.test(value)) return undefined;
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : date;
}

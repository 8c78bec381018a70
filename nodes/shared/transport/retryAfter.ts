import { httpDate, registryClockAheadMs } from './rateControl/headers/registryClock';

/**
 * Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP date, in milliseconds from `now`. A date is
 * read against the answer's Date (`registryDate`) where the registry's clock is off ours
 * (registryClockAheadMs). A date in the past is 0. Anything else (absent, negative, a number with a
 * fraction, words) is unreadable: undefined, so that the caller's own backoff applies, never "retry at
 * once".
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
	return Math.max(0, date - registryClockAheadMs(registryDate, now) - now);
}

import {
	countField,
	LONGEST_RESET_MS,
	secondsToResetMs,
	type Headers,
	type RateLimitReading,
} from './reading';

/** Past this a reset is Unix time, not seconds from now (1e9 s is 2001; a day is 86,400 s). */
const UNIX_TIME_FROM_S = 1e9;

/**
 * The dialects that tell each figure in its own header, `{prefix}-Limit`, `-Remaining` and `-Reset`:
 * the reset in seconds or, as GitHub-like APIs send it, as Unix time in seconds. Counted, as the
 * controller counts resets, from when the request left (`sentAt`, by the registry's clock: a Unix time
 * is on its clock).
 */
export function readCountHeaders(
	headers: Headers,
	prefix: string,
	sentAt: number,
): RateLimitReading {
	const reset = countField(headers, `${prefix}-reset`);
	const asTime = reset !== undefined && reset > UNIX_TIME_FROM_S;
	const resetMs = asTime ? unixResetMs(reset, sentAt) : secondsToResetMs(reset);
	return {
		remaining: countField(headers, `${prefix}-remaining`),
		resetMs,
		resetToldAsTime: asTime && resetMs !== undefined ? true : undefined,
		limit: countField(headers, `${prefix}-limit`),
	};
}

function unixResetMs(unixSeconds: number, sentAt: number): number | undefined {
	const ms = unixSeconds * 1000 - sentAt;
	return ms >= 0 && ms <= LONGEST_RESET_MS ? ms : undefined;
}

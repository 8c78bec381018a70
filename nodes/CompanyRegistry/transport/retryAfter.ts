/**
 * How long to wait before the next try after a 429. Retry-After may be seconds or an HTTP date
 * (RFC 9110 10.2.3); without it, exponential backoff with jitter: about 1, 2, 4 ... s, at most 30 s.
 */
export function rateLimitDelayMs(
	retryAfter: string | undefined,
	attempt: number,
	now: number = Date.now(),
	random: () => number = Math.random,
): number {
	const header = retryAfter?.trim();
	if (header) {
		if (/^\d+$/.test(header)) return Number(header) * 1000;
		const date = Date.parse(header);
		if (!Number.isNaN(date)) return Math.max(0, date - now);
	}
	const ceiling = Math.min(30_000, 1000 * 2 ** attempt);
	// "Equal jitter": at least half the step, so many clients spread out without rushing back.
	return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

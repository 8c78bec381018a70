import { readIetfDraft } from './ietf-draft';
import { readIetfStructured } from './ietf-structured';
import type { Headers, RateLimitReading } from './reading';
import { readXRateLimit } from './x-ratelimit';

export type { RateLimitReading } from './reading';

/**
 * What an answer's rate-limit headers say, in whichever dialect the registry speaks. Each figure from
 * the first dialect that tells it readably: X-RateLimit-*, then the older IETF RateLimit-*, then the
 * IETF structured RateLimit-Policy / RateLimit. `sentAt` is when the request left: resets count from there.
 */
export function readRateLimitHeaders(headers: Headers, sentAt: number): RateLimitReading {
	const dialects = [
		readXRateLimit(headers, sentAt),
		readIetfDraft(headers, sentAt),
		readIetfStructured(headers),
	];
	const first = (figure: 'remaining' | 'limit' | 'windowMs') =>
		dialects.find((reading) => reading[figure] !== undefined)?.[figure];
	// How the reset was told belongs to the dialect that told it.
	const reset = dialects.find((reading) => reading.resetMs !== undefined);
	return {
		remaining: first('remaining'),
		resetMs: reset?.resetMs,
		resetToldAsTime: reset?.resetToldAsTime,
		limit: first('limit'),
		windowMs: first('windowMs'),
	};
}

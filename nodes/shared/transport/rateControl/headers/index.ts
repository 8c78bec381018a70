import { readIetfDraft } from './ietf-draft';
import { readIetfStructured } from './ietf-structured';
import { fieldText, type Headers, type RateLimitReading } from './reading';
import { registryClockAheadMs } from './registryClock';
import { readXRateLimit } from './x-ratelimit';

export type { RateLimitReading } from './reading';

/**
 * What an answer's rate-limit headers say, in whichever dialect the registry speaks. Each figure from
 * the first dialect that tells it readably: X-RateLimit-*, then the older IETF RateLimit-*, then the
 * IETF structured RateLimit-Policy / RateLimit. `sentAt` is when the request left: resets count from there;
 * `answeredAt` when its answer arrived, for the answer's Date.
 */
export function readRateLimitHeaders(
	headers: Headers,
	sentAt: number,
	answeredAt = sentAt,
): RateLimitReading {
	// A reset told as Unix time is a time on the registry's clock: read from when the request left by it.
	const sentByRegistryClock = sentAt + registryClockAheadMs(fieldText(headers, 'date'), answeredAt);
	const dialects = [
		readXRateLimit(headers, sentByRegistryClock),
		readIetfDraft(headers, sentByRegistryClock),
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

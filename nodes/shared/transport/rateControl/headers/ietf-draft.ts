import { readCountHeaders } from './countHeaders';
import type { Headers, RateLimitReading } from './reading';

/**
 * The IETF httpapi draft before 08: RateLimit-Limit / -Remaining / -Reset. Its Reset is seconds, but
 * registries that send Unix time there are read as in X-RateLimit-Reset.
 */
export const readIetfDraft = (headers: Headers, sentAt: number): RateLimitReading =>
	readCountHeaders(headers, 'ratelimit', sentAt);

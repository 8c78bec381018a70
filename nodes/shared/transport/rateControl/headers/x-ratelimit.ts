import { readCountHeaders } from './countHeaders';
import type { Headers, RateLimitReading } from './reading';

/** X-RateLimit-Limit / -Remaining / -Reset: the de-facto dialect most APIs speak. */
export const readXRateLimit = (headers: Headers, sentAt: number): RateLimitReading =>
	readCountHeaders(headers, 'x-ratelimit', sentAt);

import type { Chaos } from './chaos';
import type { FaultSettings } from './faults';

export type RetryAfterFormat = 'seconds' | 'http-date' | 'none';
/** X-RateLimit-* (and Retry-After) on every lookup, only on 429s, or not at all (429s bare). */
export type RateLimitHeaders = 'always' | '429-only' | 'none';
/** 'refuse': every lookup and token connection is destroyed unanswered; '503': every lookup answers 503. */
export type RegistryDown = 'refuse' | '503';

export interface RedirectSettings {
	route: 'lookup' | 'token';
	status: 301 | 302 | 307 | 308;
	/** Sent as Location as given; `{path}` in it is replaced by the request's target (path and query). */
	location: string;
}

/** Answers that echo what the client sent, as careless services do (issue 9: secrets in server text). */
export type EchoSettings =
	| { route: 'lookup'; status: 200 | 400 | 403 | 418 | 500 }
	| { route: 'token'; field: 'error_description' | 'error' }
	| { route: 'lookup'; status: 400; messageBytes: number };

/** What a test may switch while the sandbox runs; the endpoints read it on every request. */
export interface Behaviour {
	faults: FaultSettings;
	retryAfterFormat: RetryAfterFormat;
	rateLimitHeaders: RateLimitHeaders;
	/** Raw Retry-After for every 429 when set. */
	retryAfterOverride: string | undefined;
	echo: EchoSettings | undefined;
	redirect: RedirectSettings | undefined;
	down: RegistryDown | undefined;
	permanent401: boolean;
	/** Companies (by request path, without query) that get this fault on every request, whatever the dice say. */
	companyFaults: Map<string, CompanyFault>;
	/** The chaos registry: every request draws a misbehaviour (sandbox/chaos.ts). */
	chaos: Chaos | undefined;
}

/**
 * A fault one company gets on every request: HTTP 500, a timeout, or a record that breaks the contract
 * (issue 26); a 200 record with a 256 KB field, or gzip inflating to 8 MB (issue 21, as the chaos
 * registry sends them).
 */
export type CompanyFault = '500' | 'timeout' | 'status' | 'oversized' | 'gzip-bomb';

export interface SandboxCounters {
	/** Every request to POST /oauth/token, answered or refused. */
	tokenRequests: number;
	tokensIssued: number;
	/** Every request to the lookup route, by the status it got; dropped connections under 0. */
	lookupsByStatus: Record<number, number>;
	lookups: number;
}

/** Retry-After in the configured format; an HTTP date has whole seconds, so it is rounded up. */
export function retryAfterHeader(
	format: RetryAfterFormat,
	seconds: number,
): Record<string, string> {
	if (format === 'none') return {};
	if (format === 'http-date')
		return {
			'retry-after': new Date((Math.floor(Date.now() / 1000) + seconds + 1) * 1000).toUTCString(),
		};
	return { 'retry-after': String(seconds) };
}

/** The redirect answer for a route, if one is set. */
export function redirectHeaders(
	redirect: RedirectSettings,
	target: string,
): Record<string, string> {
	return { location: redirect.location.replaceAll('{path}', target) };
}

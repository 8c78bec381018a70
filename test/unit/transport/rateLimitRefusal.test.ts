import { header, refusesForRateLimit, report } from '../../../nodes/shared/transport/answerReport';

// Which answers are refusals for the registry's rate limit (test/integration/redteam/rateLimitOtherStatus.test.ts
// for the sheet): a 429; a 420; a 403 whose headers say the budget is spent or when to try again.

describe('refusesForRateLimit', () => {
	it.each([
		['a 429, whatever its headers', 429, {}, true],
		['a 420 Enhance Your Calm', 420, {}, true],
		['a 403 with X-RateLimit-Remaining: 0', 403, { 'x-ratelimit-remaining': '0' }, true],
		[
			'a 403 with RateLimit-Remaining: 0 (the older IETF draft)',
			403,
			{ 'ratelimit-remaining': '0' },
			true,
		],
		['a 403 with Retry-After', 403, { 'retry-after': '2' }, true],
		['a 403 with Retry-After repeated', 403, { 'retry-after': ['2', '2'] }, true],
		['a plain 403 (a plan or scope without company data)', 403, {}, false],
		['a 403 with budget left (another refusal)', 403, { 'x-ratelimit-remaining': '7' }, false],
		[
			'a 503 with Retry-After (unavailable: retried as transient)',
			503,
			{ 'retry-after': '2' },
			false,
		],
		['a 503 with X-RateLimit-Remaining: 0', 503, { 'x-ratelimit-remaining': '0' }, false],
		['a 401 with Retry-After', 401, { 'retry-after': '2' }, false],
		['a 200 with X-RateLimit-Remaining: 0', 200, { 'x-ratelimit-remaining': '0' }, false],
	])('%s', (_name, status, headers, refuses) => {
		expect(refusesForRateLimit(status, headers)).toBe(refuses);
	});
});

describe('report, of a refusal for the rate limit under another status', () => {
	it('tells the controller a 429, with the wait it asked for', () => {
		const answer = {
			kind: 'response' as const,
			status: 403,
			headers: { 'retry-after': '3' },
			body: {},
		};
		expect(report(1_000, answer, 2_000)).toMatchObject({
			sentAt: 1_000,
			status: 429,
			retryAfterMs: 3_000,
		});
	});

	it("tells the wait a date asks for by the registry's own clock, its Date (registryClockOff.test.ts)", () => {
		const now = Date.parse('2026-11-21T12:00:00Z');
		const answer = {
			kind: 'response' as const,
			status: 429,
			headers: {
				'retry-after': 'Sat, 21 Nov 2026 14:00:02 GMT',
				date: 'Sat, 21 Nov 2026 14:00:00 GMT',
			},
			body: {},
		};
		expect(report(now - 100, answer, now)).toMatchObject({ status: 429, retryAfterMs: 2_000 });
	});

	it('a 403 that is no such refusal stays a 403, and its Retry-After is not asked for', () => {
		const answer = {
			kind: 'response' as const,
			status: 403,
			headers: { 'x-ratelimit-remaining': '4' },
			body: {},
		};
		expect(report(1_000, answer, 2_000)).toMatchObject({
			status: 403,
			remaining: 4,
			retryAfterMs: undefined,
		});
	});
});

describe('the edges of reading an answer', () => {
	it("a 403 whose X-RateLimit-Limit is 0 (a plan without the budget) is the plan's refusal, not the rate limit's", () => {
		expect(
			refusesForRateLimit(403, { 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0' }),
		).toBe(false);
		expect(
			refusesForRateLimit(403, { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0' }),
		).toBe(true);
	});

	it('no answer (a dropped connection, a timeout) tells the controller only when it was sent', () => {
		expect(
			report(1_000, { kind: 'no-response', reason: 'network', code: 'ECONNRESET' }, 2_000),
		).toEqual({ sentAt: 1_000 });
	});

	it.each([
		['text', { 'retry-after': '3' }, '3'],
		['a list (a header sent twice): the first', { 'retry-after': ['3', '9'] }, '3'],
		['a number (not as n8n hands headers over): none', { 'retry-after': 3 }, undefined],
		['absent', {}, undefined],
	])("a header's value as %s", (_name, headers, value) => {
		expect(header(headers, 'retry-after')).toBe(value);
	});
});

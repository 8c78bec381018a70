import { readRateLimitHeaders } from '../../../../nodes/shared/transport/rateControl/headers';

const defined = (reading: object) =>
	Object.fromEntries(Object.entries(reading).filter(([, value]) => value !== undefined));

describe('one reading whatever the dialect', () => {
	it.each([
		[
			'X-RateLimit-*',
			{ 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '1' },
			{ limit: 10, remaining: 3, resetMs: 1_000 },
		],
		[
			'the older RateLimit-*',
			{ 'ratelimit-limit': '10', 'ratelimit-remaining': '3', 'ratelimit-reset': '1' },
			{ limit: 10, remaining: 3, resetMs: 1_000 },
		],
		[
			'the structured fields',
			{ 'ratelimit-policy': '"default";q=10;w=1', ratelimit: '"default";r=3;t=1' },
			{ limit: 10, windowMs: 1_000, remaining: 3, resetMs: 1_000 },
		],
		[
			'X-RateLimit-* first, the rest where it is silent',
			{
				'x-ratelimit-remaining': '3',
				'ratelimit-remaining': '8',
				'ratelimit-policy': '"default";q=10;w=1',
				ratelimit: '"default";r=8;t=2',
			},
			{ remaining: 3, resetMs: 2_000, limit: 10, windowMs: 1_000 },
		],
		[
			'an unreadable figure is taken from the next dialect',
			{ 'x-ratelimit-remaining': '-5', ratelimit: '"default";r=4' },
			{ remaining: 4 },
		],
		['no rate-limit headers', { 'content-type': 'application/json', 'retry-after': '5' }, {}],
	])('%s', (_case, headers, expected) => {
		expect(defined(readRateLimitHeaders(headers, 0))).toEqual(expected);
	});
});

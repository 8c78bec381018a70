import { readRateLimitHeaders } from '../../../../nodes/shared/transport/rateControl/headers';

/** When the request left, in Unix seconds: a reset told as a time is read against it. */
const SENT_AT_S = 1_700_000_000;

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
		[
			'a reset told as a time is said so, by the dialect that told the reset',
			{ 'x-ratelimit-remaining': '3', 'ratelimit-reset': String(SENT_AT_S + 2) },
			{ remaining: 3, resetMs: 2_000, resetToldAsTime: true },
		],
		[
			'a reset told in seconds by the first dialect: a later one telling a time does not say so',
			{ 'x-ratelimit-reset': '1', 'ratelimit-reset': String(SENT_AT_S + 2) },
			{ resetMs: 1_000 },
		],
		['no rate-limit headers', { 'content-type': 'application/json', 'retry-after': '5' }, {}],
	])('%s', (_case, headers, expected) => {
		expect(defined(readRateLimitHeaders(headers, SENT_AT_S * 1000))).toEqual(expected);
	});
});

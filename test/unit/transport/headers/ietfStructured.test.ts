import { readIetfStructured } from '../../../../nodes/shared/transport/rateControl/headers/ietf-structured';
import { parseList } from '../../../../nodes/shared/transport/rateControl/headers/structuredList';

const defined = (reading: object) =>
	Object.fromEntries(Object.entries(reading).filter(([, value]) => value !== undefined));

describe('IETF RateLimit-Policy / RateLimit (structured fields, httpapi draft 08+)', () => {
	it.each([
		[
			'the draft example',
			{ 'ratelimit-policy': '"default";q=100;w=60', ratelimit: '"default";r=50;t=30' },
			{ limit: 100, windowMs: 60_000, remaining: 50, resetMs: 30_000 },
		],
		['RateLimit alone', { ratelimit: '"default";r=0;t=1' }, { remaining: 0, resetMs: 1_000 }],
		['no reset', { ratelimit: '"default";r=7' }, { remaining: 7 }],
		[
			'a policy alone',
			{ 'ratelimit-policy': '"day";q=1000;w=86400' },
			{ limit: 1_000, windowMs: 86_400_000 },
		],
		[
			'policy names as tokens',
			{ 'ratelimit-policy': 'default;q=10;w=1', ratelimit: 'default;r=3;t=1' },
			{ limit: 10, windowMs: 1_000, remaining: 3, resetMs: 1_000 },
		],
		[
			'parameters in another order, other parameters',
			{
				'ratelimit-policy': '"default";w=10;qu="requests";q=20',
				ratelimit: '"default";pk=:cHJvamVjdA==:;t=4;r=9',
			},
			{ limit: 20, windowMs: 10_000, remaining: 9, resetMs: 4_000 },
		],
		[
			'two policies: the one with least left binds',
			{
				'ratelimit-policy': '"hour";q=5000;w=3600, "second";q=20;w=1',
				ratelimit: '"hour";r=4000;t=3000, "second";r=2;t=1',
			},
			{ limit: 20, windowMs: 1_000, remaining: 2, resetMs: 1_000 },
		],
		[
			'two policies with as little left: the later refill binds',
			{ ratelimit: '"a";r=0;t=1, "b";r=0;t=60' },
			{ remaining: 0, resetMs: 60_000 },
		],
		[
			'two policies and no RateLimit: the lowest rate',
			{ 'ratelimit-policy': '"burst";q=100;w=1, "steady";q=600;w=60' },
			{ limit: 600, windowMs: 60_000 },
		],
		[
			'repeated lines that agree',
			{
				'ratelimit-policy': ['"default";q=10;w=1', '"default";q=10;w=1'],
				ratelimit: ['"default";r=4;t=1', '"default";r=4;t=1'],
			},
			{ limit: 10, windowMs: 1_000, remaining: 4, resetMs: 1_000 },
		],
		['repeated lines that disagree', { ratelimit: ['"default";r=4;t=1', '"default";r=9;t=1'] }, {}],
		[
			'negatives',
			{ 'ratelimit-policy': '"default";q=-10;w=-1', ratelimit: '"default";r=-5;t=-30' },
			{},
		],
		[
			'decimals, strings, booleans as figures',
			{ 'ratelimit-policy': '"default";q=1.5;w="60"', ratelimit: '"default";r=?1;t=NaN' },
			{},
		],
		['a reset further than a day', { ratelimit: '"default";r=1;t=90000' }, { remaining: 1 }],
		['a window of 0', { 'ratelimit-policy': '"default";q=10;w=0' }, { limit: 10 }],
		['no policy name', { ratelimit: '5;r=1;t=1' }, {}],
		[
			'the older draft dictionary (limit=, remaining=)',
			{ ratelimit: 'limit=100, remaining=50, reset=5' },
			{},
		],
		['syntax errors void the field', { ratelimit: '"default";r=5;t=1,' }, {}],
		['an unterminated string', { ratelimit: '"default;r=5' }, {}],
		['not text', { ratelimit: 42 }, {}],
	])('%s', (_case, headers, expected) => {
		expect(defined(readIetfStructured(headers))).toEqual(expected);
	});
});

describe('the structured-field list parser (RFC 8941, the part rate limits use)', () => {
	it.each([
		['"a";q=1', [{ value: 'a', params: { q: 1 } }]],
		[
			' "a" ,  b;x;y=?0 ',
			[
				{ value: 'a', params: {} },
				{ value: 'b', params: { x: true, y: false } },
			],
		],
		['"esc\\"aped";k=-1.5', [{ value: 'esc"aped', params: { k: -1.5 } }]],
		['a;k=1;k=2', [{ value: 'a', params: { k: 2 } }]],
		['', []],
	])('%j', (text, expected) => {
		expect(
			parseList(text)?.map(({ value, params }) => ({ value, params: Object.fromEntries(params) })),
		).toEqual(expected);
	});

	it.each([
		',',
		'a,',
		'a;',
		'a;K=1',
		'a;k=',
		'(a b)',
		'"a',
		'"\\n"',
		'a;k=1234567890123456',
		'a;k=1.2345',
		'?2',
		'"a" "b"',
		':abc',
		'é',
	])('%j is no list', (text) => {
		expect(parseList(text)).toBeUndefined();
	});

	it('more items than any registry has policies is no list', () => {
		expect(
			parseList(Array.from({ length: 17 }, (_, index) => `"p${index}";r=1`).join(', ')),
		).toBeUndefined();
	});

	it('reads a long hostile field in linear time, as one pass (no backtracking)', () => {
		expect(parseList(`"a";${'k=1;'.repeat(50_000)}k=1`)?.length).toBe(1);
		expect(parseList(`"${'\\"'.repeat(50_000)}`)).toBeUndefined();
	});
});

import { readIetfDraft } from '../../../../nodes/shared/transport/rateControl/headers/ietf-draft';
import { readXRateLimit } from '../../../../nodes/shared/transport/rateControl/headers/x-ratelimit';

const SENT_AT = 1_700_000_000_000;
const unix = (secondsAfterSent: number) => String(SENT_AT / 1000 + secondsAfterSent);

describe.each([
	['X-RateLimit-*', 'x-ratelimit', readXRateLimit],
	['the older IETF RateLimit-*', 'ratelimit', readIetfDraft],
] as const)('%s', (_dialect, prefix, read) => {
	const headers = (fields: Record<string, unknown>) =>
		Object.fromEntries(Object.entries(fields).map(([name, value]) => [`${prefix}-${name}`, value]));

	it.each([
		[
			'all three',
			{ limit: '100', remaining: '42', reset: '30' },
			{ limit: 100, remaining: 42, resetMs: 30_000 },
		],
		['spaces around', { remaining: ' 7 ', reset: '\t2 ' }, { remaining: 7, resetMs: 2_000 }],
		['a reset with a fraction', { reset: '0.25' }, { resetMs: 250 }],
		['a reset as Unix time', { reset: unix(45) }, { resetMs: 45_000, resetToldAsTime: true }],
		[
			'repeated lines that agree',
			{ remaining: ['5', '5'], reset: ['3', '3'] },
			{ remaining: 5, resetMs: 3_000 },
		],
		['one line joined from repeats that agree', { remaining: '5, 5' }, { remaining: 5 }],
		['repeated lines that disagree', { remaining: ['5', '9'], reset: '3, 4' }, {}],
		['negatives', { remaining: '-5', reset: '-30', limit: '-1' }, {}],
		['NaN and words', { remaining: 'NaN', reset: 'soon', limit: 'Infinity' }, {}],
		['exponents, hex, signs', { remaining: '1e3', reset: '0x10', limit: '+5' }, {}],
		['empty values', { remaining: '', reset: '  ', limit: [] }, {}],
		['a reset in the past (Unix time)', { reset: unix(-30) }, {}],
		['a reset further than a day', { reset: '86401' }, {}],
		['a reset as Unix time further than a day', { reset: unix(2 * 86_400) }, {}],
		['a number too long to be a count', { remaining: '1234567890123456' }, {}],
		['not text', { remaining: 5, reset: { seconds: 3 } }, {}],
	])('%s', (_case, fields, expected) => {
		const reading = read(headers(fields), SENT_AT);
		expect(
			Object.fromEntries(Object.entries(reading).filter(([, value]) => value !== undefined)),
		).toEqual(expected);
	});

	it('a value longer than any rate limit is not read', () => {
		expect(
			read(headers({ remaining: `${'5, '.repeat(1_000)}5` }), SENT_AT).remaining,
		).toBeUndefined();
	});
});

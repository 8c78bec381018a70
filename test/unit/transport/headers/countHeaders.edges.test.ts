import { readRateLimitHeaders } from '../../../../nodes/shared/transport/rateControl/headers';
import { readIetfDraft } from '../../../../nodes/shared/transport/rateControl/headers/ietf-draft';
import {
	LONGEST_FIELD_CHARS,
	LONGEST_RESET_MS,
} from '../../../../nodes/shared/transport/rateControl/headers/reading';
import { readXRateLimit } from '../../../../nodes/shared/transport/rateControl/headers/x-ratelimit';

// The edges of the plain count dialects (X-RateLimit-*, the older RateLimit-*): where a figure stops
// being read, told from the exported bounds rather than copied figures.

const SENT_AT = 1_700_000_000_000;
const LONGEST_RESET_S = LONGEST_RESET_MS / 1000;

describe.each([
	['X-RateLimit-*', 'x-ratelimit', readXRateLimit],
	['the older IETF RateLimit-*', 'ratelimit', readIetfDraft],
] as const)('%s at its edges', (_dialect, prefix, read) => {
	const reading = (fields: Record<string, unknown>, sentAt = SENT_AT) =>
		read(
			Object.fromEntries(
				Object.entries(fields).map(([name, value]) => [`${prefix}-${name}`, value]),
			),
			sentAt,
		);

	it('a reset of 0 s is a reset now; a day is the longest read, a second more is none', () => {
		expect(reading({ reset: '0' }).resetMs).toBe(0);
		expect(reading({ reset: String(LONGEST_RESET_S) }).resetMs).toBe(LONGEST_RESET_MS);
		expect(reading({ reset: String(LONGEST_RESET_S + 1) }).resetMs).toBeUndefined();
	});

	it('a reset as Unix time: the moment the request left is 0, a day after it the longest read', () => {
		const unix = (secondsAfterSent: number) => String(SENT_AT / 1000 + secondsAfterSent);
		expect(reading({ reset: unix(0) }).resetMs).toBe(0);
		expect(reading({ reset: unix(LONGEST_RESET_S) }).resetMs).toBe(LONGEST_RESET_MS);
		expect(reading({ reset: unix(LONGEST_RESET_S + 1) }).resetMs).toBeUndefined();
		expect(reading({ reset: unix(-1) }).resetMs).toBeUndefined();
	});

	it('counts of 0 and of every digit are counts', () => {
		expect(reading({ remaining: '0', limit: '9' })).toMatchObject({ remaining: 0, limit: 9 });
		expect(reading({ remaining: '1234567890' }).remaining).toBe(1_234_567_890);
		// RFC 8941's longest integer, 15 digits, is still a count (16 are not: countHeaders.test.ts).
		expect(reading({ remaining: '123456789012345' }).remaining).toBe(123_456_789_012_345);
	});

	it('a number with a dot and no digits on one side is no number', () => {
		expect(reading({ remaining: '5.', reset: '.5', limit: '.' })).toEqual({
			remaining: undefined,
			resetMs: undefined,
			limit: undefined,
		});
	});

	it('characters around the digits make it no count', () => {
		for (const text of ['/5', '5:', '5a', 'a5', '5 5', '1.2.3'])
			expect(reading({ remaining: text }).remaining).toBeUndefined();
	});

	it('repeated lines: three that agree are read, a third that differs voids it', () => {
		expect(reading({ remaining: ['4', '4', '4'] }).remaining).toBe(4);
		expect(reading({ remaining: ['4', '4', '7'] }).remaining).toBeUndefined();
		expect(reading({ remaining: ['4', ''] }).remaining).toBeUndefined();
		expect(reading({ remaining: ['', '4'] }).remaining).toBeUndefined();
		expect(reading({ remaining: 'x, 4' }).remaining).toBeUndefined();
	});

	it('repeated numbers are joined as HTTP joins them, so the field length counts the joins', () => {
		// Just within the longest field read, and one character over (the values alone are within).
		const values = (count: number) => Array.from({ length: count }, () => '5');
		const within = Math.floor((LONGEST_FIELD_CHARS + 2) / 3);
		expect(values(within).join(', ').length).toBeLessThanOrEqual(LONGEST_FIELD_CHARS);
		expect(reading({ remaining: values(within) }).remaining).toBe(5);
		expect(values(within + 1).join(', ').length).toBeGreaterThan(LONGEST_FIELD_CHARS);
		expect(values(within + 1).join('').length).toBeLessThanOrEqual(LONGEST_FIELD_CHARS);
		expect(reading({ remaining: values(within + 1) }).remaining).toBeUndefined();
	});

	it('a field exactly as long as the longest read is read', () => {
		const text = `${' '.repeat(LONGEST_FIELD_CHARS - 1)}5`;
		expect(reading({ remaining: text }).remaining).toBe(5);
		expect(reading({ remaining: ` ${text}` }).remaining).toBeUndefined();
	});
});

describe('one reading: each figure from the first dialect that tells it', () => {
	it('takes the window from the structured fields while X-RateLimit-* tells the rest', () => {
		expect(
			readRateLimitHeaders(
				{
					'x-ratelimit-limit': '7',
					'x-ratelimit-remaining': '6',
					'x-ratelimit-reset': '2',
					'ratelimit-policy': '"default";q=10;w=5',
					ratelimit: '"default";r=1;t=9',
				},
				SENT_AT,
			),
		).toEqual({ limit: 7, remaining: 6, resetMs: 2_000, windowMs: 5_000 });
	});

	it('reads a Unix-time reset against when the request left', () => {
		expect(
			readRateLimitHeaders({ 'ratelimit-reset': String(SENT_AT / 1000 + 3) }, SENT_AT).resetMs,
		).toBe(3_000);
	});
});

import { report } from '../../../../nodes/shared/transport/answerReport';
import { readRateLimitHeaders } from '../../../../nodes/shared/transport/rateControl/headers';
import { LONGEST_RESET_MS } from '../../../../nodes/shared/transport/rateControl/headers/reading';

// Red team (test/integration/redteam/registryClockOff.test.ts): a registry whose clock is hours off ours
// tells its reset as Unix time with its Date from the same clock. The reset is a time on its clock:
// read against its Date where that is more than 5 s off ours, as a Retry-After date is.

const HOUR_MS = 3_600_000;
/** When the request left and its answer came, by our clock (a whole second, as Dates are). */
const SENT_AT = Date.parse('2026-11-21T12:00:00Z');
const httpDate = (ms: number) => new Date(ms).toUTCString();
const unix = (ms: number) => String(ms / 1000);

describe.each([
	['X-RateLimit-Reset', 'x-ratelimit-reset'],
	['the older RateLimit-Reset', 'ratelimit-reset'],
])('%s as Unix time from a registry whose clock is off ours', (_dialect, field) => {
	/** Its reset `inMs` after its Date, its Date `aheadMs` ahead of our clock at SENT_AT. */
	const reading = (aheadMs: number, inMs: number, answeredAt = SENT_AT) =>
		readRateLimitHeaders(
			{ [field]: unix(SENT_AT + aheadMs + inMs), date: httpDate(SENT_AT + aheadMs) },
			SENT_AT,
			answeredAt,
		);

	it.each([
		['two hours ahead', 2 * HOUR_MS],
		['two hours behind', -2 * HOUR_MS],
		['a day and more ahead', LONGEST_RESET_MS + HOUR_MS],
		['6 s behind', -6_000],
	])('%s: the reset is so long after its Date', (_name, aheadMs) => {
		expect(reading(aheadMs, 3_000)).toEqual({ resetMs: 3_000, resetToldAsTime: true });
	});

	it('read at its Date: a day after it is the longest reset read, past it or before it none', () => {
		expect(reading(2 * HOUR_MS, 0).resetMs).toBe(0);
		expect(reading(2 * HOUR_MS, LONGEST_RESET_MS).resetMs).toBe(LONGEST_RESET_MS);
		expect(reading(2 * HOUR_MS, LONGEST_RESET_MS + 1_000).resetMs).toBeUndefined();
		expect(reading(-2 * HOUR_MS, -1_000).resetMs).toBeUndefined();
	});

	it('counts from when the request left: its Date came with the answer, the way back added', () => {
		// Answered 400 ms after it left: its Date was stamped at most then, so the reset is at most that
		// much later from the request (never early).
		expect(reading(2 * HOUR_MS, 3_000, SENT_AT + 400).resetMs).toBe(3_400);
	});

	it.each([
		['5 s ahead', 5_000],
		['5 s behind', -5_000],
		['4 s ahead', 4_000],
		['ours', 0],
	])(
		'a Date %s of ours (within 5 s): read against our clock, to the millisecond',
		(_n, aheadMs) => {
			// The reset 10 s after the request left by our clock, whatever its Date says.
			const headers = { [field]: unix(SENT_AT + 10_000), date: httpDate(SENT_AT + aheadMs) };
			expect(readRateLimitHeaders(headers, SENT_AT, SENT_AT).resetMs).toBe(10_000);
		},
	);

	it('the edge of agreeing is judged when the answer came, not when the request left', () => {
		// Its Date 6 s after the request left, 5 s after the answer came: agreeing.
		const date = SENT_AT + 6_000;
		const headers = { [field]: unix(date + 2_000), date: httpDate(date) };
		expect(readRateLimitHeaders(headers, SENT_AT, SENT_AT + 1_000).resetMs).toBe(8_000);
		// 1 ms further off: read against its Date, 2 s after it and the 999 ms the answer took.
		expect(readRateLimitHeaders(headers, SENT_AT, SENT_AT + 999).resetMs).toBe(2_999);
	});

	it.each([
		['no Date', undefined],
		['an empty Date', ''],
		['a Date of words', 'soon'],
		['a Date of digits', '7200'],
		['a Date told twice, differently', [httpDate(SENT_AT + HOUR_MS), httpDate(SENT_AT)]],
		['a Date not text', SENT_AT + 2 * HOUR_MS],
	])('%s: read against our clock, as before', (_name, date) => {
		const headers = { [field]: unix(SENT_AT + 10_000), date };
		expect(readRateLimitHeaders(headers, SENT_AT, SENT_AT).resetMs).toBe(10_000);
	});

	it('a reset of exactly 1e9 is seconds (31 years: none), even from a clock that reads 1e9 s', () => {
		// Only past 1e9 is a reset Unix time: read as a time by this clock, it would be now.
		const headers = { [field]: '1000000000', date: httpDate(1e12) };
		expect(readRateLimitHeaders(headers, SENT_AT, SENT_AT).resetMs).toBeUndefined();
		expect(
			readRateLimitHeaders({ ...headers, [field]: '1000000001' }, SENT_AT, SENT_AT).resetMs,
		).toBe(1_000);
	});

	it('a reset in seconds from now is left as it is, whatever the Date', () => {
		const headers = { [field]: '30', date: httpDate(SENT_AT + 2 * HOUR_MS) };
		expect(readRateLimitHeaders(headers, SENT_AT, SENT_AT)).toEqual({ resetMs: 30_000 });
	});
});

describe('the structured RateLimit fields, from a registry whose clock is off ours', () => {
	it('tell their refill in seconds from now: left as they are, whatever the Date', () => {
		const headers = {
			ratelimit: '"default";r=0;t=30',
			'ratelimit-policy': '"default";q=10;w=60',
			date: httpDate(SENT_AT - 2 * HOUR_MS),
		};
		expect(readRateLimitHeaders(headers, SENT_AT, SENT_AT)).toEqual({
			remaining: 0,
			resetMs: 30_000,
			limit: 10,
			windowMs: 60_000,
		});
	});
});

describe('report, of an answer from a registry whose clock is two hours ahead', () => {
	it('tells the controller the Unix reset by its Date, from when the request left', () => {
		const now = SENT_AT + 250;
		const registryNow = SENT_AT + 2 * HOUR_MS;
		const answer = {
			kind: 'response' as const,
			status: 429,
			headers: {
				'x-ratelimit-limit': '5',
				'x-ratelimit-remaining': '0',
				'x-ratelimit-reset': unix(registryNow + 2_000),
				'retry-after': httpDate(registryNow + 1_000),
				date: httpDate(registryNow),
			},
			body: {},
		};
		expect(report(SENT_AT, answer, now)).toMatchObject({
			status: 429,
			resetMs: 2_250,
			resetToldAsTime: true,
			retryAfterMs: 1_000,
		});
	});
});

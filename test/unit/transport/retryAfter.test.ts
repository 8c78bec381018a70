import { parseRetryAfter } from '../../../nodes/shared/transport/retryAfter';
import { rateLimitDelayMs } from '../../../nodes/shared/transport/retryPolicy';

// RFC 9110 10.2.3: Retry-After is delay-seconds or an HTTP date. The public service notes: 429 carries it.
describe('Retry-After', () => {
	const now = Date.parse('2026-11-21T12:00:00Z');

	it('reads delay-seconds and HTTP dates; a past date is 0', () => {
		expect(parseRetryAfter('3', now)).toBe(3000);
		expect(parseRetryAfter(' 0 ', now)).toBe(0);
		expect(parseRetryAfter('3000000', now)).toBe(3_000_000_000);
		expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:07 GMT', now)).toBe(7000);
		expect(parseRetryAfter('Sat, 21 Nov 2026 11:59:00 GMT', now)).toBe(0);
	});

	it.each([undefined, '', '-5', '1.5', 'soon', '+3', '2026-11-21T12:00:07Z'])(
		'treats %p as unreadable, so the caller backs off',
		(value) => {
			expect(parseRetryAfter(value, now)).toBeUndefined();
		},
	);
});

// Red team (registryClockOff.test.ts): a registry whose clock is off ours says "so long after my Date".
describe('Retry-After as a date from a registry whose clock is off ours', () => {
	const now = Date.parse('2026-11-21T12:00:00Z');
	const asked = 'Sat, 21 Nov 2026 12:00:07 GMT';

	it('is read against its Date where that is more than 5 s off ours, ahead or behind', () => {
		expect(parseRetryAfter(asked, now, 'Sat, 21 Nov 2026 12:00:06 GMT')).toBe(1000);
		expect(parseRetryAfter(asked, now, 'Sat, 21 Nov 2026 11:59:54 GMT')).toBe(13000);
		expect(
			parseRetryAfter('Sat, 21 Nov 2026 14:00:01 GMT', now, 'Sat, 21 Nov 2026 14:00:00 GMT'),
		).toBe(1000);
		expect(
			parseRetryAfter('Sat, 21 Nov 2026 09:59:59 GMT', now, 'Sat, 21 Nov 2026 10:00:00 GMT'),
		).toBe(0);
	});

	it.each([
		'Sat, 21 Nov 2026 12:00:05 GMT',
		'Sat, 21 Nov 2026 11:59:55 GMT',
		'Sat, 21 Nov 2026 12:00:00 GMT',
		undefined,
		'',
		'soon',
		'5',
	])('is read against our clock where its Date is %p (within 5 s, or unreadable)', (date) => {
		expect(parseRetryAfter(asked, now, date)).toBe(7000);
	});

	it('leaves delay-seconds as they are, whatever the Date', () => {
		expect(parseRetryAfter('3', now, 'Sat, 21 Nov 2026 14:00:00 GMT')).toBe(3000);
	});
});

describe('delay after a 429', () => {
	it('honours Retry-After above a floor that doubles from 100 ms to 1 s: "0" is never "at once"', () => {
		expect(rateLimitDelayMs(0, 1)).toBe(100);
		expect(rateLimitDelayMs(0, 2)).toBe(200);
		expect(rateLimitDelayMs(0, 5)).toBe(1000);
		expect(rateLimitDelayMs(0, 30)).toBe(1000);
		expect(rateLimitDelayMs(3000, 1)).toBe(3000);
	});

	it('without a readable Retry-After, backs off exponentially with equal jitter, capped at 30 s', () => {
		expect(rateLimitDelayMs(undefined, 1, () => 0)).toBe(500);
		expect(rateLimitDelayMs(undefined, 1, () => 0.999999)).toBe(1000);
		expect(rateLimitDelayMs(undefined, 4, () => 0)).toBe(4000);
		expect(rateLimitDelayMs(undefined, 20, () => 0.999999)).toBe(30000);
	});
});

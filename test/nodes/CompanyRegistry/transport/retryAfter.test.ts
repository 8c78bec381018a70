import { rateLimitDelayMs } from '../../../../nodes/CompanyRegistry/transport/retryAfter';

// Section 7 (429 is retryable after a wait) and the public notes (429 carries Retry-After).
describe('rate-limit delay', () => {
	const now = Date.parse('2026-11-21T12:00:00Z');

	it('honours Retry-After in seconds', () => {
		expect(rateLimitDelayMs('3', 0, now)).toBe(3000);
		expect(rateLimitDelayMs(' 0 ', 5, now)).toBe(0);
	});

	it('honours Retry-After as an HTTP date, and never waits a negative time', () => {
		expect(rateLimitDelayMs('Sat, 21 Nov 2026 12:00:07 GMT', 0, now)).toBe(7000);
		expect(rateLimitDelayMs('Sat, 21 Nov 2026 11:59:00 GMT', 0, now)).toBe(0);
	});

	it('without the header, backs off exponentially with jitter, capped at 30 s', () => {
		const low = () => 0;
		const high = () => 0.999999;
		expect(rateLimitDelayMs(undefined, 0, now, low)).toBe(500);
		expect(rateLimitDelayMs(undefined, 0, now, high)).toBe(1000);
		expect(rateLimitDelayMs(undefined, 3, now, low)).toBe(4000);
		expect(rateLimitDelayMs(undefined, 3, now, high)).toBe(8000);
		expect(rateLimitDelayMs(undefined, 20, now, high)).toBe(30000);
		expect(rateLimitDelayMs('soon', 1, now, low)).toBe(1000);
	});
});

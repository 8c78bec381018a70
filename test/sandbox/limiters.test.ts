import { RateLimiter, type RateDecision, type RateLimitSettings } from '../../sandbox/limiters';

// The limiter families of issue 10 on a clock the test moves, so window edges are exact.
describe('sandbox limiter families', () => {
	let now: number;
	const limiterWith = (settings: Partial<RateLimitSettings>) =>
		new RateLimiter({ ratePerSecond: 100, burst: 1000, ...settings }, () => now);
	const takeMany = (limiter: RateLimiter, count: number): RateDecision[] =>
		Array.from({ length: count }, () => limiter.take('client'));
	const admitted = (decisions: RateDecision[]) =>
		decisions.filter((decision) => decision.allowed).length;
	beforeEach(() => {
		// 10:00:00.000 UTC, a whole multiple of every window below.
		now = Date.parse('2026-11-22T10:00:00.000Z');
	});

	it('token bucket: admits the burst, then refills at the rate; Reset says when one token is back', () => {
		const limiter = limiterWith({ ratePerSecond: 2, burst: 3 });
		const decisions = takeMany(limiter, 4);
		expect(admitted(decisions)).toBe(3);
		expect(decisions[2]).toMatchObject({ allowed: true, remaining: 0, limit: 3, resetSeconds: 1 });
		expect(decisions[3]).toMatchObject({
			allowed: false,
			reason: 'rate',
			retryAfterSeconds: 1,
			limit: 3,
		});
		now += 500;
		expect(limiter.take('client').allowed).toBe(true);
		expect(limiter.take('client').allowed).toBe(false);
	});

	it('fixed window: N per aligned window, then refused until the window ends, Retry-After rounded up', () => {
		const limiter = limiterWith({ family: 'fixed-window', limit: 120, windowMs: 10_000 });
		now += 2_500;
		const decisions = takeMany(limiter, 121);
		expect(admitted(decisions)).toBe(120);
		expect(decisions[0]).toMatchObject({
			allowed: true,
			remaining: 119,
			limit: 120,
			resetSeconds: 8,
		});
		expect(decisions[120]).toMatchObject({
			allowed: false,
			reason: 'rate',
			retryAfterSeconds: 8,
			resetSeconds: 8,
			limit: 120,
		});
		now += 7_499; // 1 ms before the window ends
		expect(limiter.take('client')).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
		now += 1; // the next window
		expect(admitted(takeMany(limiter, 121))).toBe(120);
	});

	it('fixed window: a full window just before the edge and another just after (the double burst real fixed windows allow)', () => {
		const limiter = limiterWith({ family: 'fixed-window', limit: 5, windowMs: 1000 });
		now += 999;
		expect(admitted(takeMany(limiter, 6))).toBe(5);
		now += 1;
		expect(admitted(takeMany(limiter, 6))).toBe(5);
	});

	it('sliding window: at most N admitted within any trailing window; refused requests are not logged', () => {
		const limiter = limiterWith({ family: 'sliding-window', limit: 3, windowMs: 1000 });
		expect(limiter.take('client').allowed).toBe(true); // t = 0
		now += 400;
		expect(admitted(takeMany(limiter, 2))).toBe(2); // t = 400, log [0, 400, 400]
		now += 100;
		const refused = limiter.take('client'); // t = 500
		expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1, limit: 3 });
		now += 499; // t = 999: the admission at 0 still counts
		expect(limiter.take('client').allowed).toBe(false);
		now += 1; // t = 1000: it has left the window, one slot frees
		expect(limiter.take('client')).toMatchObject({ allowed: true, remaining: 0 });
		expect(limiter.take('client').allowed).toBe(false);
		now += 400; // t = 1400: both admissions at 400 have left
		expect(admitted(takeMany(limiter, 3))).toBe(2);
	});

	it('sliding window: Retry-After is when the blocking admission leaves the window', () => {
		const limiter = limiterWith({ family: 'sliding-window', limit: 2, windowMs: 5000 });
		limiter.take('client');
		now += 3000;
		limiter.take('client');
		now += 100;
		// The admission at 0 leaves at 5000: 1.9 s from now, rounded up.
		expect(limiter.take('client')).toMatchObject({
			allowed: false,
			retryAfterSeconds: 2,
			resetSeconds: 2,
		});
	});

	it('the window limit defaults to ratePerSecond per second', () => {
		const limiter = limiterWith({ family: 'fixed-window', ratePerSecond: 7 });
		expect(admitted(takeMany(limiter, 10))).toBe(7);
		expect(limiter.announcedLimit).toBe(7);
	});

	it.each(['token-bucket', 'fixed-window', 'sliding-window'] as const)(
		'%s: the daily quota applies on top',
		(family) => {
			const limiter = limiterWith({ family, limit: 100, dailyQuota: 4 });
			const decisions = takeMany(limiter, 6);
			expect(admitted(decisions)).toBe(4);
			const refused = decisions[5];
			expect(refused).toMatchObject({ allowed: false, reason: 'quota' });
			expect(!refused.allowed && refused.retryAfterSeconds).toBe(14 * 3600);
		},
	);

	it('limits are per client', () => {
		const limiter = limiterWith({ family: 'sliding-window', limit: 1 });
		expect(limiter.take('a').allowed).toBe(true);
		expect(limiter.take('b').allowed).toBe(true);
		expect(limiter.take('a').allowed).toBe(false);
	});

	it('update switches the family and restarts every client full', () => {
		const limiter = limiterWith({ ratePerSecond: 1, burst: 2 });
		expect(admitted(takeMany(limiter, 3))).toBe(2);
		limiter.update({ family: 'fixed-window', limit: 4 });
		expect(limiter.family).toBe('fixed-window');
		expect(admitted(takeMany(limiter, 5))).toBe(4);
		limiter.update({ family: 'token-bucket' });
		expect(admitted(takeMany(limiter, 3))).toBe(2);
	});
});

import { runClass } from './simScenario';

// A token bucket of a small burst at a high rate that tells its count on every answer: the count sits
// at its peak (the bucket refilled all we sent), so the refill measured from how it moves is only the
// rate we happened to send at, never the bucket's (bench:sim s279, s52, s44).
describe('a bucket whose count stays full', () => {
	it('is not paced at the rate we happened to send: 359/s, burst 3, 425 ms latency', async () => {
		// Was paced at 4-30 rows/s for 388 s (bench:sim s279, 11.8x the floor); the floor is concurrency's
		// (20 in flight at 425 ms: 47/s).
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 359, burst: 3 },
				headers: 'ietf-structured',
				latencyMs: 425,
				jitterMs: 29,
			},
			{ rows: 600 },
		);
		expect(result.rowsAnswered).toBe(600);
		expect(result.otherFailed).toBe(0);
		expect(result.vsFloor).toBeLessThan(1.5);
		// 34 of them are the two first waves of 20 at once, before any admission has answered.
		expect(result.share429).toBeLessThan(0.08);
	});

	it('climbs to the limit where the rate, not the concurrency, bounds it: 300/s, burst 3, 18 ms', async () => {
		// bench:sim s44: 6.2x the floor, held at about 25 rows/s. (Two waves of 20 at once first: no rate
		// is known before the first admission answers.)
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 300, burst: 3 },
				headers: 'x-ratelimit',
				resetAs: 'unix',
				latencyMs: 18,
				jitterMs: 3,
			},
			{ rows: 1500 },
		);
		expect(result.rowsAnswered).toBe(1500);
		expect(result.vsFloor).toBeLessThan(2.5);
	});
});

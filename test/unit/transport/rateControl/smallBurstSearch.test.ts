import { runClass } from './simScenario';

// A token bucket whose burst is too small for a first wave to measure a rate (1 to 4): the pace
// searches upwards from a lower bound, doubling each second, until a wave. That wave came within a few
// requests of the pace passing the limit; what was admitted over the second before it is only what the
// doubling sent (bench:sim s243, s19, s31, s160, s293).
describe('a bucket of a small burst at a high rate', () => {
	it('is paced near its rate once the search meets it, not at what the doubling had sent: 80/s, burst 1', async () => {
		// bench:sim s243 (79/s, burst 1, no headers): the wave that ended the search set the ceiling to
		// about 0.7 of the limit, which a pace that may not probe past it kept (1.79x the floor).
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 80, burst: 1 },
				latencyMs: 42,
				jitterMs: 3,
			},
			{ rows: 1500 },
		);
		expect(result.rowsAnswered).toBe(1500);
		expect(result.otherFailed).toBe(0);
		expect(result.vsFloor).toBeLessThan(1.5);
		expect(result.share429).toBeLessThan(0.03);
	});
});

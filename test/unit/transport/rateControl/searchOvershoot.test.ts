import { runClass } from './simScenario';

// A token bucket of a burst of 2 to 4 at about 20/s, whose first wave admits a handful: the search from
// that lower bound, once the registry showed it refills, doubles per round trip; the burst absorbs its
// steps past the refill, so the wave that ends it comes at 2-3 times the limit, and the step before it
// is refused again at once. Each later wave within a second of the search's end reads a second in which
// the search still climbed from far below the limit: its ceiling landed at 0.5-0.85 of the limit, and
// the probe crept up from there at 2% a second (bench:sim s18, s255; seed 2 s184).
describe('a bucket of burst 2-4 at about 20/s, found by a search per round trip', () => {
	it('is paced near its refill after the search, not at the second the search climbed in: 24/s, burst 3', async () => {
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 24, burst: 3 },
				headers: 'ratelimit-draft',
				headersOn: '429-only',
				retryAfter: 'zero',
				latencyMs: 14,
				jitterMs: 3,
			},
			{ rows: 386 },
		);
		expect(result.rowsAnswered).toBe(386);
		expect(result.otherFailed).toBe(0);
		expect(result.failedByLimit).toBe(0);
		expect(result.vsFloor).toBeLessThan(1.13);
	});

	it('the same at 18/s, burst 2, 376 ms away, two executions', async () => {
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 18, burst: 2 },
				headers: 'x-ratelimit',
				resetAs: 'unix',
				retryAfter: 'past-date',
				latencyMs: 376,
				jitterMs: 38,
			},
			{ rows: 191, executions: 2 },
		);
		expect(result.rowsAnswered).toBe(382);
		expect(result.otherFailed).toBe(0);
		expect(result.failedByLimit).toBe(0);
		expect(result.vsFloor).toBeLessThan(1.2);
	});
});

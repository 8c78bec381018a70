import { runClass } from './simScenario';

// The class of slowStart.test.ts as bench:sim runs it: a bucket of burst 1 telling its count on every
// answer, no token stored (the first request goes alone and its answer says 0 left).
describe('a bucket of 2/s, burst 1, telling its count on every answer, no token stored', () => {
	it('meets a few 429s, not the whole concurrency refused after the lone first request', async () => {
		// bench:sim s24 (21 rows): its first answer said 0 left and the 20 after it met 19 429s: 50% of
		// the sheet's requests, 1.19x the floor.
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 2, burst: 1 },
				headers: 'x-ratelimit',
				retryAfter: 'zero',
				latencyMs: 22,
				jitterMs: 4,
			},
			{ rows: 21, noToken: true },
		);
		expect(result.rowsAnswered).toBe(21);
		expect(result.otherFailed).toBe(0);
		expect(result.share429).toBeLessThan(0.15);
		expect(result.vsFloor).toBeLessThan(1.2);
	});
});

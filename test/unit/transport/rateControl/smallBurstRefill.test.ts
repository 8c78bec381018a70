import { runClass } from './simScenario';

// A token bucket of a few a second and a burst of 1 or 2: the first wave admits the burst and the pace
// searches up from about that per second. More than twice the first wave's burst admitted within one
// second shows a registry that refills (no window of that budget per second or more admits it), so
// the search goes per round trip and the wave that ends it paces at the step before the refused one.
// It took more than 8 admitted a second (twice SEARCH_DOUBLING_ANSWERS): a bucket of 4-8 a second
// showed it only after seconds of doubling, or never, and its ceiling came from what the slow search
// had admitted. Now more than twice REFILL_SHOWN_MIN_BURST (2) at least.
describe('a bucket of a small burst at a few a second shows it refills once it admits five in a second', () => {
	it('4/s, burst 2, 396 ms away (bench:sim seed 2 s99: 1.31x the floor)', async () => {
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 4, burst: 2 },
				headers: 'ietf-structured',
				latencyMs: 396,
				jitterMs: 16,
			},
			{ rows: 82 },
		);
		expect(result.rowsAnswered).toBe(82);
		expect(result.otherFailed).toBe(0);
		expect(result.failedByLimit).toBe(0);
		expect(result.vsFloor).toBeLessThan(1.2);
	});

	it('8/s, burst 1, three executions 159 ms away (bench:sim s182: 1.72x the floor)', async () => {
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 8, burst: 1 },
				headers: 'ratelimit-draft',
				latencyMs: 159,
				jitterMs: 3,
			},
			{ rows: 47, executions: 3 },
		);
		expect(result.rowsAnswered).toBe(141);
		expect(result.otherFailed).toBe(0);
		expect(result.failedByLimit).toBe(0);
		expect(result.vsFloor).toBeLessThan(1.3);
	});
});

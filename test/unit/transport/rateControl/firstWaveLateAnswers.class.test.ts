import { runClass } from './simScenario';

// The class of firstWaveLateAnswers.test.ts as bench:sim runs it: the first 429 of a bucket of a small
// burst comes before any answer (a refusal answers at once, an admission after the latency).
describe('a bucket of a few a second, burst 1, its refusals answered at once (bench:sim s209)', () => {
	it('meets 429s in its first wave only, not again in a second whole wave after the pause', async () => {
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 4, burst: 1 },
				latencyMs: 45,
				jitterMs: 2,
			},
			{ rows: 75 },
		);
		expect(result.rowsAnswered).toBe(75);
		expect(result.otherFailed).toBe(0);
		expect(result.failedByLimit).toBe(0);
		// 19 refused in the first wave (20 sent, one admitted), and a few more: under a quarter of 95.
		expect(result.share429).toBeLessThan(0.25);
	});
});

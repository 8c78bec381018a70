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

// The next wave (firstWaveLateAnswers.test.ts): a window's budget admitted, answered after the 429s that
// followed it, leaves the pace unknown; the next wave, a second on, measures what was admitted since the
// first. Taken for a registry that admitted nothing (workers.ts nothingAdmitted: one request a pause, the
// pace searching up from 1 a second), it took 1.37 of the floor (bench:sim seed 1 s151: 1.245).
describe('a fixed window of 14 a second, telling nothing, its admissions 300 ms away (bench:sim s151)', () => {
	it("measures its pace at the second wave from the first one's late admissions", async () => {
		const result = await runClass(
			{
				limiter: {
					family: 'fixed-window',
					ratePerSecond: 14,
					burst: 14,
					limit: 14,
					windowMs: 1_000,
				},
				retryAfter: 'none',
				latencyMs: 300,
				jitterMs: 10,
			},
			{ rows: 140 },
		);
		expect(result.rowsAnswered).toBe(140);
		expect(result.failedByLimit).toBe(0);
		// 1.18 of the floor.
		expect(result.vsFloor).toBeLessThan(1.25);
	});
});

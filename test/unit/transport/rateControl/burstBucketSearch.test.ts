import { runClass } from './simScenario';

// A token bucket whose burst a first wave measures (more than a handful at once), refilling many times
// faster than that burst a second, that tells nothing but its 429s: the first wave's rate (the burst
// over the pause, a window's budget) is far below the refill, and the search up from it climbed 25% a
// second while every row waited (bench:sim s271, s232; seed 2 s65, s66, s135).
describe('a single-process token bucket of a burst above a handful, far faster than its burst', () => {
	it('is found within seconds when the sheet is long at the first pace: 100/s, burst 10, 1,500 rows', async () => {
		// Before: the pace measured 10/s or so and climbed 25% a second to 100/s (1.59x the floor).
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 100, burst: 10 },
				latencyMs: 20,
				jitterMs: 2,
			},
			{ rows: 1500 },
		);
		expect(result.rowsAnswered).toBe(1500);
		expect(result.otherFailed).toBe(0);
		expect(result.vsFloor).toBeLessThan(1.45);
		expect(result.share429).toBeLessThan(0.03);
	});
});

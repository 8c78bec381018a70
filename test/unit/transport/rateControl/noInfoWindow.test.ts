import { runClass } from './simScenario';

// A fixed window that tells nothing (no rate-limit headers, no usable Retry-After): its budget is spent
// within the first seconds, then it refuses everything until its reset.
describe('a window that tells nothing', () => {
	it('is spent again after its reset at the pace it was spent at, not at what the waves before the reset left', async () => {
		// 810 per 10 s, 2 executions of 1,202 rows, Retry-After a date in the past (says nothing): each
		// wave of the storm before the reset halved the pace, down to one a second, and the sheet took
		// 198 s, 4 rows failed by the limit (bench:sim s275, 9.3x the floor: three windows, 21 s).
		const result = await runClass(
			{
				limiter: {
					family: 'fixed-window',
					ratePerSecond: 81,
					burst: 810,
					limit: 810,
					windowMs: 10_000,
				},
				headersOn: '429-only',
				resetAs: 'unix',
				retryAfter: 'past-date',
				latencyMs: 66,
				jitterMs: 1,
			},
			{ executions: 2, rows: 1202 },
		);
		expect(result.rowsAnswered).toBe(2404);
		expect(result.failedByLimit).toBe(0);
		expect(result.vsFloor).toBeLessThan(1.5);
	});
});

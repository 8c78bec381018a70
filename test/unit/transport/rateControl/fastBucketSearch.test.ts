import { runClass } from './simScenario';

// A token bucket of a small burst at a high rate: its first wave admitted one (a burst of 1 tells
// Limit 1, Remaining 0 and a one-second Reset, as a window of 1/s would), and the pace searches up from
// a lower bound of about 1/s. Doubling each second, it took 8 s to meet 428/s, more than twice the
// whole floor (bench:sim s31, 3.13x). Once the registry admitted more in a second than a window of the
// first wave's budget could, it is a bucket: the search doubles per round trip instead.
describe('a bucket of burst 1 at a high rate, on a big sheet', () => {
	it('meets its rate within a few seconds, not at the end of the sheet: 428/s, burst 1', async () => {
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 428, burst: 1 },
				headers: 'ratelimit-draft',
				retryAfter: 'zero',
				latencyMs: 39,
				jitterMs: 1,
			},
			{ rows: 1500 },
		);
		expect(result.rowsAnswered).toBe(1500);
		expect(result.otherFailed).toBe(0);
		expect(result.failedByLimit).toBe(0);
		// Before: 3.1x the floor (the pace at 15/s 4 s in, at 400/s only after 9 s).
		expect(result.vsFloor).toBeLessThan(2.5);
		expect(result.share429).toBeLessThan(0.02);
	});

	it('a burst of 2 at 199/s, 13 ms away (bench:sim s235)', async () => {
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 199, burst: 2 },
				headers: 'x-ratelimit',
				resetAs: 'unix',
				latencyMs: 13,
				jitterMs: 2,
			},
			{ rows: 1500 },
		);
		expect(result.rowsAnswered).toBe(1500);
		expect(result.otherFailed).toBe(0);
		// Before: 1.72x.
		expect(result.vsFloor).toBeLessThan(1.67);
		expect(result.share429).toBeLessThan(0.02);
	});
});

import { runClass } from './simScenario';

// A sliding log that tells its reset as a time (X-RateLimit-Reset / RateLimit-Reset in Unix seconds):
// the moment its oldest request leaves, rounded up to the registry clock's second. The first request
// after a reset, sent at that whole second, reaches the registry just past it: its own reset, one window
// later, is told a second late again, and each window was waited for twice.
describe('a sliding log telling its reset as a time', () => {
	it('starts each window one window after its first request, not at the second it is told', async () => {
		// 46 a second, 482 rows, 34 ms away (bench:sim s272): one 1 s window every 2 s, 2.02x the floor.
		const result = await runClass(
			{
				limiter: {
					family: 'sliding-window',
					ratePerSecond: 46,
					burst: 46,
					limit: 46,
					windowMs: 1_000,
				},
				headers: 'ratelimit-draft',
				headersOn: 'always',
				resetAs: 'unix',
				latencyMs: 34,
				jitterMs: 3,
			},
			{ rows: 482 },
		);
		expect(result.rowsAnswered).toBe(482);
		expect(result.failedByLimit).toBe(0);
		expect(result.vsFloor).toBeLessThan(1.5);
		expect(result.share429).toBeLessThan(0.03);
	});

	it('a small log: 6 a second, a window every second, not every two', async () => {
		// bench:sim s165 (6/1s, X-RateLimit-*, 93 rows, 25 ms, no stored token): 2.00x the floor.
		const result = await runClass(
			{
				limiter: {
					family: 'sliding-window',
					ratePerSecond: 6,
					burst: 6,
					limit: 6,
					windowMs: 1_000,
				},
				headers: 'x-ratelimit',
				headersOn: 'always',
				resetAs: 'unix',
				retryAfter: 'none',
				latencyMs: 25,
				jitterMs: 7,
			},
			{ rows: 93, noToken: true },
		);
		expect(result.rowsAnswered).toBe(93);
		expect(result.vsFloor).toBeLessThan(1.4);
	});

	it('a fixed window on the clock seconds telling its reset as a time: asked ahead once, refused, then at its resets', async () => {
		// 12 per 2 s, 143 rows, 35 ms away (bench:sim s30): its windows begin on the clock's seconds,
		// not with the first request, so the request sent ahead of the told reset is refused; asked
		// ahead every window, about one request in twelve would be.
		const result = await runClass(
			{
				limiter: {
					family: 'fixed-window',
					ratePerSecond: 6,
					burst: 12,
					limit: 12,
					windowMs: 2_000,
				},
				headers: 'ratelimit-draft',
				headersOn: 'always',
				resetAs: 'unix',
				retryAfter: 'past-date',
				latencyMs: 35,
				jitterMs: 5,
			},
			{ rows: 143 },
		);
		expect(result.rowsAnswered).toBe(143);
		expect(result.vsFloor).toBeLessThan(1.1);
		// At the told resets alone 6.5% (its first window's waves); asked ahead every window, 12%.
		expect(result.share429).toBeLessThan(0.09);
	});
});

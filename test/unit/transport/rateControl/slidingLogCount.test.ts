import { runClass } from './simScenario';

// A sliding log that tells its count on every answer (RateLimit-Policy / RateLimit, the reset in
// seconds): taken for a window once its budget is spent, since one request alone a moment later is
// refused too. Its budget does not come back whole at a reset: its requests leave it one by one, a
// window's length after each was admitted, and its reset says only when the oldest leaves, in whole
// seconds, rounded up.
describe('a sliding log telling its count on every answer', () => {
	it("spends what comes back as the log's requests leave it, not only what the first request after a reset found", async () => {
		// 470 a second, 1,500 rows, 26 ms away (bench:sim s41): the first request after the reset found
		// 19 left (the rest of the first second's requests had not left yet), the window took that for
		// its budget and waited a second for the next reset: 1.95x the floor.
		const result = await runClass(
			{
				limiter: {
					family: 'sliding-window',
					ratePerSecond: 470,
					burst: 470,
					limit: 470,
					windowMs: 1_000,
				},
				headers: 'ietf-structured',
				headersOn: 'always',
				retryAfter: 'past-date',
				latencyMs: 26,
				jitterMs: 5,
			},
			{ rows: 1_500 },
		);
		expect(result.rowsAnswered).toBe(1_500);
		expect(result.failedByLimit).toBe(0);
		expect(result.vsFloor).toBeLessThan(1.75);
	});

	it('asks again alone before a reset told in whole seconds once it is spent, not at the reset', async () => {
		// 458 per 2 s, 2 executions of 1,500 rows, 101 ms away (bench:sim s89): spent with nothing in
		// flight, the window waited for a reset told as 1 or 2 s, rounded up from the moment its oldest
		// request leaves (milliseconds away): 1.43x the floor.
		const result = await runClass(
			{
				limiter: {
					family: 'sliding-window',
					ratePerSecond: 229,
					burst: 458,
					limit: 458,
					windowMs: 2_000,
				},
				headers: 'x-ratelimit',
				headersOn: 'always',
				latencyMs: 101,
				jitterMs: 2,
			},
			{ executions: 2, rows: 1_500 },
		);
		expect(result.rowsAnswered).toBe(3_000);
		expect(result.failedByLimit).toBe(0);
		expect(result.vsFloor).toBeLessThan(1.3);
	});

	it('takes a slow token bucket telling its count for no log: it asks at the reset, not before', async () => {
		// 4 a second, bursts of 20, 300 rows, 50 ms away (`npm run bench`'s token-bucket-20-per-5s):
		// spent, it is taken for a window, and its count rises between resets as tokens come back. Asked a
		// second before its reset (told as 1 s, the time to one token rounded up), it refused 17.6%.
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 4, burst: 20 },
				headers: 'x-ratelimit',
				headersOn: 'always',
				latencyMs: 50,
				jitterMs: 10,
			},
			{ rows: 300, noToken: true },
		);
		expect(result.rowsAnswered).toBe(300);
		expect(result.share429).toBeLessThanOrEqual(0.02);
	});
});

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
});

import { runClass } from './simScenario';

// Queue-mode workers sharing one limit, each with its own controller and its own seeded Random, on a
// virtual clock against one simulated registry (bench:sim's `2p`-`4p` scenarios).
describe('workers left at a slow pace once the others finish (issue 20)', () => {
	it('a worker paced at a few a second finds the limit the others left within seconds, not minutes', async () => {
		// A bucket of 13/s, burst 2, no headers, Retry-After: 1; three workers of 77 rows. A worker whose
		// first waves the others left nothing is paced from one request a pause; once the others finished
		// it crept on (2% a second until 50 quiet admissions, half a minute at that pace) (bench:sim s25:
		// 59 s for a floor of 18 s; 47 s with the pace after nothing admitted alone). At a slow pace the
		// answers come too seldom to tell a quiet spell: the time tells.
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 13, burst: 2 },
				latencyMs: 73,
				jitterMs: 14,
			},
			{ processes: 3, rows: 77 },
		);
		expect(result.failedByLimit).toBe(0);
		expect(result.rowsAnswered).toBe(231);
		// The floor: 231 rows at 13/s, about 18 s.
		expect(result.ms).toBeLessThan(30_000);
	});
});

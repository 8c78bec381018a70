import { runClass } from './simScenario';

// Queue-mode workers sharing one limit, each with its own controller and its own seeded Random, on a
// virtual clock against one simulated registry (bench:sim's `2p`-`4p` scenarios).
describe('workers whose quota count shows the others spending (issue 20)', () => {
	// A known failure from session 38's merges to session 39: with the burst-1 search's ceiling (pace.ts
	// searchCeiling) the three took 59.1 s. Each refusal is the others' as often as ours (a bucket of burst
	// 1), so a shared pace probes beyond its last wave at SHARED_PROBE_GROWTH_PER_SECOND from its first
	// answer: 29.4 s.
	it('three workers at a bucket of 60/s, burst 1, telling an hourly quota: the slow ones probe by time', async () => {
		// Every answer tells the hour's quota (X-RateLimit-Remaining from 5,000); a second's bucket of burst
		// 1 refuses whoever comes within a token of another's admission. Each worker met the others'
		// refusals as waves of its own: one whose first wave admitted a handful never probed past its
		// last wave's rate (50 quiet answers), the others crept 2% a second; together about a fifth of
		// the limit for the whole sheet (59.5 s for a floor of 7.5 s; bench:sim s86 48.6 s for 4.9 s). The
		// quota falls by every worker's admissions: fallen by more than twice our own, others spend it.
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 60, burst: 1 },
				headers: 'x-ratelimit',
				longQuota: { limit: 5000, windowMs: 50 * 60_000 },
				latencyMs: 100,
				jitterMs: 10,
			},
			{ processes: 3, rows: 150 },
		);
		expect(result.rowsAnswered).toBe(450);
		expect(result.failedByLimit).toBe(0);
		expect(result.ms).toBeLessThan(45_000);
	});
});

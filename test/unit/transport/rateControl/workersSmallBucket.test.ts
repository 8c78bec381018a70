import { runClass } from './simScenario';

// Queue-mode workers sharing one limit, each with its own controller and its own seeded Random, on a
// virtual clock against one simulated registry (bench:sim's `2p`-`4p` scenarios).
// s170's story passes since slowStart.ts (a count that tells one or none left lets that many in flight
// until the first 429): its workers' first waves no longer spend the shared burst on refusals. s137's is
// kept as a known failure, the story of what is still open. Tried on bench:sim, not merged:
// (1) a wave at the floor pace marks the pace shared; (2) a first wave that admitted nothing, refused
// again, marks it shared. Together both cases pass, rows failed by the limit 9 -> 1 (seed 1) and 18 -> 3
// (seed 2); but (1) fires in single processes too (a first wave's handful over Retry-After's second reads
// above a limit of 1-2/s): seed 1 s120 1.103 -> 1.345, s230 1.143 -> 1.439, seed 2 s280 1.093 -> 1.459;
// and with (2) seed 1 s139 went 1.082 -> 1.241 and s215 began failing a row. (2) alone: seed 2 s137 14 ->
// 3 rows failed, but seed 1 s170 9 -> 12.
describe('workers sharing a bucket of a few a second, burst 1-2 (issue 20)', () => {
	it('three workers of three sheets at 4/s, burst 2: no row fails by the limit', async () => {
		// bench:sim seed 1 s170. Before slowStart.ts, the workers whose first waves the others left a
		// handful, or nothing, met the others' refusals at their floor pace, and never probed past it once
		// the others finished (50 quiet admissions are a minute there): two crept on at 0.9/s of the 4/s,
		// and 9 rows waited past Max Rate-Limit Wait (13 here).
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 4, burst: 2 },
				headers: 'x-ratelimit',
				latencyMs: 16,
				jitterMs: 2,
			},
			{ processes: 3, executions: 3, rows: 20, noToken: true },
		);
		expect(result.rowsAnswered).toBe(180);
		expect(result.failedByLimit).toBe(0);
	});

	// Known failures (session 49): three of 40 draws of those workers fail 2 rows each, 60 s into a sheet
	// of about 67 s: rows refused in the first wave queue in arrival order behind the execution's others,
	// at a third of a 4/s limit, while the sheet goes on. Earliest deadline first in the queue passed them,
	// but a red-team review found it serialises failing: against a registry refusing everything, a row
	// never refused waits, budget unspent, behind the refused ones (100 rows: 12 min before, 81 min).
	it.failing.each(['s15', 's25', 's35'])(
		'the same, drawn as %s: a row refused in the first wave is not left to wait out its budget behind the others',
		async (name) => {
			const result = await runClass(
				{
					limiter: { family: 'token-bucket', ratePerSecond: 4, burst: 2 },
					headers: 'x-ratelimit',
					latencyMs: 16,
					jitterMs: 2,
				},
				{ name, processes: 3, executions: 3, rows: 20, noToken: true },
			);
			expect(result.rowsAnswered).toBe(180);
			expect(result.failedByLimit).toBe(0);
		},
	);

	it.failing('four workers at 2/s, burst 1: no row fails by the limit', async () => {
		// bench:sim seed 2 s137. Three workers whose first waves admitted nothing halved at each lone
		// refusal down to a request every 10 s, while the first took the whole limit; each found it free
		// only seconds after the one before it finished (14 rows failed; 12 here).
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 2, burst: 1 },
				headers: 'x-ratelimit',
				resetAs: 'unix',
				retryAfter: 'past-date',
				latencyMs: 13,
			},
			{ processes: 4, rows: 20, noToken: true },
		);
		expect(result.rowsAnswered).toBe(80);
		expect(result.failedByLimit).toBe(0);
	});
});

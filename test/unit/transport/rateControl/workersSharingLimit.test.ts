import { seededRandom } from '../../../../bench/sim/random';
import { SimulatedRegistry, type RegistrySpec } from '../../../../bench/sim/registry';
import { runSheet } from '../../../../bench/sim/sheet';
import { VirtualClock } from '../../../../bench/sim/virtualClock';
import { RateController } from '../../../../nodes/shared/transport/rateControl';

// Queue-mode workers sharing one limit, each with its own controller, on a virtual clock: the real
// batch runner and controller against one simulated registry (bench:sim's `3p` scenarios).
let clock: VirtualClock;
beforeEach(() => {
	clock = new VirtualClock({ invariant: () => expect(RateController.strandedAnywhere()).toBe(0) });
	RateController.forgetAll();
});

const registry = (overrides: Partial<RegistrySpec>) =>
	new SimulatedRegistry(
		clock,
		{
			limiter: { family: 'token-bucket', ratePerSecond: 200, burst: 2 },
			headers: 'x-ratelimit',
			headersOn: 'always',
			resetAs: 'seconds',
			retryAfter: 'zero',
			nonsense: 'none',
			latencyMs: 6,
			jitterMs: 1,
			faultShare: 0,
			...overrides,
		},
		seededRandom(1),
	);

/** Every worker's sheet at once; each worker is its own process (its own controller). */
async function workers(sim: SimulatedRegistry, processes: number, rows: number) {
	const sheets = Array.from({ length: processes }, (_, process) =>
		runSheet(clock, sim.request, rows, { process: `p${process}` }),
	);
	return await clock.run(Promise.all(sheets));
}

describe('queue-mode workers sharing one limit (issue 20)', () => {
	it('a worker paced far below a bucket that the others stopped spending finds the limit again', async () => {
		// 200/s, burst 2, three workers: the first waves admit each a handful, a worker's pace is born of
		// that and never probed past it: the last worker went on at about one row a second while the
		// registry admitted 200 (bench:sim s178, 910 s for a floor of 19 s, 47x).
		const sim = registry({});
		const startedAt = clock.now();
		const sheets = await workers(sim, 3, 400);
		for (const sheet of sheets)
			expect(sheet.rows.filter((row) => row === 'record')).toHaveLength(400);
		// The floor is 1,200 rows at 200/s: 6 s. A worker learns its share only from 429s and the limit
		// others left only from their absence (a quiet spell, then a probe); a pace stuck at about one
		// a second takes minutes.
		expect(clock.now() - startedAt).toBeLessThan(60_000);
	});
});

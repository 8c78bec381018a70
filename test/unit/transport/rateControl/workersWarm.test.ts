import { queueShape, SANDBOX, SHARED_LOOKUPS } from '../../../../bench/sim/queue';
import { seededRandom } from '../../../../bench/sim/random';
import { SimulatedRegistry } from '../../../../bench/sim/registry';
import { runSheet } from '../../../../bench/sim/sheet';
import { VirtualClock } from '../../../../bench/sim/virtualClock';
import { RateController } from '../../../../nodes/shared/transport/rateControl';

// test:queue's scenarios 2 then 3, shortened, on a virtual clock: a worker runs a sheet alone against the
// sandbox's bucket (100/s, burst 100, X-RateLimit-* on every answer, Retry-After: 1, 45 ms), then three
// sheets of 300 spread over it and a second worker. Each worker's controller is its own.
let clock: VirtualClock;
beforeEach(() => {
	clock = new VirtualClock({ invariant: () => expect(RateController.strandedAnywhere()).toBe(0) });
	RateController.forgetAll();
});

async function warmThenShared(aloneRows: number, onWarm: number) {
	const random = seededRandom(1);
	const sim = new SimulatedRegistry(clock, SANDBOX, random);
	for (const process of [0, 1])
		RateController.for(`sim p${process}`, clock, seededRandom(32 + process));
	const sheet = (process: number, execution: number, rows: number) =>
		runSheet(clock, sim.request, rows, { process: `p${process}`, execution, random });
	return await clock.run(
		(async () => {
			await sheet(1, 9, aloneRows);
			const alone = { ...sim.counters };
			await clock.sleep(2000);
			const startedAt = clock.now();
			const sheets = await Promise.all(
				[0, 1, 2].map(async (execution) => {
					const process = execution < onWarm ? 1 : 0;
					// The warm worker's sheets a moment after the other's (as a worker takes a job).
					if (process === 1) await clock.sleep(0);
					return await sheet(process, execution, 300);
				}),
			);
			return {
				alone,
				ms: clock.now() - startedAt,
				requests: sim.counters.requests - alone.requests,
				refused: sim.counters.rateLimited - alone.rateLimited,
				records: sheets.flatMap((result) => result.rows).filter((row) => row === 'record').length,
			};
		})(),
	);
}

describe('a worker that learned the count alone, then shares it (issue 20, test:queue scenario 3)', () => {
	it.each([
		[300, 2],
		[600, 1],
	])(
		'%i rows alone, then %i of the three sheets on that worker: under 3%% 429s, near the floor',
		async (aloneRows, onWarm) => {
			// Each worker spent all the count said was left, the other alike: the bucket refused the
			// second half at once, every second after the 429's pause (60 and 58 429s of 900 here; a real
			// n8n 296 of 2,700). A count refused while it still left us one is shared: half of it.
			const run = await warmThenShared(aloneRows, onWarm);
			expect(run.alone.rateLimited).toBe(0);
			expect(run.records).toBe(900);
			expect(run.refused / run.requests).toBeLessThan(0.03);
			// The floor: the burst of 100 then 800 at 100/s, 8 s; one at a time (at the refill) left the
			// burst unspent.
			expect(run.ms).toBeLessThan(8_000 * 1.03);
		},
	);
});

describe('test:queue scenario 3 at its real size, the warm worker taking its sheet late (bench/sim/queue.ts)', () => {
	// The warm worker comes a second after the other spent the burst; both then spent every count at
	// their whole concurrency, neither seeing the other's requests in flight, the bucket refused the last
	// of them (14-20 a wave), and Retry-After's pause let it refill whole: a wave every 1.25 s, 188 429s of
	// 2,888 on main bf47982 (a real n8n: 154 of 2,854 and 296 of 2,996). Half of a count others spend is
	// ours, a count that fell by more than ours (and a bucket's rounding) shows them (count.ts: 95 of
	// 2,795); the warm worker, which had taken the bucket for a window whose answers tell a count and no
	// reset, spent what the window reckoned of its own requests, not what the count said was left: it
	// now waits for an answer once the count is spent (modes.ts countBounds: 17 of 2,717).
	it('seed 1, one sheet on the warm worker, taken 1,000 ms late: under 3% 429s', async () => {
		const { shared } = await queueShape(1, 1, 1_000);
		expect(shared.requests).toBeGreaterThanOrEqual(3 * SHARED_LOOKUPS);
		expect(shared.rateLimited / shared.requests).toBeLessThan(0.03);
	});
});

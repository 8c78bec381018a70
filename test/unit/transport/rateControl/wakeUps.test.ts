import { drawScenarios } from '../../../../bench/sim/catalogue';
import { runScenario } from '../../../../bench/sim/simulate';
import { VirtualClock } from '../../../../bench/sim/virtualClock';
import {
	RateController,
	type RequestReport,
	type Tenant,
} from '../../../../nodes/shared/transport/rateControl';

// A lookup left waiting with nothing in flight and no wake-up armed waits for ever: no answer and no
// timer will pump for it. Real time moves while the controller runs (two readings of the clock in one
// call differ), which a virtual clock standing still hides: these clocks move 1 ms at every reading.

const stranded = (count: number) => {
	if (count > 0)
		throw new Error(`${count} lookups wait with nothing in flight and no wake-up armed`);
};

describe('rate controller wake-ups, while time moves as the controller runs', () => {
	beforeEach(() => RateController.forgetAll());

	it("recognises the answer to a window's lone first request, and sends the budget it tells", async () => {
		const watched: RateController[] = [];
		const clock = new VirtualClock({
			readCostMs: 1,
			invariant: () => watched.forEach((controller) => stranded(controller.stranded)),
		});
		const controller = new RateController(clock);
		watched.push(controller);
		const tenant = controller.join({ maxConcurrency: 10 });
		const answer = async (report: Omit<RequestReport, 'sentAt'>) => {
			const permit = await clock.run(tenant.acquire());
			if (permit.kind !== 'go') throw new Error(`expected a start, got ${permit.kind}`);
			tenant.release({ sentAt: permit.sentAt, ...report });
		};
		// A window of 3, known: spent, and then the reset's lone request learns its budget.
		for (const remaining of [2, 1, 0]) await answer({ status: 200, remaining, resetMs: 300 });
		await answer({ status: 429, resetMs: 300 });
		await answer({ status: 429, resetMs: 300 });
		for (const remaining of [2, 1, 0]) await answer({ status: 200, remaining, resetMs: 300 });

		const sent: number[] = [];
		const waiting = (tenant: Tenant) =>
			void tenant.acquire().then((permit) => permit.kind === 'go' && sent.push(permit.sentAt));
		for (let index = 0; index < 4; index++) waiting(tenant);
		await clock.advance(400);
		expect(sent).toHaveLength(1);
		tenant.release({ sentAt: sent[0], status: 200, remaining: 2, resetMs: 300 });
		await clock.advance(10);
		expect(sent).toHaveLength(3);
	});

	it('whatever the limiter, no lookup is ever stranded and every row gets exactly one outcome', async () => {
		for (const scenario of drawScenarios(20, 40).filter(
			(drawn) => drawn.rows * drawn.processes * drawn.executions <= 600,
		)) {
			const result = await runScenario(scenario, 20, {
				readCostMs: 1,
				invariant: () => stranded(RateController.strandedAnywhere()),
			});
			expect(result.rowsAnswered).toBe(scenario.rows * scenario.processes * scenario.executions);
		}
	});
});

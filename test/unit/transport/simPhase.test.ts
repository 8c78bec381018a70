import { matrixScenarios } from '../../../bench/sim/catalogue';
import { runScenario, simulatedWindowAt, startingWithinSecond } from '../../../bench/sim/simulate';
import { VIRTUAL_EPOCH } from '../../../bench/sim/virtualClock';

// Issue 20 item 5: test:n8n's scale check printed bench:sim's figure at its own start (652 ms into a
// window) as 1.151, where the sweep (`run.ts --matrix --only n8n-fixed-window-no-headers --phase P`,
// P 50 ms apart) gave 1.117 at 650. Traced: one computation (same scenario, seed, CPU model, rows,
// latency; only the start's ms past the second counts), and a figure that jumps between starts 1 ms
// apart (on 2f037bd: 1.117 at 649-650, 1.151 at 651-652, 1.126 at 653-654): a sweep 50 ms apart does
// not stand for the check's start. `npx tsx bench/sim/phaseSweep.ts --from 640 --to 660 --step 1`.
describe("bench:sim's bare window at test:n8n's start", () => {
	const bare = matrixScenarios().find(
		(scenario) => scenario.name === 'n8n-fixed-window-no-headers',
	)!;
	// A real node's start (epoch ms) 652 ms past a whole second, as the check's run on be75755 had.
	const realStart = Date.UTC(2026, 10, 12, 14, 3, 27) + 652;

	it('starts the virtual clock at the same ms past the second as the real run', () => {
		expect(startingWithinSecond(realStart).start).toBe(VIRTUAL_EPOCH + 652);
		expect(startingWithinSecond(652).start).toBe(VIRTUAL_EPOCH + 652);
		expect(startingWithinSecond(-348).start).toBe(VIRTUAL_EPOCH + 652);
	});

	it("gives the check's figure as the sweep's run at that phase, whatever ran before it", async () => {
		const sweep = await runScenario(bare, 1, { start: VIRTUAL_EPOCH + 652 });
		// Another start first, in the same process (the check runs after the real n8n's run).
		await simulatedWindowAt(bare, realStart - 2);
		const check = await simulatedWindowAt(bare, realStart);
		expect(check.startedAt).toBe(sweep.startedAt);
		expect(check.floorMs).toBe(sweep.floorMs);
		expect(check.ms).toBe(sweep.ms);
		expect(check.vsFloor).toBe(sweep.vsFloor);
	});
});

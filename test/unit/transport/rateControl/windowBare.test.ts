import { matrixScenarios } from '../../../../bench/sim/catalogue';
import { runScenario, startingWithinSecond } from '../../../../bench/sim/simulate';
import { RateController } from '../../../../nodes/shared/transport/rateControl';

// test:n8n's bare fixed window (issue 20 item 5): 100 per clock-aligned second, a 429 with no
// Retry-After and no rate-limit headers. Every request sent in a spent window meets a 429 a moment
// later, each its own wave; three with nothing admitted between make a storm, whose pause (a second,
// where nothing said how long) ended well into the next window: most of that window's budget unspent.
describe('a fixed window of a second that says nothing', () => {
	const bare = matrixScenarios().find(
		(scenario) => scenario.name === 'n8n-fixed-window-no-headers',
	)!;
	// Where in its window the sheet starts (ms past a whole second; a real run's is chance): at 800 the
	// first wave spanned two windows, paced at about twice the limit, and storms cost a window every
	// other second (1.320x; 1.149 at 0 and 1.244 at 900).
	const spentWithin = async (phase: number) => {
		const result = await runScenario(bare, 1, {
			...startingWithinSecond(phase),
			invariant: () => expect(RateController.strandedAnywhere()).toBe(0),
		});
		expect(result.rowsAnswered).toBe(bare.rows);
		expect(result.failedByLimit).toBe(0);
		expect(result.vsFloor).toBeLessThan(1.1);
	};
	// Session 42: a storm's pause ends at the window's turn learned from its refusals (windowTurn.ts), not
	// at a guess. Open before: 900 ms in 1.105, 700 ms 1.117, 590 ms 1.215 (4.7% 429s: the first wave
	// held two budgets, paced at 187/s, docs/performance.md) and test:n8n's own start on be75755, 652 ms
	// in (1.151). Sweep (bench/sim/phaseSweep.ts --step 10 --to 990): 1.031-1.110, 17 of 100 above 1.10.
	it.each([0, 800, 900, 700, 590, 652])(
		'is spent within 1.10 of the floor, starting %i ms into a window',
		spentWithin,
	);
	// Session 43 (bare4): the first wave refused within a second of its start, its pause ran a second from
	// when sending began, past the window's turn (470 ms in: refused from 872, turned at 1,000, nothing
	// sent before 1,523): one request asks alone halfway (windowTurn.ts askFirstTurn). Open before: 300 ms
	// in 1.105, 410 ms 1.107, 470 ms 1.110; the sweep's starts above 1.10 17 -> 2.
	it.each([300, 410, 470])(
		'is spent within 1.10 of the floor, its first pause asked halfway, starting %i ms into a window',
		spentWithin,
	);
});

import { floorMs, matrixScenarios, type Scenario } from '../../../bench/sim/catalogue';
import { changingScenarios } from '../../../bench/sim/changing';
import { seededRandom } from '../../../bench/sim/random';
import { SimulatedRegistry } from '../../../bench/sim/registry';
import { runScenario } from '../../../bench/sim/simulate';
import { VirtualClock } from '../../../bench/sim/virtualClock';

// bench:sim --changing: limits that change during a run. The registry must change as said, and the
// floor must follow it, or the set's figures say nothing about the controller.

const window = (limit: number) => ({
	family: 'fixed-window' as const,
	ratePerSecond: limit,
	burst: limit,
	limit,
	windowMs: 1000,
});

/** 250 rows on a fixed window of 100 a second, 10 ms round trips, a token stored. */
const windowed = (changes: Partial<Scenario['registry']>, rows = 250): Scenario => {
	const [scenario] = matrixScenarios();
	return {
		...scenario,
		rows,
		noToken: false,
		registry: {
			...scenario.registry,
			limiter: window(100),
			latencyMs: 10,
			jitterMs: 0,
			...changes,
		},
	};
};

describe('bench:sim, limits that change during the run', () => {
	it('the floor follows a limit halved at 1 s: 100 at once, then 50 a window', () => {
		expect(floorMs(windowed({}), 0, 1_000)).toBeCloseTo(2_000 + 10);
		const halved = windowed({ changes: [{ afterMs: 1_000, limiter: window(50) }] });
		expect(floorMs(halved, 0, 1_000)).toBeCloseTo(3_000 + 10);
	});

	it('the floor of a budget mostly spent before the run waits for its refill', () => {
		// 20 of 100 left: 20 at once, the other 20 when the next window starts.
		expect(floorMs(windowed({ spentAtStart: 80 }, 40), 0, 1_000)).toBeCloseTo(1_000 + 10);
		// With the whole budget: all at once, one round trip (half a millisecond to arrive, 10 to answer).
		expect(floorMs(windowed({}, 40), 0, 1_000)).toBeCloseTo(10.5);
	});

	it('the registry answers by the new limit from its time on, and by the part-spent budget at the start', async () => {
		const clock = new VirtualClock();
		const registry = new SimulatedRegistry(
			clock,
			windowed({ changes: [{ afterMs: 1_000, limiter: window(50) }], spentAtStart: 99 }).registry,
			seededRandom(1),
		);
		const ask = async () => {
			const answer = await clock.run(
				registry.request({ countryCode: 'de', companyId: '1' }, 'answer'),
			);
			return answer.kind === 'response'
				? [answer.status, answer.headers['x-ratelimit-limit']]
				: answer.kind;
		};
		expect(await ask()).toEqual([200, '100']);
		expect(await ask()).toEqual([429, '100']);
		await clock.advance(1_000);
		expect(await ask()).toEqual([200, '50']);
	});

	it('a set apart from the seeded catalogue: every change in every family and header mode, each row one outcome', async () => {
		const scenarios = changingScenarios();
		expect(new Set(scenarios.map((scenario) => scenario.name)).size).toBe(7 * 3 * 3);
		for (const scenario of scenarios.filter((each) => each.name.startsWith('halved/'))) {
			const result = await runScenario(scenario, 1);
			expect(result.rowsAnswered).toBe(scenario.rows);
			expect(result.eligible).toBe(true);
		}
	});
});

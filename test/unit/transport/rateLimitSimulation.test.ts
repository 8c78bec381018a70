import { drawScenarios, matrixScenarios } from '../../../bench/sim/catalogue';
import { runScenario } from '../../../bench/sim/simulate';

// A small subset of bench:sim in every test run: the real batch runner and controller on a virtual clock.

describe('bench:sim subset', () => {
	it.each(matrixScenarios(1_000).map((scenario) => [scenario.name, scenario] as const))(
		"npm run bench's scenario %s: near the floor, at most 2% 429s, no row failed by a limit it could wait for",
		async (_name, scenario) => {
			const result = await runScenario(scenario, 1);
			expect(result.failedByLimit).toBe(0);
			expect(result.otherFailed).toBe(0);
			expect(result.share429).toBeLessThanOrEqual(0.02);
			expect(result.vsFloor).toBeLessThanOrEqual(1.15);
		},
	);

	it('whatever the limiter, every row gets exactly one outcome', async () => {
		for (const scenario of drawScenarios(20, 40).filter(
			(drawn) => drawn.rows * drawn.processes * drawn.executions <= 600,
		)) {
			// runScenario throws on a hang (nothing left to wait for, rows still unanswered).
			const result = await runScenario(scenario, 20);
			expect(result.rowsAnswered).toBe(scenario.rows * scenario.processes * scenario.executions);
		}
	});

	it.each(['seconds', 'http-date'] as const)(
		'whatever the limiter, a spent daily quota whose 429 says until when (Retry-After in %s) fails its rows within a second or two',
		async (retryAfter) => {
			for (const drawn of drawScenarios(21, 12)) {
				const { registry } = drawn;
				const scenario = {
					...drawn,
					spentQuota: true,
					registry: { ...registry, retryAfter, limiter: { ...registry.limiter, dailyQuota: 0 } },
				};
				const result = await runScenario(scenario, 21);
				expect(result.rowsAnswered).toBe(scenario.rows * scenario.processes * scenario.executions);
				expect(result.ms).toBeLessThan(2_500 + 4 * (registry.latencyMs + registry.jitterMs));
			}
		},
	);

	it('is deterministic for a seed', async () => {
		const [scenario] = drawScenarios(3, 1);
		const first = await runScenario(scenario, 3);
		const second = await runScenario(scenario, 3);
		expect({ ...second, scenario: undefined }).toEqual({ ...first, scenario: undefined });
	});
});

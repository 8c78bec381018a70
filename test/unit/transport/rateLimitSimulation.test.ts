import {
	drawScenarios,
	floorMs,
	matrixScenarios,
	type Scenario,
} from '../../../bench/sim/catalogue';
import { seededRandom } from '../../../bench/sim/random';
import { SimulatedRegistry } from '../../../bench/sim/registry';
import { runScenario } from '../../../bench/sim/simulate';
import { VirtualClock } from '../../../bench/sim/virtualClock';

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

	it("the floor counts what no client avoids: the registry's mean round trip, and a lone first request without a token", () => {
		// A limit far above what 20 requests in flight reach: the floor is the round trips alone.
		const scenario: Scenario = {
			...matrixScenarios()[0],
			rows: 40,
			registry: {
				...matrixScenarios()[0].registry,
				limiter: { family: 'token-bucket', ratePerSecond: 10_000, burst: 10_000 },
				latencyMs: 100,
				jitterMs: 20,
			},
		};
		// 0.5 ms to arrive, 100 ms latency, 10 ms of jitter on average: 110.5 ms a round trip.
		expect(floorMs({ ...scenario, noToken: false }, 0, 20)).toBeCloseTo(2 * 110.5);
		// The token's request alone, then two rounds of 20 and 19.
		expect(floorMs({ ...scenario, noToken: true }, 0, 20)).toBeCloseTo(3 * 110.5);
	});

	it('the floor of a fixed window counts its budget per window, from where the run starts within one', () => {
		const [scenario] = matrixScenarios();
		const windowed: Scenario = {
			...scenario,
			rows: 250,
			noToken: false,
			registry: {
				...scenario.registry,
				limiter: {
					family: 'fixed-window',
					ratePerSecond: 100,
					burst: 100,
					limit: 100,
					windowMs: 1000,
				},
				latencyMs: 10,
				jitterMs: 0,
			},
		};
		// 100 at once, 100 at the next window (600 ms on), the last 50 a window later: each sent half a
		// millisecond before it arrives, answered a round trip after it was sent.
		expect(floorMs(windowed, 400, 1_000)).toBeCloseTo(1_600 + 10);
	});

	it("a fixed window's Unix X-RateLimit-Reset names the second its window ends, not one later", async () => {
		const clock = new VirtualClock();
		const windowEnd = clock.now() + 1_000;
		await clock.advance(16);
		const registry = new SimulatedRegistry(
			clock,
			{
				...matrixScenarios()[0].registry,
				limiter: { family: 'fixed-window', ratePerSecond: 5, burst: 5, limit: 5, windowMs: 1000 },
				resetAs: 'unix',
				jitterMs: 0,
			},
			seededRandom(1),
		);
		const answer = await clock.run(
			registry.request({ countryCode: 'de', companyId: '1' }, 'answer'),
		);
		expect(answer.kind === 'response' && answer.headers['x-ratelimit-reset']).toBe(
			String(windowEnd / 1000),
		);
	});

	it('is deterministic for a seed', async () => {
		const [scenario] = drawScenarios(3, 1);
		const first = await runScenario(scenario, 3);
		const second = await runScenario(scenario, 3);
		expect({ ...second, scenario: undefined }).toEqual({ ...first, scenario: undefined });
	});
});

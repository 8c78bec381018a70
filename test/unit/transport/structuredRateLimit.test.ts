import { drawScenarios } from '../../../bench/sim/catalogue';
import { seededRandom } from '../../../bench/sim/random';
import {
	SimulatedRegistry,
	type HeaderDialect,
	type RegistrySpec,
} from '../../../bench/sim/registry';
import { runScenario } from '../../../bench/sim/simulate';
import { runSheet } from '../../../bench/sim/sheet';
import { VirtualClock } from '../../../bench/sim/virtualClock';
import { RateController } from '../../../nodes/shared/transport/rateControl';

// A registry that tells its limit only in the IETF structured fields (RateLimit-Policy / RateLimit,
// httpapi draft 08+): the controller must make as much of them as of X-RateLimit-*, on a virtual clock.
beforeEach(() => RateController.forgetAll());

async function sheet(
	limiter: RegistrySpec['limiter'],
	headers: HeaderDialect,
	retryAfter: RegistrySpec['retryAfter'],
	rows: number,
) {
	const clock = new VirtualClock();
	const spec: RegistrySpec = {
		limiter: { ...limiter },
		headers,
		headersOn: 'always',
		resetAs: 'seconds',
		retryAfter,
		nonsense: 'none',
		latencyMs: 50,
		jitterMs: 10,
		faultShare: 0,
	};
	const sim = new SimulatedRegistry(clock, spec, seededRandom(1));
	const result = await clock.run(runSheet(clock, sim.request, rows, { process: headers }));
	return {
		ms: result.ms,
		records: result.rows.filter((row) => row === 'record').length,
		share429: sim.counters.rateLimited / sim.counters.requests,
	};
}

describe('a registry that speaks only the IETF structured rate-limit fields', () => {
	it('a window of 120 per 10 s whose 429s say nothing else: its reset is waited for, not guessed (as with X-RateLimit-*)', async () => {
		const window = {
			family: 'fixed-window' as const,
			ratePerSecond: 12,
			burst: 120,
			limit: 120,
			windowMs: 10_000,
		};
		const told = await sheet(window, 'x-ratelimit', 'none', 300);
		const structured = await sheet(window, 'ietf-structured', 'none', 300);
		expect(structured.records).toBe(300);
		expect(structured.ms).toBeLessThanOrEqual(told.ms * 1.05);
		expect(structured.share429).toBeLessThanOrEqual(0.02);
	});

	it('a slow bucket (4/s, burst 20): its count keeps the sheet at its pace with hardly a 429', async () => {
		const structured = await sheet(
			{ family: 'token-bucket', ratePerSecond: 4, burst: 20 },
			'ietf-structured',
			'seconds',
			300,
		);
		expect(structured.records).toBe(300);
		expect(structured.share429).toBeLessThanOrEqual(0.02);
	});
});

describe('every dialect is one reading', () => {
	it('over drawn limiters (nonsense included), a registry telling the same figures in X-RateLimit-*, the older RateLimit-* or the structured fields gets the same run', async () => {
		// At most 260 lookups a scenario: 19 of seed 7's 60, every kind of nonsense among them.
		const drawn = drawScenarios(7, 60).filter(
			(scenario) =>
				scenario.registry.headers !== 'none' &&
				scenario.rows * scenario.processes * scenario.executions <= 260,
		);
		expect(drawn.length).toBeGreaterThanOrEqual(10);
		for (const scenario of drawn) {
			// Resets in seconds: as Unix time X-RateLimit-Reset is whole seconds, the structured t a delay.
			const runs = [];
			for (const headers of ['x-ratelimit', 'ratelimit-draft', 'ietf-structured'] as const) {
				const result = await runScenario(
					{ ...scenario, registry: { ...scenario.registry, headers, resetAs: 'seconds' } },
					7,
				);
				runs.push({
					ms: result.ms,
					share429: result.share429,
					failedByLimit: result.failedByLimit,
					otherFailed: result.otherFailed,
				});
			}
			expect({ name: scenario.name, runs: runs.slice(1) }).toEqual({
				name: scenario.name,
				runs: [runs[0], runs[0]],
			});
		}
	});
});

import { seededRandom } from '../../../bench/sim/random';
import {
	SimulatedRegistry,
	type HeaderDialect,
	type RegistrySpec,
} from '../../../bench/sim/registry';
import { runSheet } from '../../../bench/sim/sheet';
import { VirtualClock } from '../../../bench/sim/virtualClock';
import { RateController } from '../../../nodes/shared/transport/rateController';

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

import { seededRandom } from '../../../../bench/sim/random';
import { SimulatedRegistry, type RegistrySpec } from '../../../../bench/sim/registry';
import { runSheet } from '../../../../bench/sim/sheet';
import { VirtualClock } from '../../../../bench/sim/virtualClock';
import type { RegistryRequest } from '../../../../nodes/shared/transport/registryRequest';
import { RateController } from '../../../../nodes/shared/transport/rateControl';

// Red-team review: a registry whose 429 says 0 left and a reset an hour ahead, where its Retry-After
// says a second (a bucket's refusal carrying a quota's headers, or a reset in the wrong unit).
let clock: VirtualClock;
beforeEach(() => {
	clock = new VirtualClock({ invariant: () => expect(RateController.strandedAnywhere()).toBe(0) });
	RateController.forgetAll();
});

function lyingRegistry(retryAfter: RegistrySpec['retryAfter']): RegistryRequest {
	const sim = new SimulatedRegistry(
		clock,
		{
			limiter: { family: 'token-bucket', ratePerSecond: 20, burst: 20 },
			headers: 'none',
			headersOn: 'always',
			resetAs: 'seconds',
			retryAfter,
			nonsense: 'none',
			latencyMs: 40,
			jitterMs: 0,
			faultShare: 0,
		},
		seededRandom(1),
	);
	return async (key, on401) => {
		const answer = await sim.request(key, on401);
		if (answer.kind !== 'response' || answer.status !== 429) return answer;
		return {
			...answer,
			headers: { ...answer.headers, 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3600' },
		};
	};
}

describe('a 429 that says 0 left and a reset an hour ahead', () => {
	it('with Retry-After: 1 s, the rows are looked up after a second, not failed as a spent quota', async () => {
		const startedAt = clock.now();
		const sheet = await clock.run(runSheet(clock, lyingRegistry('seconds'), 200));
		const failed = sheet.rows.filter((row) => row !== 'record');
		expect(failed).toEqual([]);
		// 20 at once, then 20 a second: some 9 s.
		expect(clock.now() - startedAt).toBeLessThan(30_000);
	});
});

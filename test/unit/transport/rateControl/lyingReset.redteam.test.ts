import { seededRandom } from '../../../../bench/sim/random';
import { SimulatedRegistry, type RegistrySpec } from '../../../../bench/sim/registry';
import { NODE_DEFAULTS, runSheet } from '../../../../bench/sim/sheet';
import { VirtualClock } from '../../../../bench/sim/virtualClock';
import { runBatch, type LookupOutcome } from '../../../../nodes/shared/transport/batchRunner';
import type { RegistryRequest } from '../../../../nodes/shared/transport/registryRequest';
import { RateController } from '../../../../nodes/shared/transport/rateControl';

// Red-team review: a registry whose 429 says 0 left and a reset an hour ahead, where its Retry-After
// says a second (a bucket's refusal carrying a quota's headers, or a reset in the wrong unit).
let clock: VirtualClock;
beforeEach(() => {
	clock = new VirtualClock({ invariant: () => expect(RateController.strandedAnywhere()).toBe(0) });
	RateController.forgetAll();
});

function lyingRegistry(
	retryAfter: RegistrySpec['retryAfter'],
	resetSeconds = 3600,
): RegistryRequest {
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
			headers: {
				...answer.headers,
				'x-ratelimit-remaining': '0',
				'x-ratelimit-reset': String(resetSeconds),
			},
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

describe('cancelled while waiting for a reset a 429 told', () => {
	it('every row ends at the cancellation, none stranded', async () => {
		// No Retry-After, 0 left, reset 50 s ahead: within the Max Rate-Limit Wait, so the sheet waits.
		const request = lyingRegistry('none', 50);
		const cancel = new AbortController();
		const startedAt = clock.now();
		const sheet = runBatch(
			200,
			(index) => ({ countryCode: 'de', companyId: `c-${index}` }),
			{ registryKey: 'sim cancel', ...NODE_DEFAULTS },
			{
				request,
				tokenWasStored: true,
				clock,
				random: seededRandom(7),
				grantedScopes: async () => undefined,
				reloadCredential: async () => {},
				cancelSignal: cancel.signal,
			},
			{ stopAtFirstFailure: false },
		);
		void clock.sleep(5_000).then(() => cancel.abort());
		const outcomes = (await clock.run(sheet)) as LookupOutcome[];
		const kinds = new Set(outcomes.map((outcome) => outcome.kind));
		expect([...kinds].sort()).toEqual(['cancelled', 'record']);
		expect(clock.now() - startedAt).toBeLessThan(6_000);
	});
});

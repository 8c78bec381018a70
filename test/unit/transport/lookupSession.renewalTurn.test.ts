import { seededRandom } from '../../../bench/sim/random';
import { SimulatedRegistry, type RegistrySpec } from '../../../bench/sim/registry';
import { VirtualClock } from '../../../bench/sim/virtualClock';
import {
	runBatch,
	type BatchSettings,
	type LookupOutcome,
} from '../../../nodes/shared/transport/batchRunner';
import { RateController } from '../../../nodes/shared/transport/rateControl';
import type { On401, RegistryAnswer } from '../../../nodes/shared/transport/registryRequest';

// A token renewal that begins in the very moment the rate controller gives other lookups of the
// execution their turn (lookupSession.ts, before the request): their permits came with the old token,
// so they are given back unsent, to the rate controller as well as to the registry. The registry is a
// simulated one (bench/sim/registry.ts) behind a token the stand-in refuses from a given request on.

const TOKEN_REFUSED: RegistryAnswer = { kind: 'response', status: 401, headers: {}, body: {} };

/**
 * A registry that refuses the stored token from its `revokedFrom`-th request on, until a renewal: with a
 * 401, or with what `refusedWith` says (n8n's own answer when its token exchange fails).
 */
function registryWithToken(clock: VirtualClock, limiter: RegistrySpec['limiter'] | undefined) {
	const sim = new SimulatedRegistry(
		clock,
		{
			limiter: limiter ?? { family: 'token-bucket', ratePerSecond: 1_000, burst: 1_000 },
			headers: limiter ? 'x-ratelimit' : 'none',
			headersOn: 'always',
			resetAs: 'seconds',
			retryAfter: 'seconds',
			nonsense: 'none',
			latencyMs: 10,
			jitterMs: 0,
			faultShare: 0,
		},
		seededRandom(1),
	);
	let renewed = false;
	let sentWithStoredToken = 0;
	return {
		/** Each request as it left: its row, its mode, when (ms since the start), its status. */
		calls: [] as Array<{ row: number; on401: On401; at: number; status?: number }>,
		request(revokedFrom: number, start: number, refusedWith: RegistryAnswer) {
			return async (key: { companyId: string }, on401: On401): Promise<RegistryAnswer> => {
				const call: { row: number; on401: On401; at: number; status?: number } = {
					row: Number(key.companyId.slice(2)),
					on401,
					at: clock.now() - start,
				};
				this.calls.push(call);
				// n8n fetches the new token before it sends the renewing request.
				if (on401 === 'renew') renewed = true;
				const refused = !renewed && ++sentWithStoredToken >= revokedFrom;
				// A refusal takes the registry's time as an answer does (the simulated one's own path).
				const answer = refused
					? await (async (): Promise<RegistryAnswer> => {
							await clock.sleep(0.5);
							await clock.sleep(10);
							return refusedWith;
						})()
					: await sim.request({ countryCode: 'de', companyId: key.companyId }, on401);
				if (answer.kind === 'response') call.status = answer.status;
				return answer;
			};
		},
	};
}

async function sheet(
	rows: number,
	revokedFrom: number,
	settings: Partial<BatchSettings>,
	limiter?: RegistrySpec['limiter'],
	refusedWith = TOKEN_REFUSED,
) {
	RateController.forgetAll();
	const clock = new VirtualClock();
	const start = clock.now();
	const registry = registryWithToken(clock, limiter);
	const outcomes = (await clock.run(
		runBatch(
			rows,
			(index) => ({ countryCode: 'de', companyId: `ID${index}` }),
			{
				registryKey: `renewal turn ${Math.random()}`,
				maxConcurrency: 4,
				maxRateLimitWaitMs: 10_000,
				maxAttempts: 3,
				...settings,
			},
			{
				request: registry.request(revokedFrom, start, refusedWith),
				tokenWasStored: true,
				grantedScopes: async () => 'read:aml',
				reloadCredential: async () => {},
				clock,
				random: () => 0.5,
			},
			{ stopAtFirstFailure: false },
		),
	)) as LookupOutcome[];
	return { outcomes, calls: registry.calls, ms: clock.now() - start };
}

describe('lookups whose turn comes in the moment a token renewal begins', () => {
	it('are not sent with the refused token: they wait for the new one', async () => {
		// Two in flight. Rows 0 and 1 leave together; row 0's answer (at 10.5 ms) gives row 2 its turn,
		// and row 1's 401, in the same moment, begins the renewal: row 2 leaves after it, with the new token.
		const { outcomes, calls } = await sheet(3, 2, { maxConcurrency: 2 });
		expect(outcomes.map((outcome) => outcome.kind)).toEqual(['record', 'record', 'record']);
		expect(calls.map(({ row, on401, at, status }) => [row, on401, at, status])).toEqual([
			[0, 'answer', 0, 200],
			[1, 'answer', 0, 401],
			[1, 'renew', 10.5, 200],
			[2, 'answer', 21, 200],
		]);
	});

	it("are given back to a window's count too: the windows after the renewal open at their resets", async () => {
		// A fixed window of 10 a second. The stored token is refused from the 25th request on, three of
		// four leaving together at 2,010.5 ms: the first's answer gives two rows their turn in the moment
		// the second's 401 begins the renewal. Those two go later, with the new token; counted in the
		// window as sent, they would push every later window's first request back (the window taken for
		// a log holding them until 3,021 ms) and the sheet would end 31 ms later.
		const { outcomes, calls, ms } = await sheet(
			60,
			25,
			{},
			{
				family: 'fixed-window',
				ratePerSecond: 10,
				burst: 10,
				limit: 10,
				windowMs: 1_000,
			},
		);
		expect(new Set(outcomes.map((outcome) => outcome.kind))).toEqual(new Set(['record']));
		expect(calls.filter(({ status }) => status === 401)).toHaveLength(3);
		const firstOfWindow = (from: number) => calls.find(({ at }) => at >= from)?.at;
		expect([firstOfWindow(2_500), firstOfWindow(3_500), firstOfWindow(4_500)]).toEqual([
			3_000, 4_000, 5_000,
		]);
		expect(ms).toBe(5_042);
	});
});

describe('a lookup whose turn comes in the moment the credential fails', () => {
	it('is not sent: it fails with the credential', async () => {
		// As above, but n8n's token exchange fails for row 1: row 2's
		// turn, given by row 0's answer in the same moment, is given back, and row 2 fails as row 1 does.
		const failure = { kind: 'credential', message: 'The token endpoint rejected the Client ID' };
		const { outcomes, calls } = await sheet(
			3,
			2,
			{ maxConcurrency: 2 },
			undefined,
			failure as RegistryAnswer,
		);
		expect(outcomes).toEqual([
			{ kind: 'record', record: expect.anything() },
			{ kind: 'failed', failure },
			{ kind: 'failed', failure },
		]);
		expect(calls.map(({ row }) => row)).toEqual([0, 1]);
	});
});

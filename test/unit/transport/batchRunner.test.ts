import type { LookupKey } from '../../../nodes/shared/model/lookupKey';
import {
	runBatch,
	type BatchSettings,
	type LookupOutcome,
} from '../../../nodes/shared/transport/batchRunner';
import { RateController } from '../../../nodes/shared/transport/rateControl';
import type { On401, RegistryAnswer } from '../../../nodes/shared/transport/registryRequest';
import { VirtualClock } from '../../../bench/sim/virtualClock';

// The batch runner against a stand-in for the one HTTP call: what it sends, and what each row gets. On
// the virtual clock: its waits (backoff, Retry-After, the breaker's cool-downs) pass in no real time.
const RECORD = { isRegistered: false, officialName: 'N/A', status: 'N/A', registrationDate: 'N/A' };
const ok = (body: unknown = RECORD): RegistryAnswer => ({
	kind: 'response',
	status: 200,
	headers: {},
	body,
});
const status = (code: number, headers: Record<string, string> = {}): RegistryAnswer => ({
	kind: 'response',
	status: code,
	headers,
	body: {},
});

const settings = (overrides: Partial<BatchSettings> = {}): BatchSettings => ({
	registryKey: `stand-in ${Math.random()}`,
	maxConcurrency: 5,
	maxRateLimitWaitMs: 1_000,
	maxAttempts: 3,
	...overrides,
});

const keys = (count: number, id = (index: number) => `ID${index}`): LookupKey[] =>
	Array.from({ length: count }, (_, index) => ({ countryCode: 'de', companyId: id(index) }));

async function run(
	rows: LookupKey[],
	answer: (key: LookupKey, on401: On401, sent: number) => RegistryAnswer,
	options: { tokenWasStored?: boolean; stop?: boolean; settings?: Partial<BatchSettings> } = {},
) {
	const calls: Array<{ key: LookupKey; on401: On401 }> = [];
	const clock = new VirtualClock();
	const outcomes = await clock.run(
		runBatch(
			rows.length,
			(index) => rows[index],
			settings(options.settings),
			{
				request: async (key, on401) => {
					calls.push({ key, on401 });
					await clock.sleep(1);
					return answer(key, on401, calls.length);
				},
				tokenWasStored: options.tokenWasStored ?? true,
				grantedScopes: async () => 'read:aml',
				reloadCredential: async () => {},
				clock,
			},
			{ stopAtFirstFailure: options.stop ?? false },
		),
	);
	return { outcomes: outcomes as LookupOutcome[], calls };
}

const kinds = (outcomes: LookupOutcome[]) =>
	outcomes.map((outcome) => (outcome.kind === 'failed' ? outcome.failure.kind : outcome.kind));

describe('batch runner', () => {
	beforeEach(() => RateController.forgetAll());

	it('sends identical keys once and gives every row its outcome, in order', async () => {
		const { outcomes, calls } = await run(
			keys(10, (index) => `ID${index % 3}`),
			() => ok(),
		);
		expect(calls).toHaveLength(3);
		expect(kinds(outcomes)).toEqual(Array(10).fill('record'));
	});

	it('renews a refused stored token once for all requests in flight, which then send again', async () => {
		let renewed = false;
		const { outcomes, calls } = await run(keys(12), (_key, on401) => {
			if (on401 === 'renew') renewed = true;
			return renewed ? ok() : status(401);
		});
		expect(kinds(outcomes)).toEqual(Array(12).fill('record'));
		expect(calls.filter((call) => call.on401 === 'renew')).toHaveLength(1);
	});

	it('fails every row at once when a token fetched for this run is refused: one request', async () => {
		const { outcomes, calls } = await run(keys(20), () => status(401), { tokenWasStored: false });
		expect(kinds(outcomes)).toEqual(Array(20).fill('token-refused'));
		expect(calls).toHaveLength(1);
	});

	it('retries a transient failure and stops at Max Attempts, saying how often it tried', async () => {
		const tries = new Map<string, number>();
		const { outcomes } = await run(keys(2), (key) => {
			const count = (tries.get(key.companyId) ?? 0) + 1;
			tries.set(key.companyId, count);
			return key.companyId === 'ID0' && count === 1
				? status(503)
				: key.companyId === 'ID1'
					? status(500)
					: ok();
		});
		expect(kinds(outcomes)).toEqual(['record', 'http']);
		expect(tries.get('ID0')).toBe(2);
		expect(tries.get('ID1')).toBe(3);
		expect(outcomes[1]).toMatchObject({ failure: { status: 500, attempts: 3 } });
	});

	it('under Stop, the first failure cancels what was not sent yet', async () => {
		const { outcomes, calls } = await run(
			keys(40),
			(key) => (key.companyId === 'ID0' ? status(404) : ok()),
			{
				stop: true,
				settings: { maxConcurrency: 1 },
			},
		);
		expect(outcomes[0]).toMatchObject({ kind: 'failed', failure: { status: 404 } });
		expect(calls.length).toBeLessThan(5);
		expect(kinds(outcomes).filter((kind) => kind === 'cancelled').length).toBeGreaterThan(30);
	});

	it('a 429 with Retry-After 0 forever spends the wait budget with a floor under each delay: a handful of requests', async () => {
		const { outcomes, calls } = await run(keys(1), () => status(429, { 'retry-after': '0' }));
		expect(kinds(outcomes)).toEqual(['rate-limited']);
		expect(calls.length).toBeLessThanOrEqual(6);
	});

	it('a registry that fails everything trips the breaker: every row fails with one failure, few requests', async () => {
		const { outcomes, calls } = await run(
			keys(200),
			() => ({ kind: 'no-response', reason: 'network', code: 'ECONNREFUSED' }),
			{
				settings: { maxConcurrency: 20 },
			},
		);
		expect(new Set(kinds(outcomes))).toEqual(new Set(['registry-down']));
		expect(calls.length).toBeLessThan(50);
	});

	it('a failed token exchange fails the rest without sending', async () => {
		const { outcomes, calls } = await run(
			keys(10),
			() => ({ kind: 'credential', message: 'The token endpoint rejected the Client ID' }),
			{
				tokenWasStored: false,
			},
		);
		expect(new Set(kinds(outcomes))).toEqual(new Set(['credential']));
		expect(calls).toHaveLength(1);
	});

	it('a 403 carries the scopes the token was granted', async () => {
		const { outcomes } = await run(keys(1), () => status(403));
		expect(outcomes[0]).toMatchObject({
			kind: 'failed',
			failure: { kind: 'forbidden', grantedScopes: 'read:aml' },
		});
	});
});

describe("batch runner, when the breaker's probe meets a refused token", () => {
	beforeEach(() => RateController.forgetAll());

	it('ends: every row fails with the token message, none waits for a verdict that never comes', async () => {
		let calls = 0;
		const rows = keys(30);
		const clock = new VirtualClock();
		const outcomes = await clock.run(
			runBatch(
				rows.length,
				(index) => rows[index],
				settings({ maxConcurrency: 20 }),
				{
					request: async () => {
						calls += 1;
						await clock.sleep(1);
						// The first tries all fail without an answer (the breaker opens); the probe meets a 401.
						return calls <= 15
							? { kind: 'no-response', reason: 'network', code: 'ECONNRESET' }
							: status(401);
					},
					tokenWasStored: false,
					grantedScopes: async () => undefined,
					reloadCredential: async () => {},
					clock,
				},
				{ stopAtFirstFailure: false },
			),
		);
		expect(outcomes).toHaveLength(30);
		expect(new Set(kinds(outcomes as LookupOutcome[]))).toEqual(new Set(['token-refused']));
	});
});

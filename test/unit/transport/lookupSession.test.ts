import type { LookupKey } from '../../../nodes/shared/model/lookupKey';
import {
	runBatch,
	type BatchSettings,
	type LookupOutcome,
} from '../../../nodes/shared/transport/batchRunner';
import { RateController } from '../../../nodes/shared/transport/rateControl';
import type { On401, RegistryAnswer } from '../../../nodes/shared/transport/registryRequest';
import { VirtualClock } from '../../../bench/sim/virtualClock';

// One execution's lookups (lookupSession.ts) against a stand-in for the one HTTP call, on the virtual
// clock: what each kind of answer makes of its row, and what the session's shared parts (the token, the
// retry budget, the credential read again) do across rows. batchRunner.test.ts tells the runner's part.

const RECORD = { isRegistered: false, officialName: 'N/A', status: 'N/A', registrationDate: 'N/A' };
const ok: RegistryAnswer = { kind: 'response', status: 200, headers: {}, body: RECORD };
const status = (
	code: number,
	headers: Record<string, string> = {},
	body: unknown = {},
): RegistryAnswer => ({ kind: 'response', status: code, statusMessage: `s${code}`, headers, body });
const noAnswer: RegistryAnswer = { kind: 'no-response', reason: 'network', code: 'ECONNRESET' };

type Script = (key: LookupKey, on401: On401, call: number) => RegistryAnswer;

async function run(
	rows: number,
	script: Script,
	options: {
		tokenWasStored?: boolean;
		settings?: Partial<BatchSettings>;
		stopAfterMs?: number;
		random?: () => number;
	} = {},
) {
	RateController.forgetAll();
	const calls: Array<{ key: LookupKey; on401: On401; at: number }> = [];
	let reloads = 0;
	let scopesAsked = 0;
	const clock = new VirtualClock();
	const cancel = new AbortController();
	const keys = Array.from({ length: rows }, (_, index) => ({
		countryCode: 'de',
		companyId: `ID${index}`,
	}));
	const outcomes = (await clock.run(
		runBatch(
			rows,
			(index) => keys[index],
			{
				registryKey: `session ${Math.random()}`,
				maxConcurrency: 4,
				maxRateLimitWaitMs: 10_000,
				maxAttempts: 3,
				...options.settings,
			},
			{
				request: async (key, on401) => {
					// The execution is stopped so long after its first request.
					if (calls.length === 0 && options.stopAfterMs !== undefined)
						void clock.sleep(options.stopAfterMs).then(() => cancel.abort());
					calls.push({ key, on401, at: clock.now() });
					await clock.sleep(10);
					return script(key, on401, calls.length);
				},
				tokenWasStored: options.tokenWasStored ?? true,
				cancelSignal: cancel.signal,
				grantedScopes: async () => {
					scopesAsked++;
					return 'read:aml';
				},
				reloadCredential: async () => {
					reloads++;
					await clock.sleep(5);
				},
				clock,
				random: options.random ?? (() => 0.5),
			},
			{ stopAtFirstFailure: false },
		),
	)) as LookupOutcome[];
	return { outcomes, calls, reloads, scopesAsked: () => scopesAsked, ms: clock.now() };
}

const failureOf = (outcome: LookupOutcome) =>
	outcome.kind === 'failed' ? outcome.failure : undefined;

describe('what each answer makes of its row', () => {
	it.each([
		[{ kind: 'oversized', limitBytes: 65_536 } as RegistryAnswer],
		[{ kind: 'undecodable', status: 200, code: 'Z_DATA_ERROR' } as RegistryAnswer],
	])('%j fails its row as it is, once asked', async (answer) => {
		const { outcomes, calls } = await run(1, () => answer);
		expect(failureOf(outcomes[0])).toEqual(answer);
		expect(calls).toHaveLength(1);
	});

	it('a 200 that breaks the record contract fails as the contract', async () => {
		const { outcomes } = await run(1, () => status(200, {}, { isRegistered: 'yes' }));
		expect(failureOf(outcomes[0])).toMatchObject({ kind: 'contract' });
	});

	it.each([300, 301, 302, 307, 308, 399])(
		'a %i is a redirect, with where it points, not followed nor asked again',
		async (code) => {
			const { outcomes, calls } = await run(1, () => status(code, { location: '/elsewhere' }));
			expect(failureOf(outcomes[0])).toEqual({
				kind: 'redirect',
				status: code,
				location: '/elsewhere',
			});
			expect(calls).toHaveLength(1);
		},
	);

	it.each([304, 400, 404, 299, 201])(
		'a %i is the answer it is: fails with its status, once asked',
		async (code) => {
			const { outcomes, calls } = await run(1, () => status(code, {}, 'text'));
			expect(failureOf(outcomes[0])).toEqual({
				kind: 'http',
				status: code,
				statusMessage: `s${code}`,
				body: 'text',
				attempts: 1,
			});
			expect(calls).toHaveLength(1);
		},
	);

	it('a 403 that is no rate limit asks for the scopes the token was granted', async () => {
		const { outcomes, scopesAsked } = await run(1, () => status(403, {}, { message: 'no' }));
		expect(failureOf(outcomes[0])).toEqual({
			kind: 'forbidden',
			body: { message: 'no' },
			grantedScopes: 'read:aml',
		});
		expect(scopesAsked()).toBe(1);
	});

	it.each([
		[420, {}],
		[403, { 'retry-after': '1' }],
		[429, {}],
	])('a %i for the rate limit is waited out, then the row is looked up', async (code, headers) => {
		const { outcomes, calls } = await run(1, (_key, _on401, call) =>
			call === 1 ? status(code, headers) : ok,
		);
		expect(outcomes[0].kind).toBe('record');
		expect(calls).toHaveLength(2);
	});

	it("a 503's Retry-After is waited for before the next try; a 502's is not", async () => {
		const asked = async (code: number) => {
			const { calls } = await run(1, (_key, _on401, call) =>
				call === 1 ? status(code, { 'retry-after': '3' }) : ok,
			);
			return calls[1].at - calls[0].at;
		};
		expect(await asked(503)).toBeGreaterThanOrEqual(3_000);
		expect(await asked(502)).toBeLessThan(1_000);
	});

	it('no answer is tried again, and told with its tries', async () => {
		const { outcomes, calls } = await run(1, () => noAnswer);
		expect(failureOf(outcomes[0])).toEqual({
			kind: 'no-response',
			reason: 'network',
			code: 'ECONNRESET',
			attempts: 3,
		});
		expect(calls).toHaveLength(3);
	});

	it('a token refused for good when renewing fails every row with the refusal', async () => {
		const { outcomes, calls } = await run(3, (_key, on401) =>
			on401 === 'renew' ? { kind: 'token-refused', status: 401, tokenBytes: 30 } : status(401),
		);
		for (const outcome of outcomes)
			expect(failureOf(outcome)).toEqual({
				kind: 'token-refused',
				status: 401,
				renewed: true,
				tokenBytes: 30,
			});
		expect(calls.filter((call) => call.on401 === 'renew')).toHaveLength(1);
	});

	// Red team (redteam/shortLivedToken.test.ts): a token of `expires_in: 1` may expire on its way.
	it('a new token refused after the registry accepted this credential: another is fetched, and the row answered', async () => {
		let renewals = 0;
		// Row 0 is answered with the stored token; then it expires, and the first new token too.
		const { outcomes } = await run(
			2,
			(_key, on401, call) => {
				if (call === 1) return ok;
				if (on401 === 'renew')
					return ++renewals === 1 ? { kind: 'token-refused', status: 401, tokenBytes: 30 } : ok;
				return status(401);
			},
			{ settings: { maxConcurrency: 1 } },
		);
		expect(outcomes.map((outcome) => outcome.kind)).toEqual(['record', 'record']);
		expect(renewals).toBe(2);
	});

	it('a 413 on a token fetched for this run: refused at once, naming its size', async () => {
		const { outcomes } = await run(
			1,
			() => ({ ...status(413), tokenBytes: 9_000 }) as RegistryAnswer,
			{ tokenWasStored: false },
		);
		expect(failureOf(outcomes[0])).toEqual({
			kind: 'token-refused',
			status: 413,
			renewed: false,
			tokenBytes: 9_000,
		});
	});

	it('a renewal that got no answer changes nothing: the others send again and may renew again', async () => {
		let renewals = 0;
		const { outcomes } = await run(2, (_key, on401) => {
			if (on401 === 'renew') return ++renewals === 1 ? noAnswer : ok;
			return renewals >= 2 ? ok : status(401);
		});
		expect(outcomes.map((outcome) => outcome.kind)).toEqual(['record', 'record']);
		expect(renewals).toBe(2);
	});
});

describe("what the session's lookups share", () => {
	it('a credential that held no token is read again once, before the first request', async () => {
		const { reloads, outcomes } = await run(6, () => ok, { tokenWasStored: false });
		expect(reloads).toBe(1);
		expect(outcomes.every((outcome) => outcome.kind === 'record')).toBe(true);
	});

	it('one that held a token is not read again', async () => {
		const { reloads } = await run(3, () => ok);
		expect(reloads).toBe(0);
	});

	/** 600 rows, one in five failing every try with `failure`, the others answered: its retries. */
	const retriesOfEveryFifth = async (failure: RegistryAnswer) => {
		const { calls } = await run(
			600,
			(key) => (Number(key.companyId.slice(2)) % 5 === 0 ? failure : ok),
			{ settings: { maxConcurrency: 1 } },
		);
		return calls.length - 600;
	};

	it('the retry budget, refilled by answers, ends the retries of rows that keep failing', async () => {
		// 120 failing rows, 2 retries each if the budget paid them all (240). A retry costs 5 of a budget
		// of 500, each answer gives 1 back: more than the 100 retries an unrefilled budget pays, not all.
		const retries = await retriesOfEveryFifth(status(500));
		expect(retries).toBeGreaterThan(150);
		expect(retries).toBeLessThan(240);
	});

	it('a timeout costs the budget twice what another failure does', async () => {
		const afterResets = await retriesOfEveryFifth(noAnswer);
		const afterTimeouts = await retriesOfEveryFifth({
			kind: 'no-response',
			reason: 'timeout',
			code: 'ETIMEDOUT',
		});
		expect(afterTimeouts).toBeLessThan(afterResets - 50);
	});

	it('an execution stopped while rows wait: the rest are cancelled, none sent after it', async () => {
		const { outcomes, calls } = await run(40, () => status(429, { 'retry-after': '5' }), {
			stopAfterMs: 1_000,
		});
		expect(new Set(outcomes.map((outcome) => outcome.kind))).toEqual(new Set(['cancelled']));
		expect(calls.filter((call) => call.at - calls[0].at >= 1_000)).toEqual([]);
	});
});

// Review of outside3 (tokenRenewal.ts, MAX_REFUSED_RENEWALS): a registry that accepted the stored
// token, then refuses every new one (401), and throttles the clients it refuses (most renewals meet a
// 429 before the token is read). A renewal answered with any response is finished 'renewed': the 429
// marks the new token accepted and starts the refused count again, so three are never refused in a
// row. Each row fetches tokens until its own rate-limited tries end (it fails as rate-limited, not as
// the token), then the next row does the same: 71 tokens for 10 rows, 231 for 30. Before outside3 the
// first refused new token failed every row (8 fetched, whatever the rows).
// Run: npx jest test/unit/transport/lookupSession.test.ts -t 'review of outside3'
describe('review of outside3: new tokens refused, most renewals throttled', () => {
	const tokensFetched = async (rows: number) => {
		let renewals = 0;
		await run(
			rows,
			(_key, on401, call) => {
				if (call === 1) return ok;
				if (on401 === 'renew')
					return ++renewals % 8 !== 0
						? status(429)
						: { kind: 'token-refused', status: 401, tokenBytes: 30 };
				return status(401);
			},
			{ settings: { maxConcurrency: 1, maxRateLimitWaitMs: 60_000 } },
		);
		return renewals;
	};

	it('fetches as many tokens for 30 rows as for 10: a bound for the execution, not one per row', async () => {
		expect(await tokensFetched(30)).toBe(await tokensFetched(10));
	});
});

import {
	runBatch,
	type BatchSettings,
	type LookupOutcome,
} from '../../../nodes/shared/transport/batchRunner';
import { RateController } from '../../../nodes/shared/transport/rateControl';
import type { On401, RegistryAnswer } from '../../../nodes/shared/transport/registryRequest';
import { VirtualClock } from '../../../bench/sim/virtualClock';

// The session's edges (lookupSession.ts) the mutation run showed untold: a stop while lookups wait, the
// controller let go of, the rate-limit wait budget of a lookup held by another's Retry-After, tokens
// refused again and again, a renewal that met no answer. A stand-in for the one HTTP call, on the virtual clock.

const RECORD = { isRegistered: false, officialName: 'N/A', status: 'N/A', registrationDate: 'N/A' };
const ok: RegistryAnswer = { kind: 'response', status: 200, headers: {}, body: RECORD };
const status = (code: number, headers: Record<string, string> = {}): RegistryAnswer => ({
	kind: 'response',
	status: code,
	statusMessage: `s${code}`,
	headers,
	body: {},
});

/** What the registry answers: to which row, in which mode, its how-manieth request, when (ms since the start). */
type Script = (ask: {
	row: number;
	on401: On401;
	call: number;
	rowCall: number;
	at: number;
}) => RegistryAnswer;

async function run(
	rows: number,
	script: Script,
	options: {
		tokenWasStored?: boolean;
		settings?: Partial<BatchSettings>;
		stopAfterMs?: number;
		/** How long the registry takes to answer a row (10 ms unless said). */
		latencyMs?: (row: number, on401: On401) => number;
	} = {},
) {
	RateController.forgetAll();
	const calls: Array<{ row: number; on401: On401; at: number }> = [];
	const clock = new VirtualClock();
	const start = clock.now();
	const cancel = new AbortController();
	if (options.stopAfterMs !== undefined)
		void clock.sleep(options.stopAfterMs).then(() => cancel.abort());
	const registryKey = `session edges ${Math.random()}`;
	const outcomes = (await clock.run(
		runBatch(
			rows,
			(index) => ({ countryCode: 'de', companyId: `ID${index}` }),
			{
				registryKey,
				maxConcurrency: 4,
				maxRateLimitWaitMs: 10_000,
				maxAttempts: 3,
				...options.settings,
			},
			{
				request: async (key, on401) => {
					const row = Number(key.companyId.slice(2));
					const at = clock.now() - start;
					calls.push({ row, on401, at });
					const rowCall = calls.filter((call) => call.row === row).length;
					await clock.sleep(options.latencyMs?.(row, on401) ?? 10);
					return script({ row, on401, call: calls.length, rowCall, at });
				},
				tokenWasStored: options.tokenWasStored ?? true,
				cancelSignal: cancel.signal,
				grantedScopes: async () => 'read:aml',
				reloadCredential: async () => {},
				clock,
				random: () => 0.5,
			},
			{ stopAtFirstFailure: false },
		),
	)) as LookupOutcome[];
	return { outcomes, calls, elapsedMs: clock.now() - start, clock, registryKey };
}

const failureOf = (outcome: LookupOutcome) =>
	outcome.kind === 'failed' ? outcome.failure : undefined;
const kinds = (outcomes: LookupOutcome[]) =>
	outcomes.map((outcome) => (outcome.kind === 'failed' ? outcome.failure.kind : outcome.kind));

describe('an execution stopped', () => {
	it('while lookups queue at the rate controller: it ends at the stop, not when their turns come', async () => {
		// Max Requests per Second 1: the rows in hand wait their turns, seconds apart.
		const { outcomes, calls, elapsedMs } = await run(20, () => ok, {
			stopAfterMs: 1_500,
			settings: { maxRequestsPerSecond: 1 },
		});
		expect(calls.length).toBeLessThanOrEqual(2);
		expect(new Set(kinds(outcomes.slice(calls.length)))).toEqual(new Set(['cancelled']));
		expect(elapsedMs).toBe(1_500);
	});
});

describe('the rate controller after the execution', () => {
	it('is let go of: an idle registry starts unknown again for the next execution', async () => {
		const { clock, registryKey } = await run(3, () => ok);
		const after = RateController.for(registryKey, clock);
		await clock.run(clock.sleep(11 * 60_000));
		expect(RateController.for(registryKey, clock)).not.toBe(after);
	});
});

describe("a lookup's wait for the rate limit", () => {
	it('one that met a 429, held longer than its Max Rate-Limit Wait: fails at once as rate-limited', async () => {
		// A first 429 with no Retry-After: the row's own wait is a backoff (750 ms), the controller holds
		// everybody for FIRST_PAUSE_MAX_MS (1 s), past the row's Max Rate-Limit Wait (900 ms from its 429).
		const { outcomes, calls } = await run(1, ({ rowCall }) => (rowCall > 1 ? ok : status(429)), {
			settings: { maxRateLimitWaitMs: 900 },
		});
		expect(failureOf(outcomes[0])).toEqual({
			kind: 'rate-limited',
			waitedMs: 750,
			retryAfterMs: 240,
			status: 429,
		});
		expect(calls).toHaveLength(1);
	});
});

describe('what one answer makes of its row', () => {
	it('a request the execution ended (cancelled) is the row cancelled, not a failure', async () => {
		const { outcomes, calls } = await run(1, () => ({ kind: 'cancelled' }));
		expect(outcomes).toEqual([{ kind: 'cancelled' }]);
		expect(calls).toHaveLength(1);
	});

	it('a first request leaves a 401 to the node (answer), the renewal to n8n (renew)', async () => {
		const { calls } = await run(1, ({ rowCall }) => (rowCall === 1 ? status(401) : ok));
		expect(calls.map((call) => call.on401)).toEqual(['answer', 'renew']);
	});

	it("a 429's own wait (no Retry-After: a backoff) is waited before the next try", async () => {
		const { calls } = await run(1, ({ rowCall }) => (rowCall <= 3 ? status(429) : ok));
		// The third 429's backoff (3 s: its ceiling of 4 s at chance 0.5) outlasts the controller's pause.
		expect(calls.map((call) => call.at)).toEqual([0, 1_000, 2_510, 5_520]);
	});
});

describe('the token across rows', () => {
	it('one fetched for this run and accepted, then refused mid-sheet: renewed once, the rows go on', async () => {
		const { outcomes, calls } = await run(
			6,
			({ call, on401 }) => (on401 === 'answer' && call >= 3 && call <= 4 ? status(401) : ok),
			{ tokenWasStored: false, settings: { maxConcurrency: 1 } },
		);
		expect(new Set(kinds(outcomes))).toEqual(new Set(['record']));
		expect(calls.filter((call) => call.on401 === 'renew')).toHaveLength(1);
	});

	it('a request sent with the old token, refused after the renewal was answered: sent again, no second renewal', async () => {
		// Row 1 answers slowly: its 401 comes back after row 0 renewed the token.
		const { outcomes, calls } = await run(
			2,
			({ on401, rowCall }) => (on401 === 'answer' && rowCall === 1 ? status(401) : ok),
			{ latencyMs: (row) => (row === 1 ? 50 : 10) },
		);
		expect(kinds(outcomes)).toEqual(['record', 'record']);
		expect(calls.map((call) => [call.row, call.on401])).toEqual([
			[0, 'answer'],
			[1, 'answer'],
			[0, 'renew'],
			[1, 'answer'],
		]);
	});

	it('a request sent with the token refused for good, its 401 late: fails with the refusal, no second renewal', async () => {
		const { outcomes, calls } = await run(
			2,
			({ on401 }) =>
				on401 === 'renew' ? { kind: 'token-refused', status: 401, tokenBytes: 30 } : status(401),
			{ latencyMs: (row) => (row === 1 ? 50 : 10) },
		);
		expect(new Set(kinds(outcomes))).toEqual(new Set(['token-refused']));
		expect(calls.filter((call) => call.on401 === 'renew')).toHaveLength(1);
	});

	it('a renewal that met no answer renews nothing: a 401 that comes back after it to the first token renews again', async () => {
		// Row 1 answers slowly: its 401 comes back after row 0's renewal ended without an answer (so the
		// token may be the first one still): it renews itself, rather than sending again with that one.
		let renewals = 0;
		const { outcomes, calls } = await run(
			2,
			({ on401, row, rowCall }) =>
				on401 === 'renew'
					? ++renewals === 1
						? { kind: 'no-response', reason: 'timeout', code: 'ETIMEDOUT' }
						: ok
					: row === 1 || rowCall === 1
						? status(401)
						: ok,
			{ latencyMs: (row) => (row === 1 ? 50 : 10) },
		);
		expect(kinds(outcomes)).toEqual(['record', 'record']);
		expect(calls.filter((call) => call.row === 1).map((call) => call.on401)).toEqual([
			'answer',
			'renew',
		]);
	});

	it('a 401 to every request, each with a token renewed meanwhile: resent three times, then refused', async () => {
		// Row 0 answers slowly: each of its 401s comes back after a faster row renewed the token again.
		const { outcomes, calls } = await run(
			40,
			({ on401 }) => (on401 === 'renew' ? ok : status(401)),
			{
				latencyMs: (row, on401) => (row === 0 && on401 === 'answer' ? 100 : 10),
			},
		);
		expect(failureOf(outcomes[0])).toEqual({ kind: 'token-refused', status: 401, renewed: true });
		expect(calls.filter((call) => call.row === 0).map((call) => call.on401)).toEqual([
			'answer',
			'answer',
			'answer',
			'answer',
		]);
	});
});

describe('the breaker and the retry budget read only what tells', () => {
	it("the retries of the few rows that keep failing at a sheet's end do not trip the breaker", async () => {
		// 10 rows answered, then 6 that fail every try: 18 failures, of which only the 6 first tries count.
		const { outcomes } = await run(16, ({ row }) => (row < 10 ? ok : status(500)), {
			settings: { maxConcurrency: 1 },
		});
		expect(kinds(outcomes)).toEqual([
			...Array<string>(10).fill('record'),
			...Array<string>(6).fill('http'),
		]);
	});

	it('an answer that could not be read (undecodable) refills no retry budget', async () => {
		// 120 rows failing with 500s among 480 undecodable answers: the budget (500, 5 a retry) pays 100 retries.
		const { calls } = await run(
			600,
			({ row }) =>
				row % 5 === 0 ? status(500) : { kind: 'undecodable', status: 200, code: 'Z_DATA_ERROR' },
			{ settings: { maxConcurrency: 1 } },
		);
		expect(calls.length - 600).toBe(100);
	});
});

describe('a renewal', () => {
	it('stopped while the renewing request waits its turn: not sent, the row cancelled', async () => {
		// Max Requests per Second 1: the renewal's turn is a second after the 401; the stop comes first.
		const { outcomes, calls } = await run(1, () => status(401), {
			stopAfterMs: 500,
			settings: { maxRequestsPerSecond: 1 },
		});
		expect(outcomes).toEqual([{ kind: 'cancelled' }]);
		expect(calls.map((call) => call.on401)).toEqual(['answer']);
	});

	it('waiting its turn when a 401 to a request sent before it comes back: it still goes, and both rows are answered', async () => {
		// Max Requests per Second 1. Row 0 leaves first and is slow; row 1's 401 at 1,010 ms begins the
		// renewal, whose turn is at 2,000 ms. Row 0's 401 at 1,500 ms (the old token) only sends again
		// after the renewal: it takes nothing from the renewal's place in the queue.
		const { outcomes, calls } = await run(
			2,
			({ on401, rowCall }) => (on401 === 'answer' && rowCall === 1 ? status(401) : ok),
			{
				settings: { maxRequestsPerSecond: 1 },
				latencyMs: (row, on401) => (row === 0 && on401 === 'answer' ? 1_500 : 10),
			},
		);
		expect(kinds(outcomes)).toEqual(['record', 'record']);
		expect(calls.map(({ row, on401, at }) => [row, on401, at])).toEqual([
			[0, 'answer', 0],
			[1, 'answer', 1_000],
			[1, 'renew', 2_000],
			[0, 'answer', 3_000],
		]);
	});
});

describe('the credential failing while rows queue for their turn', () => {
	it.each([
		['the token refused for good', status(401)],
		[
			'the token exchange failing',
			{
				kind: 'credential',
				message: 'The token endpoint rejected the Client ID',
			} as RegistryAnswer,
		],
	])(
		'%s: every row fails at its answer, none waits its turn to fail unsent',
		async (_name, answer) => {
			// Max Requests per Second 1, no token stored: the first request goes alone and its answer fails
			// the credential. The nine rows queued behind it would each take a second's turn only to give it
			// back unsent.
			const { outcomes, calls, elapsedMs } = await run(10, () => answer, {
				tokenWasStored: false,
				settings: { maxRequestsPerSecond: 1 },
			});
			expect(new Set(kinds(outcomes))).toEqual(
				new Set([answer.kind === 'credential' ? 'credential' : 'token-refused']),
			);
			expect(calls).toHaveLength(1);
			expect(elapsedMs).toBe(10);
		},
	);
});

describe('a row waiting out a 429 when the execution stops', () => {
	it('is cancelled, though the credential failed for another row meanwhile', async () => {
		const { outcomes, calls } = await run(
			2,
			({ row }) =>
				row === 0
					? status(429, { 'retry-after': '5' })
					: { kind: 'credential', message: 'The token endpoint rejected the Client ID' },
			{ stopAfterMs: 1_000 },
		);
		expect(kinds(outcomes)).toEqual(['cancelled', 'credential']);
		expect(calls).toHaveLength(2);
	});
});

describe('a registry that admits none of the execution’s lookups (refusalStreak.ts)', () => {
	const refusedThroughout = (outcome: LookupOutcome) => {
		const failure = failureOf(outcome);
		return failure?.kind === 'rate-limited' && failure.refusedThroughout === true;
	};

	it.each([
		['no Retry-After', {}],
		['Retry-After: 1', { 'retry-after': '1' }],
	])(
		'refusing everything (%s): every row fails within about the Max Rate-Limit Wait, and none is sent after',
		async (_name, headers) => {
			// 100 rows, a minute's wait: each row waiting its own turn and its own minute took 12 minutes.
			const { outcomes, calls, elapsedMs } = await run(100, () => status(429, headers), {
				settings: { maxRateLimitWaitMs: 60_000 },
			});
			expect(new Set(kinds(outcomes))).toEqual(new Set(['rate-limited']));
			expect(outcomes.filter(refusedThroughout).length).toBeGreaterThan(50);
			expect(elapsedMs).toBeGreaterThanOrEqual(60_000);
			expect(elapsedMs).toBeLessThan(75_000);
			// Given up on the first refusal a minute after the first: no request after that one's answer.
			const givingUp = calls.find((call) => call.at >= 60_000 - 10)!;
			expect(calls.filter((call) => call.at > givingUp.at)).toEqual([]);
			expect(calls.length).toBeLessThan(60);
		},
	);

	it('a raised Max Rate-Limit Wait is waited in full before the rows are given up', async () => {
		const { outcomes, elapsedMs } = await run(30, () => status(429), {
			settings: { maxRateLimitWaitMs: 300_000 },
		});
		expect(outcomes.some(refusedThroughout)).toBe(true);
		expect(new Set(kinds(outcomes))).toEqual(new Set(['rate-limited']));
		expect(elapsedMs).toBeGreaterThanOrEqual(300_000);
		expect(elapsedMs).toBeLessThan(330_000);
	});

	it('refusing for 50 s, then admitting (a window spent before the run): nothing is given up', async () => {
		const { outcomes } = await run(30, ({ at }) => (at < 50_000 ? status(429) : ok), {
			settings: { maxRateLimitWaitMs: 60_000 },
		});
		expect(new Set(kinds(outcomes))).toEqual(new Set(['record']));
	});

	it('a token renewal under way at the give-up: no lookup waiting for it is sent after', async () => {
		// The token expires at about 59.6 s (one 401); the renewal's resend (a second late) meets the 429
		// that gives the execution up. The lookups waiting for the renewal then take turns: none is sent.
		let expired = false;
		const { outcomes, calls } = await run(
			40,
			({ at, on401 }) => {
				if (on401 === 'answer' && at >= 59_500 && !expired) return ((expired = true), status(401));
				return status(429);
			},
			{
				settings: { maxRateLimitWaitMs: 60_000 },
				latencyMs: (_row, on401) => (on401 === 'renew' ? 1_000 : 10),
			},
		);
		// The renewal's resend is answered a second after it is sent: the give-up.
		const renewal = calls.find((call) => call.on401 === 'renew')!;
		expect(renewal.at).toBeGreaterThan(59_500);
		expect(calls.filter((call) => call.at > renewal.at + 1_000)).toEqual([]);
		expect(new Set(kinds(outcomes))).toEqual(new Set(['rate-limited']));
		expect(outcomes).toHaveLength(40);
	});

	it.each<[string, RegistryAnswer]>([
		['an answer too large to read', { kind: 'oversized', limitBytes: 65_536 }],
		['an answer not decodable', { kind: 'undecodable', status: 200, code: 'Z_DATA_ERROR' }],
	])(
		'%s is a request let through: the execution is not given up after it',
		async (_name, through) => {
			// Every 4th row's first answer passes the limit but cannot be read; the rest are refused until
			// 70 s, then answered.
			const { outcomes } = await run(
				12,
				({ row, rowCall, at }) =>
					row % 4 === 0 && rowCall === 1 ? through : at < 70_000 ? status(429) : ok,
				{ settings: { maxRateLimitWaitMs: 120_000 } },
			);
			expect(outcomes.some(refusedThroughout)).toBe(false);
		},
	);

	it('let through once, then refused for minutes (a window other clients spend): only the lookups’ own waits decide', async () => {
		const { outcomes, elapsedMs } = await run(
			30,
			({ row, rowCall, at }) => ((row < 2 && rowCall === 1) || at >= 150_000 ? ok : status(429)),
			{ settings: { maxRateLimitWaitMs: 60_000 } },
		);
		expect(outcomes.some(refusedThroughout)).toBe(false);
		expect(elapsedMs).toBeGreaterThan(60_000);
	});

	it('an admission now and then keeps the execution going: only the rows refused for their own wait fail', async () => {
		// One request admitted at least 30 s after the last admitted: the streaks stay short of the minute.
		let admittedAt = Number.NEGATIVE_INFINITY;
		const { outcomes, elapsedMs } = await run(
			40,
			({ at }) => (at - admittedAt >= 30_000 ? ((admittedAt = at), ok) : status(429)),
			{ settings: { maxRateLimitWaitMs: 60_000 } },
		);
		expect(outcomes.some(refusedThroughout)).toBe(false);
		expect(kinds(outcomes)).toContain('record');
		expect(elapsedMs).toBeGreaterThan(120_000);
	});
});

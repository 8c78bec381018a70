import {
	runBatch,
	type BatchSettings,
	type LookupOutcome,
} from '../../../nodes/shared/transport/batchRunner';
import { RateController } from '../../../nodes/shared/transport/rateControl';
import type { On401, RegistryAnswer } from '../../../nodes/shared/transport/registryRequest';
import { VirtualClock } from '../../../bench/sim/virtualClock';

// The breaker's half-open probe inside a session (lookupSession.ts): what it does when the rate limit
// holds it, when it is given back unsent, when it meets a 401 to a token renewed meanwhile, and what
// the rows waiting for its verdict then do. A stand-in for the one HTTP call, on the virtual clock.

const RECORD = { isRegistered: false, officialName: 'N/A', status: 'N/A', registrationDate: 'N/A' };
const ok: RegistryAnswer = { kind: 'response', status: 200, headers: {}, body: RECORD };
const status = (code: number, headers: Record<string, string> = {}): RegistryAnswer => ({
	kind: 'response',
	status: code,
	statusMessage: `s${code}`,
	headers,
	body: {},
});

/** What the registry answers: to which row, in which mode, its how-manieth request for the row, when. */
type Script = (ask: { row: number; on401: On401; rowCall: number; at: number }) => RegistryAnswer;

async function run(
	rows: number,
	script: Script,
	options: {
		settings?: Partial<BatchSettings>;
		/** How long the registry takes to answer a row (10 ms unless said). */
		latencyMs?: (row: number, on401: On401, rowCall: number) => number;
	} = {},
) {
	RateController.forgetAll();
	const calls: Array<{ row: number; on401: On401; at: number }> = [];
	const clock = new VirtualClock();
	const start = clock.now();
	const outcomes = (await clock.run(
		runBatch(
			rows,
			(index) => ({ countryCode: 'de', companyId: `ID${index}` }),
			{
				registryKey: `probe ${Math.random()}`,
				maxConcurrency: 4,
				maxRateLimitWaitMs: 10_000,
				maxAttempts: 1,
				...options.settings,
			},
			{
				request: async (key, on401) => {
					const row = Number(key.companyId.slice(2));
					const at = clock.now() - start;
					calls.push({ row, on401, at });
					const rowCall = calls.filter((call) => call.row === row).length;
					await clock.sleep(options.latencyMs?.(row, on401, rowCall) ?? 10);
					return script({ row, on401, rowCall, at });
				},
				tokenWasStored: true,
				cancelSignal: new AbortController().signal,
				grantedScopes: async () => 'read:aml',
				reloadCredential: async () => {},
				clock,
				random: () => 0.5,
			},
			{ stopAtFirstFailure: false },
		),
	)) as LookupOutcome[];
	return { outcomes, calls };
}

const kinds = (outcomes: LookupOutcome[]) =>
	outcomes.map((outcome) => (outcome.kind === 'failed' ? outcome.failure.kind : outcome.kind));

describe('a probe the rate limit holds past Max Rate-Limit Wait', () => {
	it('is no verdict: the rows behind it fail as rate-limited at once, as they would without the breaker, not as the registry down', async () => {
		// Rows 1-12 fail with 500s (one attempt each): the breaker opens at 400 ms for 1 s. Row 0, sent at
		// the start and slow, meets a 429 at 1,200 ms saying the window resets in 30 s, past a Max
		// Rate-Limit Wait of 500 ms: whoever waits now for a turn fails as rate-limited. The probe at
		// 1,400 ms is held too, unsent: that says nothing of an outage, so the next row probes at once.
		const { outcomes, calls } = await run(
			22,
			({ row }) =>
				row === 0
					? status(429, {
							'x-ratelimit-limit': '100',
							'x-ratelimit-remaining': '0',
							'x-ratelimit-reset': '30',
						})
					: row <= 12
						? status(500)
						: ok,
			{
				settings: { maxRateLimitWaitMs: 500 },
				latencyMs: (row) => (row === 0 ? 1_200 : 100),
			},
		);
		expect(kinds(outcomes)).toEqual([
			'rate-limited',
			...Array<string>(12).fill('http'),
			...Array<string>(4).fill('record'),
			...Array<string>(5).fill('rate-limited'),
		]);
		// Held in one moment, each told the same wait (a failed probe opened it again for 2 s, then 4 s,
		// one row each, and the fifth tripped it: the last row failed as the registry down).
		const toldWaits = outcomes
			.slice(17)
			.map((outcome) => (outcome.kind === 'failed' ? outcome.failure : undefined))
			.map((failure) => (failure?.kind === 'rate-limited' ? failure.retryAfterMs : undefined));
		expect(toldWaits).toEqual(Array<number>(5).fill(toldWaits[0]!));
		expect(calls.filter((call) => call.at > 500)).toEqual([]);
	});
});

describe('a probe that meets a 401 to a token renewed while it was out', () => {
	it('is a verdict (the registry answered): the breaker closes at its answer, and it sends again behind the rows it held', async () => {
		// Rows 1-12 fail with 500s: the breaker opens at 400 ms until 1,400 ms, when row 17 probes (with the
		// first token; its answer takes 200 ms). Rows 0 and 16, sent before with that token and slow, meet
		// 401s while it is out: row 0 at 1,500 ms renews the token (answered at 1,510), row 16 at 1,550
		// ms is told to send again, and that is no verdict: it waits for the probe's, as rows 18-21 do.
		const { outcomes, calls } = await run(
			22,
			({ row, on401, rowCall }) =>
				on401 === 'answer' && rowCall === 1 && [0, 16, 17].includes(row)
					? status(401)
					: row >= 1 && row <= 12
						? status(500)
						: ok,
			{
				latencyMs: (row, on401) =>
					on401 === 'renew' ? 10 : row === 0 ? 1_500 : row === 16 ? 1_050 : row === 17 ? 200 : 100,
			},
		);
		expect(kinds(outcomes)).toEqual([
			'record',
			...Array<string>(12).fill('http'),
			...Array<string>(9).fill('record'),
		]);
		expect(calls.slice(17).map(({ row, on401, at }) => [row, on401, at])).toEqual([
			[17, 'answer', 1_400],
			[0, 'renew', 1_500],
			// The probe's 401 at 1,600 ms closes the breaker: the rows it held go at once (four in flight).
			[18, 'answer', 1_600],
			[19, 'answer', 1_600],
			[20, 'answer', 1_600],
			[21, 'answer', 1_600],
			[16, 'answer', 1_700],
			[17, 'answer', 1_700],
		]);
	});
});

describe('a probe given back unsent, a token renewal having begun while it queued', () => {
	it('is no verdict: the next row probes after the renewal, and its failure holds the others another cool-down', async () => {
		// Two in flight. Rows 1-10 fail with 500s: the breaker opens at 1,000 ms until 2,000 ms. Row 12
		// probes then, queued behind rows 0 and 11 (slow). Row 0 meets a 401 at 2,050 ms and renews the
		// token: row 12's turn comes as the renewal begins, so it is given back unsent. The registry fails
		// until 2,200 ms: the next probe (row 12 again, after the renewal) fails, and the breaker holds
		// the others until 4,160 ms, so that only one row more meets the outage.
		const { outcomes, calls } = await run(
			22,
			({ row, on401, rowCall, at }) =>
				on401 === 'answer' && rowCall === 1 && row === 0
					? status(401)
					: row >= 1 && row !== 11 && (row <= 10 || at < 2_200)
						? status(500)
						: ok,
			{
				settings: { maxConcurrency: 2 },
				latencyMs: (row, on401) =>
					on401 === 'renew' ? 10 : row === 0 ? 2_050 : row === 11 ? 1_500 : 100,
			},
		);
		expect(kinds(outcomes)).toEqual([
			'record',
			...Array<string>(10).fill('http'),
			'record',
			'http',
			...Array<string>(9).fill('record'),
		]);
		expect(calls.slice(12, 15).map(({ row, on401, at }) => [row, on401, at])).toEqual([
			[0, 'renew', 2_050],
			[12, 'answer', 2_060],
			[13, 'answer', 4_160],
		]);
	});
});

describe('a probe whose credential fails', () => {
	it('fails the rows held by the breaker with the credential, not as the registry down', async () => {
		// Max Requests per Second 5: rows 1-10 fail with 500s and the breaker opens at 2,010 ms, rows
		// 11-15 already queued for their turns; row 16's token exchange fails. Rows 17-19, held by the
		// breaker meanwhile, fail with the credential (the breaker stopped with it says nothing of an outage).
		const { outcomes } = await run(
			20,
			({ row }) =>
				row === 16
					? { kind: 'credential', message: 'The token endpoint rejected the Client ID' }
					: row >= 1 && row <= 10
						? status(500)
						: ok,
			{ settings: { maxRequestsPerSecond: 5 } },
		);
		expect(kinds(outcomes)).toEqual([
			'record',
			...Array<string>(10).fill('http'),
			...Array<string>(5).fill('record'),
			...Array<string>(4).fill('credential'),
		]);
	});
});

// Review of outside3 (lookupSession.ts, after renewToken): a new token refused after the registry
// accepted this credential's returns `tokenResend` before the breaker hears anything. Where that
// request was the half-open probe, no verdict is ever recorded: the breaker stays half-open, its own
// row (sent again) and every row behind it wait for a verdict that never comes. The execution hangs.
// Run: npx jest test/unit/transport/lookupSession.probe.test.ts -t 'review of outside3'
describe('review of outside3: a probe whose token renewal is refused (the registry accepted an earlier token)', () => {
	it('leaves no row waiting: every row gets its outcome', async () => {
		// Row 0 is answered with the stored token (the registry accepted this credential). Rows 1-12 fail
		// with 500s: the breaker opens at 400 ms until 1,400 ms. The stored token expires at 1,300 ms: the
		// probe meets a 401, renews, and that first new token is refused (expired on its way); the next
		// one is accepted.
		let renewals = 0;
		let renewedAt: number | undefined;
		const { outcomes } = await run(
			22,
			({ row, on401, at }) => {
				if (on401 === 'renew') {
					if (++renewals === 1) return { kind: 'token-refused', status: 401, tokenBytes: 30 };
					renewedAt ??= at;
					return ok;
				}
				if (row === 0) return ok;
				if (row <= 12) return status(500);
				return at < 1_300 || (renewedAt !== undefined && at > renewedAt) ? ok : status(401);
			},
			{ latencyMs: (row) => (row === 0 ? 10 : 100) },
		);
		expect(renewals).toBeGreaterThanOrEqual(1);
		expect(outcomes).toHaveLength(22);
		expect(kinds(outcomes).slice(13)).toEqual(Array<string>(9).fill('record'));
	});
});

describe("a row's new token refused while the probe is out", () => {
	it('is no verdict on the outage: the rows held wait for the probe, not sent into the outage', async () => {
		// Rows 1-12 fail with 500s: the breaker opens at 400 ms until 1,400 ms (rows 13-16, sent before,
		// are answered with the stored token: the registry accepts this credential). Row 17 probes at
		// 1,400 ms into an outage that lasts until 2,000 ms; its 500 comes back at 1,600 ms. Row 0, sent at
		// the start and slow, meets a 401 at 1,500 ms and renews; that new token is refused at 1,510 ms
		// (expired on its way): row 0 sends again for another, and says nothing of the outage. Rows 18-21
		// wait for the probe's verdict, then its next cool-down (until 3,600 ms), and are answered.
		let renewals = 0;
		const { outcomes, calls } = await run(
			22,
			({ row, on401, rowCall, at }) => {
				if (on401 === 'renew')
					return ++renewals === 1 ? { kind: 'token-refused', status: 401, tokenBytes: 30 } : ok;
				if (row === 0 && rowCall === 1) return status(401);
				return row >= 1 && (row <= 12 || (at >= 1_000 && at < 2_000)) ? status(500) : ok;
			},
			{
				latencyMs: (row, on401) =>
					on401 === 'renew' ? 10 : row === 0 ? 1_500 : row === 17 ? 200 : 100,
			},
		);
		expect(kinds(outcomes)).toEqual([
			'record',
			...Array<string>(12).fill('http'),
			...Array<string>(4).fill('record'),
			// The probe's own row, with one attempt: the outage's.
			'http',
			...Array<string>(4).fill('record'),
		]);
		expect(calls.filter(({ row }) => row >= 18).map(({ at }) => at)).toEqual([
			3_600, 3_700, 3_700, 3_700,
		]);
	});
});

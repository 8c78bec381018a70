import type { Scenario } from './catalogue';
import type { RegistrySpec } from './registry';
import type { ScenarioResult } from './simulate';

/**
 * bench:sim --guards: registries the seeded catalogue does not draw, each of which broke a rule that passed
 * all of the catalogue (session 49's red-team reviews): a quota the registry enforces whose count lags,
 * a registry that refuses everything, a Max Rate-Limit Wait a user raised. Their sheets cannot all finish
 * near a floor, so each is judged on what an n8n user expects of it instead: the rows the limit lets
 * through answered, the others failed soon, and the registry not hammered meanwhile.
 */
export interface Guard {
	scenario: Scenario;
	/** What the user expects, in a few words (printed on the guard's line). */
	expected: string;
	/** The expectations this run broke, each said in a few words (none: it holds). */
	broken(result: ScenarioResult): string[];
}

/** Generous enough never to refuse: the guard's own limit is the only one. */
const UNLIMITED = { family: 'token-bucket', ratePerSecond: 10_000, burst: 10_000 } as const;

const registry = (spec: Partial<RegistrySpec>): RegistrySpec => ({
	limiter: UNLIMITED,
	headers: 'x-ratelimit',
	headersOn: 'always',
	resetAs: 'unix',
	retryAfter: 'none',
	nonsense: 'none',
	latencyMs: 40,
	jitterMs: 10,
	faultShare: 0,
	...spec,
});

const scenario = (
	name: string,
	spec: Partial<RegistrySpec>,
	sheet: Partial<Omit<Scenario, 'name' | 'registry'>> = {},
): Scenario => ({
	name,
	registry: registry(spec),
	processes: 1,
	executions: 1,
	rows: 400,
	noToken: false,
	spentQuota: false,
	...sheet,
});

/** Each failed expectation, said: `checks` pairs a holding condition with what it says when it does not. */
const failing = (...checks: Array<[boolean, string]>) =>
	checks.filter(([holds]) => !holds).map(([, said]) => said);

const HOUR = 3_600_000;

/**
 * An hourly quota of 200, enforced, its count `behind` (one: 201 admitted, the last two at 0 told), over
 * 400 rows: the rest fail within seconds of the quota's 0 (or of its Retry-After), with few 429s. A rule that
 * read an admission at 0 as a count to ignore sent 3,479 429s here, or hung 31 minutes on Retry-After: 60.
 */
function lagging(retryAfterS: number | undefined, processes = 1, behind = 1): Guard {
	const rows = 400 / processes;
	const waitMs = (retryAfterS ?? 0) * 1000;
	const admitted = 200 + behind;
	return {
		scenario: scenario(
			`enforced-hourly-200-lagging${behind > 1 ? `-${behind}` : ''}${retryAfterS === undefined ? '' : `-retry-after-${retryAfterS}`}${processes > 1 ? `-${processes}p` : ''}`,
			{
				longQuota: { limit: 200, windowMs: HOUR, enforced: { behind, retryAfterS } },
				...(retryAfterS === undefined ? {} : { retryAfter: 'seconds' }),
			},
			{ processes, rows },
		),
		expected: `${admitted} answered, ${400 - admitted} fail by the limit within ${(waitMs + 5_000) / 1000} s, under 60 429s`,
		broken: (result) =>
			failing(
				[
					result.rowsRateLimited === 400 - admitted,
					`${result.rowsRateLimited} rows failed by the limit`,
				],
				[result.rowsAnswered === 400, `${result.rowsAnswered} rows answered of 400`],
				[result.refused < 60, `${result.refused} 429s`],
				[result.ms < waitMs + 5_000, `${(result.ms / 1000).toFixed(1)} s`],
			),
	};
}

export function guardScenarios(): Guard[] {
	return [
		lagging(undefined),
		lagging(1),
		lagging(5),
		lagging(60),
		lagging(undefined, 2),
		lagging(1, 2),
		// A count four behind: the most a count may lag before the controller takes it for one the registry
		// does not enforce (OVERRUN_ADMISSIONS).
		lagging(undefined, 1, 4),
		lagging(1, 1, 4),
		{
			// A quota of 100 every 5 minutes, enforced and lagging, with Max Rate-Limit Wait raised to 10
			// minutes: the rows past it wait for the next 5 minutes and are answered. A rule that failed the
			// overrun count failed 49 rows here.
			scenario: scenario(
				'enforced-5min-100-wait-10min',
				{ longQuota: { limit: 100, windowMs: 300_000, enforced: { behind: 1 } } },
				{ rows: 150, maxRateLimitWaitMs: 600_000 },
			),
			expected: 'all 150 answered, under 60 429s, within 6 minutes',
			broken: (result) =>
				failing(
					[result.rowsRateLimited === 0, `${result.rowsRateLimited} rows failed by the limit`],
					[result.rowsAnswered === 150, `${result.rowsAnswered} rows answered of 150`],
					[result.refused < 60, `${result.refused} 429s`],
					[result.ms < 360_000, `${(result.ms / 1000).toFixed(1)} s`],
				),
		},
		{
			// A window of 20 every 2 minutes that tells nothing (no headers, no Retry-After), with Max
			// Rate-Limit Wait raised to 10 minutes: 60 rows are three windows, and none fails. A cap of 4 s on
			// a refused row's own wait (20 tries in about a minute) failed 2 here.
			scenario: scenario(
				'bare-2min-window-wait-10min',
				{
					limiter: {
						family: 'fixed-window',
						ratePerSecond: 1,
						burst: 20,
						limit: 20,
						windowMs: 120_000,
					},
					headers: 'none',
				},
				{ rows: 60, maxRateLimitWaitMs: 600_000 },
			),
			expected: 'all 60 answered within 1.3x the floor',
			broken: (result) =>
				failing(
					[result.rowsRateLimited === 0, `${result.rowsRateLimited} rows failed by the limit`],
					[result.rowsAnswered === 60, `${result.rowsAnswered} rows answered of 60`],
					[
						result.vsFloor !== undefined && result.vsFloor < 1.3,
						`${result.vsFloor?.toFixed(2)}x the floor`,
					],
				),
		},
		{
			// A fast token bucket with a burst of one, telling its count on every answer: Limit 1, Remaining
			// 0 and a Reset of a second (its next token, rounded up), as a window of one a second would, and
			// Retry-After: 0. Paced from one a second after the first wave, the search took 3.5 s to find
			// 400 a second (catalogue seed 1 s31, 2.06x its floor); one request asking alone as soon as the
			// first admission came back shows the refill at once.
			scenario: scenario(
				'bucket-of-one-told-a-second',
				{
					limiter: { family: 'token-bucket', ratePerSecond: 400, burst: 1 },
					headers: 'ratelimit-draft',
					resetAs: 'seconds',
					retryAfter: 'zero',
				},
				{ rows: 1_500 },
			),
			expected: 'all 1,500 answered within 1.2x the floor',
			broken: (result) =>
				failing(
					[result.rowsAnswered === 1_500, `${result.rowsAnswered} rows answered of 1,500`],
					[
						result.vsFloor !== undefined && result.vsFloor < 1.2,
						`${result.vsFloor?.toFixed(2)}x the floor`,
					],
				),
		},
		...([undefined, 1] as const).map(
			(retryAfterS): Guard => ({
				// A registry that refuses every request (a plan revoked, a daily quota spent that tells nothing):
				// every row fails once none was admitted for the Max Rate-Limit Wait (refusalStreak.ts). Each row
				// waiting its own turn and its own wait took 12 minutes for 100 rows; first-deadline-first, 81.
				scenario: scenario(
					`refuses-everything${retryAfterS === undefined ? '' : '-retry-after-1'}`,
					{ refusesAll: true, headers: 'none', retryAfter: retryAfterS ? 'seconds' : 'none' },
					{ rows: 100 },
				),
				expected: 'every row fails by the limit within 75 s (the wait: 60 s), under 60 requests',
				broken: (result) =>
					failing(
						[result.rowsRateLimited === 100, `${result.rowsRateLimited} rows failed by the limit`],
						[result.rowsGivenUp > 50, `${result.rowsGivenUp} rows given up`],
						[result.ms < 75_000, `${(result.ms / 1000).toFixed(0)} s`],
						[result.requests < 60, `${result.requests} requests`],
					),
			}),
		),
		{
			// The same with Max Rate-Limit Wait raised to 5 minutes: the rows are given up after it, not before.
			scenario: scenario(
				'refuses-everything-wait-5min',
				{ refusesAll: true, headers: 'none' },
				{ rows: 100, maxRateLimitWaitMs: 300_000 },
			),
			expected: 'every row fails by the limit between 5 and 5.5 minutes',
			broken: (result) =>
				failing(
					[result.rowsRateLimited === 100, `${result.rowsRateLimited} rows failed by the limit`],
					[result.ms >= 300_000 && result.ms < 330_000, `${(result.ms / 60_000).toFixed(1)} min`],
				),
		},
		{
			// Four executions in one process sharing a window of 30 a minute that tells nothing: some wait
			// longer than the minute for their first turn while the others are let through. A rule that
			// gave an execution up on its own refusals alone (3fa8311) gave up 54 rows here.
			scenario: scenario(
				'window-shared-by-four-executions',
				{
					limiter: {
						family: 'fixed-window',
						ratePerSecond: 1,
						burst: 30,
						limit: 30,
						windowMs: 60_000,
					},
					headers: 'none',
				},
				{ rows: 100, executions: 4 },
			),
			expected: 'no row given up while another execution here is let through',
			broken: (result) =>
				failing([result.rowsGivenUp === 0, `${result.rowsGivenUp} rows given up`]),
		},
		{
			// A window of 20 a minute, spent by another client just before the run, that tells nothing: the
			// registry refuses everything for most of a minute, then admits: no row is given up.
			scenario: scenario(
				'window-spent-before-the-run',
				{
					limiter: {
						family: 'fixed-window',
						ratePerSecond: 1,
						burst: 20,
						limit: 20,
						windowMs: 58_000,
					},
					headers: 'none',
					spentAtStart: 20,
				},
				{ rows: 20 },
			),
			expected: 'all 20 answered after the window turns',
			broken: (result) =>
				failing(
					[result.rowsRateLimited === 0, `${result.rowsRateLimited} rows failed by the limit`],
					[result.rowsAnswered === 20, `${result.rowsAnswered} rows answered of 20`],
				),
		},
	];
}

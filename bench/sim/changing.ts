import type { LimiterFamily, RateLimitSettings } from '../../sandbox/limiters';
import type { Scenario } from './catalogue';
import type { HeaderDialect, HeadersOn, LimitChange, RetryAfterDialect } from './registry';

/**
 * bench:sim --changing: limits that change during a run, a set apart from the seeded catalogue (whose
 * draws everybody compares against). A registry halves its rate at its busy hour, or cuts it to a
 * tenth, or raises it; halves it and restores it; keeps its average but lengthens or shortens its
 * window (or a bucket's burst); or the run starts on a budget another client has mostly spent, which
 * refills mid-run. Each change in the three limiter families, told by X-RateLimit-* headers on every
 * answer, only on 429s, or not at all (bare 429s). One process, one execution: the 429 target applies.
 */

/** Requests a second before the change: high enough that the limit, not the concurrency, sets the pace. */
const RATE = 40;
/** When the limit changes, from the run's start: after the controller has settled on the first limit. */
const CHANGE_AT_MS = 6_000;
/** Seconds of the first limit's and of the next's work in the sheet. */
const BEFORE_S = 6;
const AFTER_S = 14;

interface Change {
	name: string;
	/** The first limit's shape: its rate a second, and its window (or a bucket's burst) in seconds. */
	first: { rate: number; windowS: number };
	/** Later limits, each from its time. */
	then: { afterMs: number; rate: number; windowS: number }[];
	/** Of the first window's budget, the share spent before the run. */
	spentShare?: number;
}

const CHANGES: readonly Change[] = [
	{
		name: 'halved',
		first: { rate: RATE, windowS: 1 },
		then: [{ afterMs: CHANGE_AT_MS, rate: RATE / 2, windowS: 1 }],
	},
	{
		name: 'tenth',
		first: { rate: RATE, windowS: 1 },
		then: [{ afterMs: CHANGE_AT_MS, rate: RATE / 10, windowS: 1 }],
	},
	{
		name: 'doubled',
		first: { rate: RATE, windowS: 1 },
		then: [{ afterMs: CHANGE_AT_MS, rate: RATE * 2, windowS: 1 }],
	},
	{
		name: 'halved-restored',
		first: { rate: RATE, windowS: 1 },
		then: [
			{ afterMs: CHANGE_AT_MS, rate: RATE / 2, windowS: 1 },
			{ afterMs: 2 * CHANGE_AT_MS, rate: RATE, windowS: 1 },
		],
	},
	{
		name: 'window-lengthened',
		first: { rate: RATE, windowS: 1 },
		then: [{ afterMs: CHANGE_AT_MS, rate: RATE, windowS: 10 }],
	},
	{
		name: 'window-shortened',
		first: { rate: RATE, windowS: 10 },
		then: [{ afterMs: CHANGE_AT_MS, rate: RATE, windowS: 1 }],
	},
	{
		// A 20 s budget of which another client left a fifth: the run waits for its refill at 20 s.
		name: 'refilled',
		first: { rate: RATE, windowS: 20 },
		then: [],
		spentShare: 0.8,
	},
];

const limitOf = (family: LimiterFamily, rate: number, windowS: number): RateLimitSettings =>
	family === 'token-bucket'
		? // A bucket's burst plays a window's part: the requests it takes at once.
			{ family, ratePerSecond: rate, burst: Math.round(rate * windowS) }
		: {
				family,
				ratePerSecond: rate,
				burst: rate,
				limit: Math.round(rate * windowS),
				windowMs: windowS * 1000,
			};

const HEADER_MODES: readonly {
	name: string;
	headers: HeaderDialect;
	headersOn: HeadersOn;
	retryAfter: RetryAfterDialect;
}[] = [
	{ name: 'headers', headers: 'x-ratelimit', headersOn: 'always', retryAfter: 'seconds' },
	{ name: '429-only', headers: 'x-ratelimit', headersOn: '429-only', retryAfter: 'seconds' },
	{ name: 'bare', headers: 'none', headersOn: 'always', retryAfter: 'none' },
];

const FAMILIES: readonly LimiterFamily[] = ['token-bucket', 'fixed-window', 'sliding-window'];

/** Every change in every family and header mode; names say which: `halved/fixed-window/bare`. */
export function changingScenarios(): Scenario[] {
	const scenarios: Scenario[] = [];
	for (const change of CHANGES)
		for (const family of FAMILIES)
			for (const mode of HEADER_MODES) {
				const first = limitOf(family, change.first.rate, change.first.windowS);
				const changes: LimitChange[] = change.then.map((next) => ({
					afterMs: next.afterMs,
					limiter: limitOf(family, next.rate, next.windowS),
				}));
				const firstBudget = Math.round(change.first.rate * change.first.windowS);
				const spentAtStart = change.spentShare
					? Math.round(firstBudget * change.spentShare)
					: undefined;
				// The work of BEFORE_S at the first limit and AFTER_S at what holds after (restored: its mean);
				// on a part-spent budget, what is left of it and AFTER_S of work after its refill.
				const afterRate =
					change.then.length === 0
						? change.first.rate
						: change.then.reduce((sum, next) => sum + next.rate, 0) / change.then.length;
				const rows =
					spentAtStart === undefined
						? Math.round(change.first.rate * BEFORE_S + afterRate * AFTER_S)
						: firstBudget - spentAtStart + Math.round(afterRate * AFTER_S);
				scenarios.push({
					name: `${change.name}/${family}/${mode.name}`,
					registry: {
						limiter: first,
						changes,
						spentAtStart,
						headers: mode.headers,
						headersOn: mode.headersOn,
						resetAs: 'seconds',
						retryAfter: mode.retryAfter,
						nonsense: 'none',
						latencyMs: 50,
						jitterMs: 10,
						faultShare: 0,
					},
					processes: 1,
					executions: 1,
					rows,
					noToken: false,
					spentQuota: false,
				});
			}
	return scenarios;
}

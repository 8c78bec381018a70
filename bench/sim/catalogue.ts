import type { LimiterFamily, RateLimitSettings } from '../../sandbox/limiters';
import { seededRandom } from './random';
import { ARRIVAL_MS } from './registry';
import type {
	HeaderDialect,
	HeadersOn,
	Nonsense,
	RegistrySpec,
	RetryAfterDialect,
} from './registry';

/** One limiter configuration of bench:sim: a registry, and who shares its limit. */
export interface Scenario {
	name: string;
	registry: RegistrySpec;
	/** Queue-mode workers sharing the limit, each with its own controller (1: one n8n process). */
	processes: number;
	/** Executions at once in each process, sharing its controller. */
	executions: number;
	/** Distinct rows of each execution. */
	rows: number;
	/** The credential holds no token: each execution's first request goes alone. */
	noToken: boolean;
	/** A daily quota already spent: every row fails within a second with the quota message. */
	spentQuota: boolean;
	/**
	 * The CPU each process spends on one lookup (ms), on its one event loop: before the request leaves
	 * (`send`) and after its answer comes back, before the controller hears it (`answer`). Requests
	 * started together leave one after another. Undefined: none (the catalogue's registries are judged
	 * on the controller alone).
	 */
	clientCpuMs?: { send: number; answer: number };
	/** The node's Max Rate-Limit Wait where a user raised it (guards.ts); undefined: its default. */
	maxRateLimitWaitMs?: number;
}

type Pick = <T>(choices: readonly T[]) => T;

const between = (random: () => number, low: number, high: number) => low + random() * (high - low);
/** Spread evenly on a log scale: rates of 1 and of 500 a second are both common. */
const logBetween = (random: () => number, low: number, high: number) =>
	Math.exp(between(random, Math.log(low), Math.log(high)));

/**
 * `count` configurations drawn from `seed` (issue 20's catalogue): the three limiter families, with
 * rate-limit headers in every dialect (X-RateLimit-*, the older RateLimit-*, the IETF RateLimit-Policy /
 * RateLimit structured fields), on every answer, only on 429s or never; Retry-After in seconds, as an
 * HTTP date, 0, in the past or absent; a long quota over a short limit; a spent daily quota; nonsense
 * headers; 1-3 executions and 1-4 processes; rates 1-500/s, bursts 1 to the rate, windows 1 s-15 min,
 * latency 5-500 ms with jitter, 0-5% transient faults.
 */
export function drawScenarios(seed: number, count: number): Scenario[] {
	const random = seededRandom(seed);
	const pick: Pick = (choices) => choices[Math.floor(random() * choices.length)];
	const scenarios: Scenario[] = [];
	for (let index = 0; index < count; index++) {
		const family = pick<LimiterFamily>(['token-bucket', 'fixed-window', 'sliding-window']);
		const rate = Math.max(1, Math.round(logBetween(random, 1, 500)));
		const limiter: RateLimitSettings = {
			family,
			ratePerSecond: rate,
			burst: Math.max(1, Math.round(logBetween(random, 1, rate))),
		};
		if (family !== 'token-bucket') {
			// Mostly per-second windows; some per minute or a quarter hour, with a budget per window to match.
			const windowS = pick([1, 1, 1, 1, 2, 5, 10, 60, 900]);
			limiter.windowMs = windowS * 1000;
			limiter.limit = Math.max(1, Math.round((rate * windowS) / pick([1, 1, 2, 5])));
		}
		const headers = pick<HeaderDialect>([
			'x-ratelimit',
			'x-ratelimit',
			'ratelimit-draft',
			'ietf-structured',
			'none',
		]);
		const headersOn = pick<HeadersOn>(['always', 'always', '429-only']);
		const retryAfter = pick<RetryAfterDialect>([
			'seconds',
			'seconds',
			'http-date',
			'zero',
			'past-date',
			'none',
		]);
		const nonsense: Nonsense =
			random() < 0.75
				? 'none'
				: pick<Nonsense>([
						'remaining-0',
						'remaining-1',
						'remaining-negative',
						'no-reset',
						'reset-nan',
						'reset-past',
						'repeated',
					]);
		const longQuota = random() < 0.1 ? { limit: 5_000, windowMs: 50 * 60_000 } : undefined;
		const spentQuota = random() < 0.04;
		if (spentQuota) limiter.dailyQuota = 0;
		const processes = random() < 0.75 ? 1 : pick([2, 3, 4]);
		const executions = random() < 0.7 ? 1 : pick([2, 3]);
		const latencyMs = Math.round(logBetween(random, 5, 500));
		// Enough rows for the limit to matter: beyond the burst, 4 to 25 s of its rate, shared by everybody.
		const sharers = processes * executions;
		const perSecond =
			family === 'token-bucket' ? rate : limiter.limit! / (limiter.windowMs! / 1000);
		const allowance = family === 'token-bucket' ? limiter.burst : limiter.limit!;
		const rows = Math.max(
			20,
			Math.min(1_500, Math.round((allowance + perSecond * between(random, 4, 25)) / sharers)),
		);
		scenarios.push({
			name: `s${index}`,
			registry: {
				limiter,
				headers,
				headersOn,
				resetAs: pick(['seconds', 'seconds', 'unix'] as const),
				retryAfter,
				nonsense,
				longQuota,
				latencyMs,
				jitterMs: Math.round(latencyMs * between(random, 0, 0.3)),
				faultShare: random() < 0.6 ? 0 : between(random, 0, 0.05),
			},
			processes,
			executions,
			rows,
			noToken: random() < 0.1,
			spentQuota,
		});
	}
	return scenarios;
}

/** A short description of a scenario, for its line. */
export function describe(scenario: Scenario): string {
	const { registry: spec } = scenario;
	const limit = describeLimit(spec.limiter);
	const extras = [
		spec.longQuota ? 'long-quota' : '',
		spec.spentAtStart ? `spent-${spec.spentAtStart}-at-start` : '',
		...(spec.changes ?? []).map(
			(change) => `from ${change.afterMs / 1000}s ${describeLimit(change.limiter)}`,
		),
		scenario.spentQuota ? 'spent-daily-quota' : '',
		spec.nonsense !== 'none' ? spec.nonsense : '',
		scenario.noToken ? 'no-token' : '',
	].filter(Boolean);
	return `${limit}; headers=${spec.headers}/${spec.headersOn}/${spec.resetAs}; retry-after=${spec.retryAfter}; ${scenario.processes}p x ${scenario.executions}e x ${scenario.rows} rows; latency=${spec.latencyMs}±${spec.jitterMs}ms; faults=${(spec.faultShare * 100).toFixed(1)}%${extras.length ? `; ${extras.join(' ')}` : ''}`;
}

function describeLimit(limiter: RateLimitSettings): string {
	return limiter.family === 'token-bucket'
		? `bucket ${limiter.ratePerSecond}/s burst ${limiter.burst}`
		: `${limiter.family} ${limiter.limit}/${(limiter.windowMs ?? 1000) / 1000}s`;
}

/**
 * The fastest any client could finish: the ideal schedule, every request sent the moment both the
 * limit (a bucket's burst then its rate; a window's budget at each window start; a sliding log's oldest
 * admission leaving) and the concurrency allow, knowing the limit from the start. Undefined for a
 * spent quota.
 *
 * Two things no client can avoid count in it (bench:sim before issue 20's fixes left them out, and
 * called scenarios slow that were at their floor): a round trip is the registry's mean one (arrival,
 * latency and half the jitter, as registry.ts answers), not its shortest; and without a stored token
 * each process's first request goes alone (the token exchange it carries must end before the others
 * may use the token).
 */
export function floorMs(
	scenario: Scenario,
	startedAt: number,
	maxConcurrency: number,
): number | undefined {
	if (scenario.spentQuota) return undefined;
	const { latencyMs, jitterMs } = scenario.registry;
	const total = scenario.rows * scenario.processes * scenario.executions;
	const roundTripMs = ARRIVAL_MS + latencyMs + jitterMs / 2;
	const concurrency = maxConcurrency * scenario.processes * scenario.executions;
	const admit = phasedAdmission(scenario.registry, startedAt);
	// Another client's requests just before the run, at its start (registry.ts takes them so too).
	for (let spent = 0; spent < (scenario.registry.spentAtStart ?? 0); spent++) admit(0);
	// When each request is admitted (ms from the start), in order: slot i is free once request
	// i - concurrency is answered.
	const admittedAt: number[] = [];
	let finish = 0;
	for (let index = 0; index < total; index++) {
		let sendAt =
			index >= concurrency ? admittedAt[index - concurrency] - ARRIVAL_MS + roundTripMs : 0;
		if (scenario.noToken && index >= scenario.processes) sendAt = Math.max(sendAt, roundTripMs);
		const at = admit(sendAt + ARRIVAL_MS);
		admittedAt.push(at);
		finish = Math.max(finish, at - ARRIVAL_MS + roundTripMs);
	}
	return finish;
}

/**
 * A limit that changes during the run (`spec.changes`), as an ideal client that knows when meets it:
 * each phase's own ideal admission from the moment it holds (every client restarts with a full
 * allowance, registry.ts); a request the phase cannot admit before the next begins waits for it.
 * Without changes, just the one limit's.
 */
function phasedAdmission(spec: RegistrySpec, startedAt: number): (at: number) => number {
	const phases = [{ afterMs: 0, limiter: spec.limiter }, ...(spec.changes ?? [])].map((phase) => ({
		...phase,
		admit: idealAdmission(phase.limiter, startedAt),
	}));
	if (phases.length === 1) return phases[0].admit;
	return (at) => {
		let index = 0;
		while (index + 1 < phases.length && phases[index + 1].afterMs <= at) index += 1;
		for (;;) {
			const admitted = phases[index].admit(Math.max(at, phases[index].afterMs));
			const next = phases[index + 1];
			if (next === undefined || admitted < next.afterMs) return admitted;
			index += 1;
		}
	};
}

/** The limit as an ideal client meets it: the earliest admission at or after `at` (ms from the start), taken. */
function idealAdmission(limiter: RateLimitSettings, startedAt: number): (at: number) => number {
	if (limiter.family === 'token-bucket' || limiter.family === undefined) {
		let tokens = limiter.burst;
		let tokensAt = 0;
		return (at) => {
			const from = Math.max(at, tokensAt);
			tokens = Math.min(limiter.burst, tokens + ((from - tokensAt) * limiter.ratePerSecond) / 1000);
			const wait = tokens >= 1 ? 0 : ((1 - tokens) * 1000) / limiter.ratePerSecond;
			tokensAt = from + wait;
			tokens = Math.max(0, tokens + (wait * limiter.ratePerSecond) / 1000 - 1);
			return tokensAt;
		};
	}
	const windowMs = limiter.windowMs ?? 1000;
	const limit = limiter.limit ?? limiter.ratePerSecond;
	if (limiter.family === 'fixed-window') {
		// Windows start at multiples of their length (sandbox/limiters.ts), from wherever the run starts.
		let windowStart = Number.NEGATIVE_INFINITY;
		let used = 0;
		return (at) => {
			let start = Math.max(
				windowStart,
				Math.floor((startedAt + at) / windowMs) * windowMs - startedAt,
			);
			if (start === windowStart && used >= limit) start += windowMs;
			if (start !== windowStart) {
				windowStart = start;
				used = 0;
			}
			used += 1;
			return Math.max(at, start);
		};
	}
	const log: number[] = [];
	return (at) => {
		const from = Math.max(at, log.at(-1) ?? 0);
		const admitted =
			log.length >= limit ? Math.max(from, log[log.length - limit] + windowMs) : from;
		log.push(admitted);
		return admitted;
	};
}

/**
 * What n8n's main process spends on one lookup of the node (its request helper, the credential, the
 * node's own work), measured in test:n8n's bare fixed window (TEST_N8N_TRACE, lib/controllerTrace.cjs):
 * 6.9 s of CPU over its 1,800 lookups, 3.85 ms each, taken here half before the request leaves and half
 * after its answer. Process CPU, not wall time, so it holds on a loaded machine too, where n8n then gets
 * too little of a core for 100 lookups a second (2.1-3.7x the floor at load 22-36).
 */
export const N8N_CPU_PER_LOOKUP_MS = { send: 1.9, answer: 1.9 };

/**
 * The real-time matrix of `npm run bench` (bench.ts, issue 10), simulated: 50 ms latency with up to
 * 10 ms jitter, no token stored at the start, the sandbox's header modes (bare 429s carry no
 * Retry-After either). Its figures set beside `npm run bench`'s show whether the simulation is honest.
 */
export function matrixScenarios(rows = 2_000): Scenario[] {
	const perSecond = { family: 'token-bucket' as const, ratePerSecond: 100, burst: 100 };
	const window = { ratePerSecond: 100, burst: 100, limit: 100, windowMs: 1000 };
	const fixedWindow = { ...window, family: 'fixed-window' as const };
	const bareWindow = (of: Scenario): Scenario => ({
		...of,
		registry: { ...of.registry, latencyMs: 45 },
		clientCpuMs: N8N_CPU_PER_LOOKUP_MS,
	});
	const scenario = (
		name: string,
		limiter: RateLimitSettings,
		headersOn: HeadersOn | 'none',
		retryAfter: RetryAfterDialect,
		sheetRows = rows,
		executions = 1,
	): Scenario => ({
		name,
		registry: {
			limiter,
			headers: headersOn === 'none' ? 'none' : 'x-ratelimit',
			headersOn: headersOn === 'none' ? 'always' : headersOn,
			resetAs: 'seconds',
			retryAfter,
			nonsense: 'none',
			latencyMs: 50,
			jitterMs: 10,
			faultShare: 0,
		},
		processes: 1,
		executions,
		rows: sheetRows,
		noToken: true,
		spentQuota: false,
	});
	return [
		scenario('token-bucket', perSecond, 'always', 'seconds'),
		scenario('token-bucket-429-only', perSecond, '429-only', 'seconds'),
		scenario('token-bucket-no-headers', perSecond, 'none', 'none'),
		scenario('fixed-window', fixedWindow, 'always', 'none'),
		scenario('sliding-window', { ...window, family: 'sliding-window' }, '429-only', 'seconds'),
		scenario(
			'fixed-window-120-per-10s',
			{ ratePerSecond: 12, burst: 120, family: 'fixed-window', limit: 120, windowMs: 10_000 },
			'always',
			'none',
			600,
		),
		scenario(
			'token-bucket-20-per-5s',
			{ family: 'token-bucket', ratePerSecond: 4, burst: 20 },
			'always',
			'seconds',
			300,
		),
		scenario('three-executions', perSecond, 'always', 'seconds', 1_000, 3),
		// Not in `npm run bench`: test:n8n's bare fixed window (test/e2e/n8n/scale.ts, issue 20 item 5), a
		// 429 saying nothing at all; its sheet's 1,800 unique valid lookups (of 2,000 rows, whatever `rows`
		// says), the sandbox's 45 ms and up to 10 more.
		bareWindow(scenario('n8n-fixed-window-no-headers', fixedWindow, 'none', 'none', 1_800)),
	];
}

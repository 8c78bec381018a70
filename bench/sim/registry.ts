import { RateLimiter, type RateDecision, type RateLimitSettings } from '../../sandbox/limiters';
import type { RegistryAnswer, RegistryRequest } from '../../nodes/shared/transport/registryRequest';
import type { VirtualClock } from './virtualClock';

/**
 * A registry as bench:sim and the unit tests see it: the sandbox's limiters (sandbox/limiters.ts) on a
 * virtual clock, answering in the header dialect a real API might speak, with latency, jitter and
 * transient faults. No sockets: a request is two sleeps around the limiter's decision.
 */

/** How the limit is told on answers. */
export type HeaderDialect =
	/** X-RateLimit-Limit / -Remaining / -Reset, the reset in seconds (GitHub-like APIs send Unix time: see `resetAs`). */
	| 'x-ratelimit'
	/** The older IETF draft: RateLimit-Limit / -Remaining / -Reset (seconds). */
	| 'ratelimit-draft'
	/** The IETF httpapi draft 08+: RateLimit-Policy: "default";q=100;w=60 and RateLimit: "default";r=40;t=12. */
	| 'ietf-structured'
	| 'none';

export type HeadersOn = 'always' | '429-only';
export type RetryAfterDialect = 'seconds' | 'http-date' | 'zero' | 'past-date' | 'none';
/** Headers that say something other than what the limiter does. */
export type Nonsense =
	| 'none'
	| 'remaining-0'
	| 'remaining-1'
	| 'remaining-negative'
	| 'no-reset'
	| 'reset-nan'
	| 'reset-past'
	| 'repeated';

export interface RegistrySpec {
	limiter: RateLimitSettings;
	headers: HeaderDialect;
	headersOn: HeadersOn;
	/** X-RateLimit-Reset as seconds from now or as Unix time. */
	resetAs: 'seconds' | 'unix';
	retryAfter: RetryAfterDialect;
	nonsense: Nonsense;
	/**
	 * A long quota told on every answer (X-RateLimit-*: e.g. 5,000 an hour) on top of a short limit that
	 * refuses with Retry-After alone: the headers describe the quota, not the limit that refuses.
	 */
	longQuota?: {
		limit: number;
		windowMs: number;
		/**
		 * The registry enforces it too (the catalogue's quota is only told): it refuses once `limit + behind`
		 * were admitted in its window, its count `behind` admissions late (0 told while `behind` more still
		 * pass, as a lagging counter does), its 429 with the quota's headers and Retry-After `retryAfterS`
		 * where given. The registries that broke rules judged on the catalogue alone (guards.ts).
		 */
		enforced?: { behind: number; retryAfterS?: number };
	};
	/** Refuses every request with a 429 and no rate-limit headers (Retry-After as `retryAfter` says, of a second). */
	refusesAll?: boolean;
	latencyMs: number;
	/** Each answer takes latency plus up to this. */
	jitterMs: number;
	/** Share of requests that meet a transient fault (a 503 or a dropped connection). */
	faultShare: number;
	/** Never answers: every request ends in the client's timeout. */
	silent?: { timeoutMs: number };
	/**
	 * The limit changes during the run (bench:sim --changing, never the seeded catalogue): from `afterMs`
	 * after the registry starts, `limiter` holds, every client restarting with its full allowance, as
	 * the sandbox's limiter does when its settings are replaced.
	 */
	changes?: readonly LimitChange[];
	/** Requests another client of the same limit spent just before the run (the run starts on a part-spent budget). */
	spentAtStart?: number;
}

export interface LimitChange {
	afterMs: number;
	limiter: RateLimitSettings;
}

export interface RegistryCounters {
	requests: number;
	rateLimited: number;
	admitted: number;
	faults: number;
}

/** Loopback: a request reaches the registry, and a refusal comes back, within a millisecond. */
export const ARRIVAL_MS = 0.5;

const RECORD = { isRegistered: false, officialName: 'N/A', status: 'N/A', registrationDate: 'N/A' };

/** A simulated registry shared by every process of a scenario (each its own client of one limit). */
export class SimulatedRegistry {
	readonly counters: RegistryCounters = { requests: 0, rateLimited: 0, admitted: 0, faults: 0 };
	private readonly limiter: RateLimiter;
	private quotaUsed = 0;
	private quotaResetAt: number;
	private readonly startedAt: number;
	/** The next of `spec.changes` to apply. */
	private nextChange = 0;

	constructor(
		private readonly clock: VirtualClock,
		readonly spec: RegistrySpec,
		private readonly random: () => number,
	) {
		this.limiter = new RateLimiter(spec.limiter, () => clock.now());
		this.quotaResetAt = clock.now() + (spec.longQuota?.windowMs ?? 0);
		this.startedAt = clock.now();
		for (let spent = 0; spent < (spec.spentAtStart ?? 0); spent++) this.limiter.take('sim');
	}

	/** The one HTTP call of a process: every process here is the same client of the registry. */
	readonly request: RegistryRequest = async () => {
		const { spec, clock } = this;
		if (spec.silent) {
			await clock.sleep(spec.silent.timeoutMs);
			return { kind: 'no-response', reason: 'timeout', code: 'ETIMEDOUT' };
		}
		// As the sandbox does (and the real bench measures): the limiter decides when the request arrives,
		// a refusal comes back at once, an answer after the registry's latency and jitter.
		await clock.sleep(ARRIVAL_MS);
		this.counters.requests += 1;
		const answer = this.answer();
		const refused = answer.kind === 'response' && answer.status === 429;
		await clock.sleep(
			refused ? ARRIVAL_MS : Math.max(ARRIVAL_MS, spec.latencyMs + this.random() * spec.jitterMs),
		);
		return answer;
	};

	private answer(): RegistryAnswer {
		const { spec } = this;
		if (spec.faultShare > 0 && this.random() < spec.faultShare) {
			this.counters.faults += 1;
			return this.random() < 0.5
				? { kind: 'no-response', reason: 'network', code: 'ECONNRESET' }
				: { kind: 'response', status: 503, headers: {}, body: {} };
		}
		if (spec.refusesAll) return this.refused({}, this.retryAfter(1));
		const enforced = spec.longQuota?.enforced;
		if (enforced && this.quotaSpent()) {
			const wait: Record<string, string> =
				enforced.retryAfterS === undefined ? {} : { 'retry-after': String(enforced.retryAfterS) };
			return this.refused(this.quotaHeaders(true), wait);
		}
		this.applyDueChanges();
		const decision = this.limiter.take('sim');
		if (!decision.allowed)
			return this.refused(
				this.limitHeaders(decision, true),
				this.retryAfter(decision.retryAfterSeconds),
			);
		this.counters.admitted += 1;
		return {
			kind: 'response',
			status: 200,
			headers: this.limitHeaders(decision, false),
			body: RECORD,
		};
	}

	private refused(
		limitHeaders: Record<string, string | string[]>,
		retryAfter: Record<string, string>,
	): RegistryAnswer {
		this.counters.rateLimited += 1;
		return { kind: 'response', status: 429, headers: { ...limitHeaders, ...retryAfter }, body: {} };
	}

	/** Whether an enforced long quota has admitted all it lets through in its window (a new window refills it). */
	private quotaSpent(): boolean {
		const quota = this.spec.longQuota!;
		this.refillQuota();
		return this.quotaUsed >= quota.limit + (quota.enforced?.behind ?? 0);
	}

	private refillQuota(): void {
		const now = this.clock.now();
		if (now < this.quotaResetAt) return;
		this.quotaUsed = 0;
		this.quotaResetAt = now + this.spec.longQuota!.windowMs;
	}

	private applyDueChanges(): void {
		const changes = this.spec.changes ?? [];
		const elapsed = this.clock.now() - this.startedAt;
		while (this.nextChange < changes.length && changes[this.nextChange].afterMs <= elapsed) {
			this.limiter.replace(changes[this.nextChange].limiter);
			this.nextChange += 1;
		}
	}

	private retryAfter(seconds: number): Record<string, string> {
		const now = this.clock.now();
		switch (this.spec.retryAfter) {
			case 'seconds':
				return { 'retry-after': String(seconds) };
			case 'http-date':
				// Whole seconds, as HTTP dates are: up to a second early or late against a window's edge.
				return {
					'retry-after': new Date(Math.ceil((now + seconds * 1000) / 1000) * 1000).toUTCString(),
				};
			case 'zero':
				return { 'retry-after': '0' };
			case 'past-date':
				return { 'retry-after': new Date(now - 5_000).toUTCString() };
			case 'none':
				return {};
		}
	}

	private limitHeaders(
		decision: RateDecision,
		refused: boolean,
	): Record<string, string | string[]> {
		const { spec } = this;
		if (spec.longQuota) return this.quotaHeaders(refused);
		if (spec.headers === 'none' || (spec.headersOn === '429-only' && !refused)) return {};
		const now = this.clock.now();
		let remaining = decision.remaining;
		// Unix time is the second of the moment itself, rounded up as the seconds form is (a registry
		// reckons the instant, then writes its second): at most a second late. Now's second plus the
		// rounded seconds would be up to two (a 1 s log's reset told 2 s ahead).
		let reset: number | string =
			spec.resetAs === 'unix' ? Math.ceil((now + decision.resetMs) / 1000) : decision.resetSeconds;
		// The IETF fields tell seconds from now whatever resetAs says.
		let seconds: number | string = decision.resetSeconds;
		if (spec.nonsense === 'remaining-0') remaining = 0;
		if (spec.nonsense === 'remaining-1') remaining = 1;
		if (spec.nonsense === 'remaining-negative') remaining = -5;
		if (spec.nonsense === 'reset-nan') reset = seconds = 'NaN';
		if (spec.nonsense === 'reset-past') {
			reset = spec.resetAs === 'unix' ? Math.floor(now / 1000) - 30 : -30;
			seconds = -30;
		}
		const withReset = spec.nonsense !== 'no-reset';
		const repeat = (value: string): string | string[] =>
			spec.nonsense === 'repeated' ? [value, value] : value;
		switch (spec.headers) {
			case 'x-ratelimit':
			case 'ratelimit-draft': {
				const prefix = spec.headers === 'x-ratelimit' ? 'x-ratelimit' : 'ratelimit';
				return {
					[`${prefix}-limit`]: repeat(String(decision.limit)),
					[`${prefix}-remaining`]: repeat(String(remaining)),
					...(withReset ? { [`${prefix}-reset`]: repeat(String(reset)) } : {}),
				};
			}
			case 'ietf-structured': {
				const windowS = Math.max(1, Math.round((spec.limiter.windowMs ?? 1000) / 1000));
				return {
					'ratelimit-policy': repeat(`"default";q=${decision.limit};w=${windowS}`),
					ratelimit: repeat(`"default";r=${remaining}${withReset ? `;t=${seconds}` : ''}`),
				};
			}
		}
	}

	/** The long quota's headers, on every answer: its Remaining counts down, its Reset is far ahead. */
	private quotaHeaders(refused: boolean): Record<string, string> {
		const quota = this.spec.longQuota!;
		this.refillQuota();
		if (!refused) this.quotaUsed += 1;
		const told = quota.limit - (quota.enforced?.behind ?? 0) - this.quotaUsed;
		return {
			'x-ratelimit-limit': String(quota.limit),
			'x-ratelimit-remaining': String(Math.max(0, told)),
			'x-ratelimit-reset': String(Math.ceil(this.quotaResetAt / 1000)),
		};
	}
}

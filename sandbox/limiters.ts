/**
 * The limiter families a registry may use (issue 10), per client, plus an optional daily quota on top of any of them:
 * - token-bucket: `ratePerSecond` refills a bucket of `burst` requests;
 * - fixed-window: `limit` requests per window of `windowMs` aligned to the epoch, then 429 until the window ends;
 * - sliding-window: a log of admitted request times, at most `limit` within any trailing `windowMs`.
 */
export type LimiterFamily = 'token-bucket' | 'fixed-window' | 'sliding-window';

export interface RateLimitSettings {
	/** 'token-bucket' when undefined. */
	family?: LimiterFamily;
	/** Token bucket: requests added to the bucket per second. */
	ratePerSecond: number;
	/** Token bucket: bucket size, how many requests may come at once after a quiet spell. */
	burst: number;
	/** Window families: requests admitted per window; `ratePerSecond` when undefined. */
	limit?: number;
	/** Window families: the window's length; 1,000 ms when undefined. */
	windowMs?: number;
	/** Requests per UTC day, whatever the family; undefined for none. */
	dailyQuota?: number;
}

/**
 * `limit` is what X-RateLimit-Limit says (burst or window limit); `resetSeconds` is what X-RateLimit-Reset says:
 * seconds until the window ends (fixed), the oldest admitted request leaves it (sliding), or the bucket holds
 * one token (token bucket; 0 while it does). `resetMs` is the same moment unrounded (ms from now), for a
 registry that tells it as Unix time: the instant's second, not now's second plus the rounded seconds.
 */
export type RateDecision =
	| { allowed: true; remaining: number; limit: number; resetSeconds: number; resetMs: number }
	| {
			allowed: false;
			retryAfterSeconds: number;
			remaining: 0;
			limit: number;
			resetSeconds: number;
			resetMs: number;
			reason: 'rate' | 'quota';
	  };

interface ClientState {
	day: string;
	usedToday: number;
	/** Token bucket. */
	tokens: number;
	updatedAt: number;
	/** Fixed window: start of the current window and the requests admitted in it. */
	windowStart: number;
	windowCount: number;
	/** Sliding window: times of admitted requests within the trailing window, oldest first. */
	log: number[];
}

const upSeconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/** Per-client limiter state. Time comes from `now` so tests can reason about it. */
export class RateLimiter {
	private readonly clients = new Map<string, ClientState>();

	constructor(
		private settings: RateLimitSettings,
		private readonly now: () => number = () => Date.now(),
	) {}

	get limits(): RateLimitSettings {
		return { ...this.settings };
	}

	get family(): LimiterFamily {
		return this.settings.family ?? 'token-bucket';
	}

	/** What X-RateLimit-Limit announces: the burst, or the window's limit. */
	get announcedLimit(): number {
		return this.family === 'token-bucket' ? this.settings.burst : this.windowLimit;
	}

	private get windowLimit(): number {
		return this.settings.limit ?? this.settings.ratePerSecond;
	}

	private get windowMs(): number {
		return this.settings.windowMs ?? 1000;
	}

	/** Changes the limits (and possibly the family) for every client; every client restarts with a full allowance. */
	update(settings: Partial<RateLimitSettings>): void {
		this.settings = { ...this.settings, ...settings };
		this.clients.clear();
	}

	/** Replaces the settings whole (no merge) and restarts every client. */
	replace(settings: RateLimitSettings): void {
		this.settings = { ...settings };
		this.clients.clear();
	}

	take(clientId: string): RateDecision {
		const now = this.now();
		const day = new Date(now).toISOString().slice(0, 10);
		let state = this.clients.get(clientId);
		if (!state) {
			state = {
				day,
				usedToday: 0,
				tokens: this.settings.burst,
				updatedAt: now,
				windowStart: 0,
				windowCount: 0,
				log: [],
			};
			this.clients.set(clientId, state);
		}
		if (state.day !== day) {
			state.day = day;
			state.usedToday = 0;
		}
		const verdict =
			this.family === 'fixed-window'
				? this.fixed(state, now)
				: this.family === 'sliding-window'
					? this.sliding(state, now)
					: this.bucket(state, now);

		const { dailyQuota } = this.settings;
		if (dailyQuota !== undefined && state.usedToday >= dailyQuota) {
			const midnight = Date.parse(`${day}T00:00:00.000Z`) + 86_400_000;
			const seconds = Math.max(1, upSeconds(midnight - now));
			return {
				allowed: false,
				reason: 'quota',
				remaining: 0,
				limit: verdict.limit,
				retryAfterSeconds: seconds,
				resetSeconds: seconds,
				resetMs: midnight - now,
			};
		}
		if (!verdict.admit) {
			return {
				allowed: false,
				reason: 'rate',
				remaining: 0,
				limit: verdict.limit,
				retryAfterSeconds: verdict.retryAfterSeconds,
				resetSeconds: verdict.retryAfterSeconds,
				resetMs: verdict.retryAfterMs,
			};
		}
		state.usedToday += 1;
		return verdict.commit();
	}

	private bucket(state: ClientState, now: number) {
		const { ratePerSecond, burst } = this.settings;
		state.tokens = Math.min(burst, state.tokens + ((now - state.updatedAt) / 1000) * ratePerSecond);
		state.updatedAt = now;
		const msToOneToken = (tokens: number) =>
			tokens >= 1 ? 0 : ((1 - tokens) * 1000) / ratePerSecond;
		const secondsToOneToken = (tokens: number) =>
			tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / ratePerSecond));
		return {
			limit: burst,
			admit: state.tokens >= 1,
			retryAfterSeconds: secondsToOneToken(state.tokens),
			retryAfterMs: msToOneToken(state.tokens),
			commit: (): RateDecision => {
				state.tokens -= 1;
				return {
					allowed: true,
					remaining: Math.floor(state.tokens),
					limit: burst,
					resetSeconds: secondsToOneToken(state.tokens),
					resetMs: msToOneToken(state.tokens),
				};
			},
		};
	}

	private fixed(state: ClientState, now: number) {
		const limit = this.windowLimit;
		const windowMs = this.windowMs;
		const windowStart = Math.floor(now / windowMs) * windowMs;
		if (state.windowStart !== windowStart) {
			state.windowStart = windowStart;
			state.windowCount = 0;
		}
		const toWindowEnd = Math.max(1, upSeconds(windowStart + windowMs - now));
		return {
			limit,
			admit: state.windowCount < limit,
			retryAfterSeconds: toWindowEnd,
			retryAfterMs: windowStart + windowMs - now,
			commit: (): RateDecision => {
				state.windowCount += 1;
				return {
					allowed: true,
					remaining: limit - state.windowCount,
					limit,
					resetSeconds: toWindowEnd,
					resetMs: windowStart + windowMs - now,
				};
			},
		};
	}

	private sliding(state: ClientState, now: number) {
		const limit = this.windowLimit;
		const windowMs = this.windowMs;
		// An admission at time t counts while now - t < windowMs.
		while (state.log.length > 0 && state.log[0] <= now - windowMs) state.log.shift();
		// The entry whose expiry brings the count under the limit.
		const blocking = state.log.length >= limit ? state.log[state.log.length - limit] : undefined;
		return {
			limit,
			admit: state.log.length < limit,
			retryAfterSeconds:
				blocking === undefined ? 0 : Math.max(1, upSeconds(blocking + windowMs - now)),
			retryAfterMs: blocking === undefined ? 0 : blocking + windowMs - now,
			commit: (): RateDecision => {
				state.log.push(now);
				return {
					allowed: true,
					remaining: limit - state.log.length,
					limit,
					resetSeconds: upSeconds(state.log[0] + windowMs - now),
					resetMs: state.log[0] + windowMs - now,
				};
			},
		};
	}
}

/** Rate limit settings of one client: a token bucket, plus an optional daily quota. */
export interface RateLimitSettings {
	/** Requests added to the bucket per second. */
	ratePerSecond: number;
	/** Bucket size: how many requests may come at once after a quiet spell. */
	burst: number;
	/** Requests per UTC day; undefined for none. */
	dailyQuota?: number;
}

export type RateDecision =
	| { allowed: true; remaining: number }
	| { allowed: false; retryAfterSeconds: number; remaining: number; reason: 'rate' | 'quota' };

interface Bucket {
	tokens: number;
	updatedAt: number;
	day: string;
	usedToday: number;
}

/** Per-client token buckets. Time comes from `now` so tests can reason about it. */
export class RateLimiter {
	private readonly buckets = new Map<string, Bucket>();

	constructor(
		private settings: RateLimitSettings,
		private readonly now: () => number = () => Date.now(),
	) {}

	get limits(): RateLimitSettings {
		return { ...this.settings };
	}

	/** Changes the limits for every client; buckets restart full. */
	update(settings: Partial<RateLimitSettings>): void {
		this.settings = { ...this.settings, ...settings };
		this.buckets.clear();
	}

	take(clientId: string): RateDecision {
		const now = this.now();
		const day = new Date(now).toISOString().slice(0, 10);
		let bucket = this.buckets.get(clientId);
		if (!bucket) {
			bucket = { tokens: this.settings.burst, updatedAt: now, day, usedToday: 0 };
			this.buckets.set(clientId, bucket);
		}
		if (bucket.day !== day) {
			bucket.day = day;
			bucket.usedToday = 0;
		}
		const { ratePerSecond, burst, dailyQuota } = this.settings;
		bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * ratePerSecond);
		bucket.updatedAt = now;

		if (dailyQuota !== undefined && bucket.usedToday >= dailyQuota) {
			const midnight = Date.parse(`${day}T00:00:00.000Z`) + 86_400_000;
			return {
				allowed: false,
				reason: 'quota',
				remaining: 0,
				retryAfterSeconds: Math.max(1, Math.ceil((midnight - now) / 1000)),
			};
		}
		if (bucket.tokens < 1) {
			return {
				allowed: false,
				reason: 'rate',
				remaining: 0,
				retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond)),
			};
		}
		bucket.tokens -= 1;
		bucket.usedToday += 1;
		return { allowed: true, remaining: Math.floor(bucket.tokens) };
	}
}

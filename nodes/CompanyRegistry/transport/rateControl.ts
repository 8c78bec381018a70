import { sleep } from 'n8n-workflow';

export interface RateControlSettings {
	/** Upper bound on requests in flight at once. */
	maxConcurrency: number;
	/** Optional cap for plans with low quotas; undefined for none. */
	maxRequestsPerSecond?: number;
}

/** What one answered request tells the controller. */
export interface RequestReport {
	status?: number;
	/** X-RateLimit-Remaining, where the server sent it. */
	remaining?: number;
	/** For a 429: how long the server asked to wait. */
	retryAfterMs?: number;
}

interface RemainingSample {
	at: number;
	remaining: number;
	/** Requests answered (not 429) up to this sample. */
	answered: number;
}

/** A 429 that asks for a wait this long is a quota or an outage: everybody waits, not only its request. */
const LONG_RETRY_AFTER_MS = 5_000;
/** Decreases closer together than this are one congestion event, not several. */
const DECREASE_SPACING_MS = 500;
/** The window over which the server's refill rate is estimated from X-RateLimit-Remaining. */
const REFILL_WINDOW_MS = 1_000;

/**
 * Decides when the next lookup may start, so that a sheet runs close to what the registry's rate
 * limit allows without turning 429s into a retry storm:
 * - at most `concurrency` requests in flight; it starts at the maximum, halves on a 429 (once per
 *   congestion event) and grows back by one per round of successes (AIMD);
 * - the first request goes alone, so that one token is fetched and stored before the others start;
 * - where answers carry X-RateLimit-Remaining, requests spend the server's remaining budget freely and,
 *   once it is nearly spent, are paced at the refill rate estimated from how the budget moves;
 * - without that header, a 429 sets the pace to the success rate seen so far, lowered by 10% on each
 *   further congestion event and raised again slowly;
 * - when every request in flight meets 429, or a 429 asks for a long wait, all requests pause until
 *   the Retry-After has passed;
 * - an optional user cap on requests per second always applies.
 */
export class RateController {
	private inFlight = 0;
	private concurrency: number;
	private firstAnswered = false;
	private pausedUntil = 0;
	private nextStartAt = 0;
	private learnedIntervalMs = 0;
	private lastDecreaseAt = 0;
	private consecutive429 = 0;
	/** Requests answered with anything but 429: each spent one unit of the server's budget. */
	private answered = 0;
	private readonly startedAt = Date.now();
	private remaining: number | undefined;
	private startedSinceRemaining = 0;
	private readonly samples: RemainingSample[] = [];
	private readonly queue: Array<{ resolve: () => void }> = [];
	private wakeArmedFor: number | undefined;
	/** What the controller did, for its tests: requests started, and storm pauses. */
	readonly stats = { requests: 0, pauses: 0 };

	constructor(private readonly settings: RateControlSettings) {
		this.concurrency = settings.maxConcurrency;
	}

	/**
	 * Waits its turn until a request may start, then counts it as in flight: pair with `release`.
	 * Resolves false, with nothing counted, when the execution is cancelled meanwhile.
	 */
	async acquire(signal?: AbortSignal): Promise<boolean> {
		if (signal?.aborted) return false;
		return await new Promise<boolean>((resolve) => {
			const waiter = { resolve: () => resolve(true) };
			this.queue.push(waiter);
			signal?.addEventListener(
				'abort',
				() => {
					const index = this.queue.indexOf(waiter);
					if (index >= 0) this.queue.splice(index, 1);
					resolve(false);
				},
				{ once: true },
			);
			this.pump();
		});
	}

	/**
	 * Starts as many queued requests, first come first served, as the limits allow now, and arranges
	 * to be called again when the next one may start. O(1) per start, however long the queue.
	 */
	private pump(): void {
		while (this.queue.length > 0) {
			const limit = this.firstAnswered ? Math.max(1, Math.floor(this.concurrency)) : 1;
			// A release calls pump again.
			if (this.inFlight >= limit || this.budgetSpent()) return;
			const now = Date.now();
			const startAt = Math.max(this.pausedUntil, this.nextStartAt);
			if (startAt > now) {
				this.wakeAt(startAt);
				return;
			}
			this.inFlight += 1;
			this.startedSinceRemaining += 1;
			this.stats.requests += 1;
			this.nextStartAt = now + this.intervalMs();
			this.queue.shift()!.resolve();
		}
	}

	/** One timer at a time, for the earliest moment something may start (n8n's sleep: no setTimeout here). */
	private wakeAt(time: number): void {
		if (this.wakeArmedFor !== undefined && this.wakeArmedFor <= time) return;
		this.wakeArmedFor = time;
		void sleep(Math.max(0, time - Date.now())).then(() => {
			if (this.wakeArmedFor === time) this.wakeArmedFor = undefined;
			this.pump();
		});
	}

	/** Records what a request's answer said about the rate limit and lets the next request go. */
	release(report: RequestReport): void {
		const now = Date.now();
		this.inFlight -= 1;
		this.firstAnswered = true;
		if (report.status === 429) this.onRateLimited(now, report);
		else if (report.status !== undefined) this.onAnswered();
		if (report.remaining !== undefined) this.recordRemaining(now, report.remaining);
		this.pump();
	}

	private onAnswered(): void {
		this.consecutive429 = 0;
		this.answered += 1;
		// Additive increase: one more request in flight per round of successes.
		this.concurrency = Math.min(this.settings.maxConcurrency, this.concurrency + 1 / this.concurrency);
		// Without a remaining budget to read, probe slowly back up towards a faster pace.
		if (this.learnedIntervalMs > 0 && this.remaining === undefined) this.learnedIntervalMs *= 0.995;
	}

	private onRateLimited(now: number, report: RequestReport): void {
		this.consecutive429 += 1;
		const retryAfterMs = report.retryAfterMs ?? 1000;
		if (retryAfterMs >= LONG_RETRY_AFTER_MS || this.consecutive429 >= Math.max(2, Math.floor(this.concurrency))) {
			// A storm: everybody waits out the Retry-After, instead of retrying the moment it ends.
			if (now + retryAfterMs > this.pausedUntil) this.stats.pauses += 1;
			this.pausedUntil = Math.max(this.pausedUntil, now + retryAfterMs);
		}
		if (now - this.lastDecreaseAt < DECREASE_SPACING_MS) return;
		this.lastDecreaseAt = now;
		this.concurrency = Math.max(1, this.concurrency / 2);
		if (report.remaining === undefined && this.remaining === undefined) {
			const seenRate = (this.answered * 1000) / Math.max(1, now - this.startedAt);
			this.learnedIntervalMs =
				this.learnedIntervalMs > 0 ? this.learnedIntervalMs / 0.9 : 1000 / Math.max(0.1, seenRate);
		}
	}

	/** X-RateLimit-Remaining: the server's budget now, and (over a window) how fast it refills. */
	private recordRemaining(now: number, remaining: number): void {
		this.remaining = remaining;
		// Requests still in flight were sent before this answer and will spend from this budget.
		this.startedSinceRemaining = this.inFlight;
		this.samples.push({ at: now, remaining, answered: this.answered });
		while (this.samples.length > 2 && now - this.samples[0].at > REFILL_WINDOW_MS) this.samples.shift();
		const first = this.samples[0];
		const spanMs = now - first.at;
		if (spanMs >= 200) {
			const refillPerSecond = ((remaining - first.remaining + (this.answered - first.answered)) * 1000) / spanMs;
			if (refillPerSecond > 0) this.learnedIntervalMs = 1000 / refillPerSecond;
		}
	}

	/** With a known server budget and no refill estimate yet, wait for an answer rather than guess. */
	private budgetSpent(): boolean {
		return (
			this.remaining !== undefined &&
			this.remaining - this.startedSinceRemaining <= 0 &&
			this.learnedIntervalMs === 0 &&
			this.inFlight > 0
		);
	}

	private intervalMs(): number {
		const userIntervalMs = this.settings.maxRequestsPerSecond ? 1000 / this.settings.maxRequestsPerSecond : 0;
		// While the server's budget lasts, spend it; pace at the refill rate only once it is nearly gone.
		const budgetLeft = this.remaining === undefined ? 0 : this.remaining - this.startedSinceRemaining;
		const learned = this.remaining === undefined || budgetLeft < Math.max(2, this.concurrency) ? this.learnedIntervalMs : 0;
		return Math.max(userIntervalMs, learned);
	}
}

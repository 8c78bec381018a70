import type { RegistryAnswer } from './registryRequest';

/**
 * Which failures are tried again, after how long, and within what limits. Lookups are idempotent GETs,
 * so, like the AWS SDKs' "standard" retry mode and Google's API clients, transient failures (HTTP 500,
 * 502, 503, 504, a dropped connection, a timeout) are retried per row with capped exponential backoff
 * and full jitter, instead of the user re-running the whole sheet with Retry On Fail. An execution's
 * retries draw on a budget that successes refill, and a circuit breaker stops sending when the registry
 * is plainly down.
 */

/**
 * Besides a server's and a reverse proxy's own (500, 502-504), the passing failures of the CDN or API
 * gateway a registry may sit behind: Cloudflare's 520-524 (the origin's unknown error, down, its
 * connection or its answer timed out, unreachable) and 529 (overloaded); and 408, which a server sends
 * as it closes an idle keep-alive connection. A gateway's lasting ones (525, 526: its TLS to the
 * origin) are not among them.
 */
export const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([
	408, 500, 502, 503, 504, 520, 521, 522, 523, 524, 529,
]);

/** An answer that is one of those, or none at all (a dropped connection, a timeout). */
export function isTransient(answer: RegistryAnswer): boolean {
	return (
		answer.kind === 'no-response' ||
		(answer.kind === 'response' && TRANSIENT_STATUSES.has(answer.status))
	);
}

const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 5_000;

/** Full jitter: anywhere from 0 to the capped exponential step (attempt 1 is the first retry). */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
	return Math.round(random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1)));
}

/** A 429 is tried at most this many times per lookup, whatever its Retry-After says. */
export const MAX_RATE_LIMITED_TRIES = 20;

/**
 * How long to wait after the `attempt`-th 429 (1 for the first). Retry-After is honoured, but never
 * below a floor that doubles from 100 ms to 1 s, so "Retry-After: 0", a negative value or a date in
 * the past cannot turn into a retry storm. Without a readable Retry-After: equal jitter around 1, 2,
 * 4 … s, at most 30 s.
 */
export function rateLimitDelayMs(
	retryAfterMs: number | undefined,
	attempt: number,
	random: () => number = Math.random,
): number {
	const floor = Math.min(1_000, 100 * 2 ** (attempt - 1));
	if (retryAfterMs !== undefined) return Math.max(floor, retryAfterMs);
	const ceiling = Math.min(30_000, 1_000 * 2 ** (attempt - 1));
	return Math.max(floor, Math.round(ceiling / 2 + random() * (ceiling / 2)));
}

/**
 * The execution's retry budget, a token bucket as in the AWS SDKs: a retry costs 5 (a timeout 10),
 * a success gives 1 back. A registry that fails most requests drains it, and then failures are final.
 */
export class RetryBudget {
	private tokens: number;

	constructor(private readonly capacity = 500) {
		this.tokens = capacity;
	}

	/** Takes the cost of one retry; false when the budget cannot pay it. */
	take(timeout: boolean): boolean {
		const cost = timeout ? 10 : 5;
		if (this.tokens < cost) return false;
		this.tokens -= cost;
		return true;
	}

	refill(): void {
		this.tokens = Math.min(this.capacity, this.tokens + 1);
	}
}

export type BreakerGate = { kind: 'closed' } | { kind: 'probe' } | { kind: 'tripped' };

const WINDOW = 20;
const MIN_SAMPLES = 10;
const OPEN_SHARE = 0.8;
const FIRST_COOL_DOWN_MS = 1_000;
const MAX_COOL_DOWN_MS = 4_000;

/**
 * How long the registry may fail every probe before the rest of the execution fails with one message.
 * Longer than a deploy or a failover takes, short against a sheet's run: an outage shorter than this
 * costs the rows a pause, not their lookups.
 */
export const OUTAGE_TOLERANCE_MS = 10_000;

/**
 * closed: requests go. open: nobody sends until the cool-down ends. half-open: one probe is out,
 * everybody else waits for its verdict. tripped: the registry is down for the rest of the execution.
 * `since` is when the outage began (the first opening of this spell).
 */
type BreakerMode =
	| { kind: 'closed' }
	| { kind: 'open'; since: number; until: number; coolDownMs: number }
	| { kind: 'half-open'; since: number; coolDownMs: number }
	| { kind: 'tripped' };

/**
 * What moves the breaker: most of the window failed, a cool-down ended, a probe's verdict, or a probe
 * given back unsent (no verdict).
 */
type BreakerEvent =
	| 'window-failed'
	| 'cooled-down'
	| 'probe-answered'
	| 'probe-failed'
	| 'probe-unsent';

/**
 * Closed while the registry answers. Opens when most recent requests failed transiently: nobody sends
 * for a cool-down, then one probe goes (half-open); a good answer closes it, a failed probe opens it
 * again for twice as long (at most 4 s). Only when every probe failed for OUTAGE_TOLERANCE_MS does it
 * trip: the rest of the execution fails at once with one message instead of spending every row's
 * retries on a registry that is down. Rows held meanwhile keep their retries, so a short outage costs
 * a pause, not the sheet. Every change of mode is one step of `transition`, on the injected clock.
 */
export class CircuitBreaker {
	private readonly recent: boolean[] = [];
	private mode: BreakerMode = { kind: 'closed' };
	private stopped = false;
	private readonly waiting: Array<() => void> = [];
	/** How many of the window's requests failed when it opened, for the message. */
	tripReport: { failed: number; of: number } | undefined;

	constructor(
		private readonly now: () => number = Date.now,
		private readonly toleranceMs = OUTAGE_TOLERANCE_MS,
	) {}

	get tripped(): boolean {
		return this.mode.kind === 'tripped';
	}

	/**
	 * Before a request: `closed` to go, `probe` to go as the one probe, `tripped` to give up. Waits while
	 * the breaker is open or a probe is out; `sleep` resolves false once the execution stops.
	 */
	async gate(sleep: (ms: number) => Promise<boolean>): Promise<BreakerGate> {
		for (;;) {
			const mode = this.mode;
			if (mode.kind === 'closed') return { kind: 'closed' };
			if (mode.kind === 'tripped' || this.stopped) return { kind: 'tripped' };
			if (mode.kind === 'open') {
				const left = mode.until - this.now();
				if (left <= 0) {
					this.transition('cooled-down');
					return { kind: 'probe' };
				}
				await sleep(left);
				continue;
			}
			// Half-open: the probe is out; wait for its verdict.
			await new Promise<void>((resolve) => this.waiting.push(resolve));
		}
	}

	/** The execution stops: nobody waits for a verdict any more. */
	stop(): void {
		this.stopped = true;
		this.wakeWaiting();
	}

	/** Records one answer (true) or transient failure (false); `probe` when it was the probe. */
	record(ok: boolean, probe: boolean): void {
		if (probe) {
			this.transition(ok ? 'probe-answered' : 'probe-failed');
			return;
		}
		this.recent.push(ok);
		if (this.recent.length > WINDOW) this.recent.shift();
		const failed = this.recent.filter((answered) => !answered).length;
		if (
			this.mode.kind === 'closed' &&
			this.recent.length >= MIN_SAMPLES &&
			failed >= OPEN_SHARE * this.recent.length
		) {
			this.tripReport = { failed, of: this.recent.length };
			this.transition('window-failed');
		}
	}

	/**
	 * A request given back without being sent (the rate limit holds it past its wait, or a token renewal
	 * began while it queued): if it was the probe, it told nothing of the registry, so the next waiter
	 * probes now, with no cool-down added and no step toward tripping.
	 */
	notSent(probe: boolean): void {
		if (probe) this.transition('probe-unsent');
	}

	/** The one place the mode changes. An event that does not apply to the mode changes nothing. */
	private transition(event: BreakerEvent): void {
		const mode = this.mode;
		const now = this.now();
		switch (event) {
			case 'window-failed':
				if (mode.kind === 'closed')
					this.mode = {
						kind: 'open',
						since: now,
						until: now + FIRST_COOL_DOWN_MS,
						coolDownMs: FIRST_COOL_DOWN_MS,
					};
				break;
			case 'cooled-down':
				if (mode.kind === 'open')
					this.mode = { kind: 'half-open', since: mode.since, coolDownMs: mode.coolDownMs };
				break;
			case 'probe-answered':
				if (mode.kind === 'half-open') {
					this.mode = { kind: 'closed' };
					this.recent.length = 0;
				}
				break;
			case 'probe-unsent':
				if (mode.kind === 'half-open')
					this.mode = { kind: 'open', since: mode.since, until: now, coolDownMs: mode.coolDownMs };
				break;
			case 'probe-failed':
				if (mode.kind === 'half-open') {
					const coolDownMs = Math.min(MAX_COOL_DOWN_MS, mode.coolDownMs * 2);
					this.mode =
						now - mode.since >= this.toleranceMs
							? { kind: 'tripped' }
							: { kind: 'open', since: mode.since, until: now + coolDownMs, coolDownMs };
				}
				break;
		}
		if (this.mode.kind !== 'half-open') this.wakeWaiting();
	}

	private wakeWaiting(): void {
		for (const resolve of this.waiting.splice(0)) resolve();
	}
}

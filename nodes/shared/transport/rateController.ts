import { MAX_TIMER_MS, wait } from './wait';

/**
 * When may the next lookup start? One controller per registry and client id, shared by every
 * execution in this n8n process (main, or one queue-mode worker), so that a sheet and an onboarding
 * form spend one quota together instead of discovering each other through 429s. Across processes the
 * controllers adapt through the registry's answers alone.
 *
 * The model, the same for every limiter family (token bucket, fixed or sliding window, with or without
 * rate-limit headers):
 * - Until the registry shows a limit, requests go as fast as each execution's concurrency allows
 *   (the first one alone while the credential has no token, so that one token is fetched and stored).
 * - Where answers carry X-RateLimit-Remaining, that budget is spent freely and, once nearly gone,
 *   requests are paced at the refill rate measured from how the budget moves. If the registry then
 *   refuses a paced request although the budget seemed to refill, the budget comes back all at once (a
 *   window): from then on it is spent whole and nobody sends until X-RateLimit-Reset says it returns;
 *   the first request after that goes alone, and its answer tells the new budget.
 * - Otherwise 429s teach the limit. The first 429 pauses everybody briefly; the admitted rate is the
 *   successes seen since the start divided by the time including that pause (a bucket refills while
 *   nobody sends), and the burst it allowed sets how much credit may be spent at once. From then on
 *   requests are paced by a mirror token bucket at that rate.
 * - Each later 429 wave is one congestion event: the rate drops to what the registry admitted since the
 *   last event (at least halving it, at most 5% off), and climbs back quickly towards the rate of the
 *   last event, then slowly beyond it, so a limit that rises is found again. Requests sent before an
 *   event that meet 429 belong to it: one wave, one decrease. A wave that follows a burst of saved-up
 *   credit says the registry does not hold bursts (a window, not a bucket): the pace stays, bursts end.
 * - Several waves close together are a storm: everybody waits out the Retry-After (capped, doubling).
 * - A request whose remaining wait budget cannot cover a pause is told at once, so its row can fail
 *   with 429 instead of holding the sheet hostage.
 * - Executions take turns (round-robin), each within its own concurrency and optional requests/s cap.
 */

/** What one answered request tells the controller. */
export interface RequestReport {
	/** When the request left: 429s from requests sent before the last congestion event belong to it. */
	sentAt: number;
	/** The HTTP status, or undefined when no answer came. */
	status?: number;
	/** X-RateLimit-Remaining, where the registry sent it. */
	remaining?: number;
	/** For a 429: how long the registry asked to wait, where it said so. */
	retryAfterMs?: number;
	/** X-RateLimit-Reset, where the registry sent it: in how many ms its budget is refilled. */
	resetMs?: number;
}

export interface TenantSettings {
	/** Upper bound on this execution's requests in flight. */
	maxConcurrency: number;
	/**
	 * The credential holds no token yet: the first request goes alone, so that one token is fetched
	 * and stored before the others start.
	 */
	firstRequestAlone?: boolean;
	/** Optional user cap for this execution; undefined for none. */
	maxRequestsPerSecond?: number;
}

export type Acquired = { kind: 'go'; sentAt: number } | { kind: 'cancelled' } | { kind: 'paused'; until: number };

interface Waiter {
	notAfter: number;
	resolve: (acquired: Acquired) => void;
}

/** One execution's share of a controller. Pair every `go` with `release`. */
export class Tenant {
	readonly queue: Waiter[] = [];
	inFlight = 0;
	nextStartAt = 0;
	readonly joinedAt = Date.now();

	constructor(
		private readonly controller: RateController,
		readonly settings: TenantSettings,
	) {}

	/**
	 * Waits its turn. Resolves `paused` at once when everybody must wait past `notAfter` (the latest
	 * start this request's wait budget allows), `cancelled` once `cancelWaiting` is called.
	 */
	async acquire(notAfter = Number.POSITIVE_INFINITY): Promise<Acquired> {
		return await this.controller.acquire(this, notAfter);
	}

	/** Everything still waiting ends as cancelled (the execution stops). */
	cancelWaiting(): void {
		for (const waiter of this.queue.splice(0)) waiter.resolve({ kind: 'cancelled' });
	}

	release(report: RequestReport): void {
		this.controller.release(this, report);
	}

	/** The execution is done: its turns go to the others. */
	leave(): void {
		this.controller.leave(this);
	}
}

const FIRST_PAUSE_MAX_MS = 1_000;
const MIN_ANSWERS_FOR_RATE = 5;
const STORM_PAUSE_MAX_MS = 8_000;
/** Congestion events closer together than this count towards a storm. */
const STORM_WINDOW_MS = 2_000;
const STORM_EVENTS = 3;
/** A 429 to a request sent this soon after the last burst of saved-up credit is the burst's fault. */
const BURST_BLAME_MS = 1_000;
/** After a window's reset, how long the first request goes ahead of the rest. */
const RESET_STAGGER_MS = 25;
/** How far behind the pace a late timer may let requests catch up at once. */
const CATCH_UP_MS = 50;
/** Growth per second of the pace: towards the last event's rate, and beyond it. */
const RECOVERY_PER_ANSWER = 0.05;
/** Before any congestion event while paced the first estimate may be low: find the limit quickly. */
const SEARCH_GROWTH_PER_SECOND = 0.25;
const PROBE_GROWTH_PER_SECOND = 0.02;
/** The window over which the registry's refill rate is estimated from X-RateLimit-Remaining. */
const REFILL_WINDOW_MS = 3_000;
/** A remaining budget older than this no longer describes the registry. */
const REMAINING_TTL_MS = 5_000;
/** A controller nobody used for this long starts afresh (the limit may have changed). */
const IDLE_RESET_MS = 10 * 60_000;

interface RemainingSample {
	at: number;
	remaining: number;
	answered: number;
}

export class RateController {
	private static readonly shared = new Map<string, RateController>();

	/** The controller of one registry and client id in this process. */
	static for(key: string, now = Date.now()): RateController {
		const existing = RateController.shared.get(key);
		if (existing && (existing.tenants.size > 0 || now - existing.idleSince < IDLE_RESET_MS)) return existing;
		const controller = new RateController();
		RateController.shared.set(key, controller);
		return controller;
	}

	/** For tests: every registry starts unknown again. */
	static forgetAll(): void {
		RateController.shared.clear();
	}

	private readonly tenants = new Set<Tenant>();
	private turn = 0;
	private idleSince = Date.now();
	/** When any request last got an answer: from then on, a token is stored in the credential. */
	private lastAnswerAt = 0;
	private inFlight = 0;
	private pausedUntil = 0;
	private stormLevel = 0;
	private wakeArmedFor: number | undefined;

	/** Learned from 429s: the admitted rate (requests/s) and the mirror bucket's credit. */
	private rate: number | undefined;
	private ceiling: number | undefined;
	private credit = 0;
	private creditCap = 1;
	private creditAt = 0;
	private firstSentAt: number | undefined;
	private lastEventAt: number | undefined;
	private answeredSinceEvent = 0;
	private readonly recentEvents: number[] = [];

	/** Learned from X-RateLimit-Remaining on ordinary answers. */
	private answered = 0;
	private remaining: number | undefined;
	private remainingAt = 0;
	private startedSinceRemaining = 0;
	private refillIntervalMs = 0;
	private readonly samples: RemainingSample[] = [];
	private lastStartAt = 0;
	private lastBurstAt = Number.NEGATIVE_INFINITY;
	/** The budget returns whole at a reset (a window), not request by request: seen as a paced 429. */
	private windowed = false;
	/** The earliest moment the registry's answers say its budget is refilled (X-RateLimit-Reset). */
	private resetAt: number | undefined;
	private lastResetAt = 0;
	/** After a reset nobody knows the new budget: one request goes alone until an answer tells it. */
	private probeSentAt: number | undefined;
	/** What a window's reset gave the last time an answer told it; the budget assumed at the next reset. */
	private budgetAfterReset: number | undefined;
	private assumedBudget = false;
	private probeDue = false;
	private staggerUntil = 0;

	/** What the controller did, for tests and the benchmark. */
	readonly stats = { requests: 0, events: 0, pauses: 0 };

	join(settings: TenantSettings): Tenant {
		const tenant = new Tenant(this, settings);
		this.tenants.add(tenant);
		return tenant;
	}

	leave(tenant: Tenant): void {
		tenant.cancelWaiting();
		this.tenants.delete(tenant);
		if (this.tenants.size === 0) this.idleSince = Date.now();
		this.pump();
	}

	/** The pace the controller keeps now (requests/s), undefined while it knows no limit. */
	get pace(): number | undefined {
		return this.rate;
	}

	async acquire(tenant: Tenant, notAfter: number): Promise<Acquired> {
		return await new Promise<Acquired>((resolve) => {
			tenant.queue.push({ notAfter, resolve });
			this.pump();
		});
	}

	release(tenant: Tenant, report: RequestReport): void {
		const now = Date.now();
		tenant.inFlight -= 1;
		this.inFlight -= 1;
		if (report.status !== undefined) this.lastAnswerAt = Date.now();
		if (this.probeSentAt !== undefined && report.sentAt >= this.probeSentAt) {
			this.probeSentAt = undefined;
			// The budget a reset gives: what the answer to the first request after it says, plus that request.
			if (report.status === 200 && report.remaining !== undefined) this.budgetAfterReset = report.remaining + 1;
		}
		if (report.resetMs !== undefined && report.resetMs > 0) this.recordReset(report, now);
		if (report.status === 429) this.onRateLimited(now, report);
		else if (report.status !== undefined) this.onAnswered(now, report);
		this.pump();
	}

	/** Starts what may start now, executions in turn; arranges to be called again when more may. */
	private pump(): void {
		const now = Date.now();
		const holdUntil = Math.max(this.pausedUntil, this.nextPacedStart(now));
		for (const tenant of this.tenants) {
			// Nobody can start before holdUntil: those who may not wait that long are told now.
			if (holdUntil > now) this.refuseImpatient(tenant, holdUntil);
		}
		for (;;) {
			const tenant = this.nextTenant(now);
			if (!tenant) return;
			const startAt = Math.max(this.pausedUntil, this.nextPacedStart(now), tenant.nextStartAt);
			if (startAt > now) {
				this.wakeAt(startAt);
				return;
			}
			this.afterReset(now);
			if (this.budgetSpent()) return;
			this.start(tenant, now);
		}
	}

	/** The next execution, in turn, that has a request waiting and room under its concurrency. */
	private nextTenant(now: number): Tenant | undefined {
		const tenants = [...this.tenants];
		// Executions that began without a token wait for one answer, whoever sends the request: several
		// sheets started together fetch one token, not one each.
		const tokenPending = (tenant: Tenant) => tenant.settings.firstRequestAlone === true && this.lastAnswerAt < tenant.joinedAt;
		const aloneInFlight = tenants.some((tenant) => tokenPending(tenant) && tenant.inFlight > 0);
		for (let offset = 0; offset < tenants.length; offset++) {
			const tenant = tenants[(this.turn + offset) % tenants.length];
			if (tenant.queue.length === 0 || tenant.inFlight >= tenant.settings.maxConcurrency) continue;
			if (tokenPending(tenant) && aloneInFlight) continue;
			if (tenant.nextStartAt > now) {
				this.wakeAt(tenant.nextStartAt);
				continue;
			}
			this.turn = (this.turn + offset + 1) % tenants.length;
			return tenant;
		}
		return undefined;
	}

	private start(tenant: Tenant, now: number): void {
		const waiter = tenant.queue.shift()!;
		tenant.inFlight += 1;
		this.inFlight += 1;
		this.stats.requests += 1;
		this.firstSentAt ??= now;
		this.startedSinceRemaining += 1;
		this.lastStartAt = now;
		if (this.probeDue) {
			this.probeDue = false;
			this.probeSentAt = now;
		}
		if (this.rate !== undefined) {
			this.refreshCredit(now);
			// Spending credit saved up beyond the pace: a 429 soon after blames the burst, not the pace.
			if (this.credit >= this.catchUpCredit() + 1) this.lastBurstAt = now;
			this.credit -= 1;
		}
		const cap = tenant.settings.maxRequestsPerSecond;
		if (cap) tenant.nextStartAt = now + 1000 / cap;
		waiter.resolve({ kind: 'go', sentAt: now });
	}

	private refuseImpatient(tenant: Tenant, until: number): void {
		for (let index = tenant.queue.length - 1; index >= 0; index--) {
			const waiter = tenant.queue[index];
			if (waiter.notAfter < until) {
				tenant.queue.splice(index, 1);
				waiter.resolve({ kind: 'paused', until });
			}
		}
	}

	/** When the pace allows the next start: at once while the budget or the credit lasts. */
	private nextPacedStart(now: number): number {
		if (this.remainingIsFresh(now)) {
			const budgetLeft = this.remaining! - this.startedSinceRemaining;
			if (this.windowed) {
				// The first request after a reset goes a little ahead of the others: if the reset was
				// reckoned early, it alone meets the 429.
				if (this.startedSinceRemaining >= 1 && this.staggerUntil > now) return this.staggerUntil;
				// A window's budget is spent whole, then everybody waits for its reset.
				if (budgetLeft >= 1 || this.resetAt === undefined || this.resetAt <= now) return 0;
				return this.resetAt;
			}
			// While the registry's budget lasts, spend it; pace at the refill rate once it is nearly gone.
			if (budgetLeft >= 2 || this.refillIntervalMs === 0) return 0;
			return this.lastStartAt + this.refillIntervalMs;
		}
		if (this.rate === undefined) return 0;
		this.refreshCredit(now);
		if (this.credit >= 1) return 0;
		return now + ((1 - this.credit) * 1000) / this.rate;
	}

	/**
	 * Wait for an answer rather than guess: with a known budget spent and no refill estimate yet, or
	 * while the one request sent after a window's reset is out.
	 */
	private budgetSpent(): boolean {
		if (this.probeSentAt !== undefined) return true;
		const now = Date.now();
		return (
			this.remainingIsFresh(now) &&
			this.remaining! - this.startedSinceRemaining <= 0 &&
			(this.refillIntervalMs === 0 || this.windowed) &&
			this.inFlight > 0
		);
	}

	/**
	 * A window's reset has come: its budget is what the last reset gave, where an answer told it;
	 * otherwise one request goes alone and its answer tells it.
	 */
	private afterReset(now: number): void {
		if (!this.windowed || !this.remainingIsFresh(now) || this.remaining! - this.startedSinceRemaining >= 1) return;
		if (this.resetAt === undefined || this.resetAt > now) return;
		this.resetAt = undefined;
		this.lastResetAt = now;
		if (this.budgetAfterReset !== undefined) {
			this.remaining = this.budgetAfterReset;
			this.remainingAt = now;
			this.startedSinceRemaining = 0;
			this.assumedBudget = true;
			this.staggerUntil = now + RESET_STAGGER_MS;
		} else {
			this.remaining = undefined;
			this.probeDue = true;
		}
	}

	/**
	 * X-RateLimit-Reset, counted from the answer's arrival: the registry counted it earlier, so the budget
	 * is back by then (whole seconds make it up to a second late; the earliest answer of a window tells best).
	 */
	private recordReset(report: RequestReport, now: number): void {
		// An answer to a request sent before the last reset speaks of the window that ended.
		if (report.sentAt < this.lastResetAt) return;
		const at = (report.sentAt + now) / 2 + report.resetMs!;
		if (at <= now) return;
		if (this.resetAt === undefined || this.resetAt <= now || at < this.resetAt) this.resetAt = at;
	}

	private remainingIsFresh(now: number): boolean {
		if (this.remaining === undefined) return false;
		// A spent window's budget holds until its reset, however long the window.
		return now - this.remainingAt < REMAINING_TTL_MS || (this.windowed && this.resetAt !== undefined && this.resetAt > now);
	}

	/**
	 * Credit kept even where the registry holds no burst: a timer fires a little late, and without this
	 * slack every late wake-up would be lost from the pace.
	 */
	private catchUpCredit(): number {
		return Math.max(1, ((this.rate ?? 0) * CATCH_UP_MS) / 1000);
	}

	private refreshCredit(now: number): void {
		if (this.rate === undefined) return;
		const cap = Math.max(this.creditCap, this.catchUpCredit());
		this.credit = Math.min(cap, this.credit + (Math.max(0, now - this.creditAt) * this.rate) / 1000);
		this.creditAt = now;
	}

	/** One timer at a time, for the earliest moment something may start (n8n's sleep: no setTimeout here). */
	private wakeAt(time: number): void {
		if (this.wakeArmedFor !== undefined && this.wakeArmedFor <= time) return;
		this.wakeArmedFor = time;
		void wait(Math.min(MAX_TIMER_MS, Math.max(0, time - Date.now()))).then(() => {
			if (this.wakeArmedFor === time) this.wakeArmedFor = undefined;
			this.pump();
		});
	}

	private onAnswered(now: number, report: RequestReport): void {
		this.answered += 1;
		this.answeredSinceEvent += 1;
		this.stormLevel = 0;
		if (report.remaining !== undefined) this.recordRemaining(now, report.remaining);
		if (this.rate === undefined) return;
		if (this.ceiling !== undefined && this.rate < 0.97 * this.ceiling) {
			this.rate += (this.ceiling - this.rate) * RECOVERY_PER_ANSWER;
		} else {
			// Beyond the last event's rate, probe slowly: a limit that rose is found again.
			const growth = this.ceiling === undefined ? SEARCH_GROWTH_PER_SECOND : PROBE_GROWTH_PER_SECOND;
			this.rate *= Math.pow(1 + growth, 1 / this.rate);
		}
	}

	private onRateLimited(now: number, report: RequestReport): void {
		if (this.budgetRefused(now, report)) return;
		// A request sent before the last event met the same congestion: one wave, one decrease.
		if (this.lastEventAt !== undefined && report.sentAt <= this.lastEventAt) return;
		this.stats.events += 1;
		const since = this.lastEventAt ?? this.firstSentAt ?? now;
		const answered = this.answeredSinceEvent;
		this.lastEventAt = now;
		this.answeredSinceEvent = 0;
		this.recentEvents.push(now);
		while (this.recentEvents.length > 0 && now - this.recentEvents[0] > STORM_WINDOW_MS) this.recentEvents.shift();
		// A 429 ends what the remaining budget said: the registry is out, whatever it told before.
		this.remaining = undefined;

		if (this.rate === undefined) {
			// The first limit seen: pause briefly, then pace at what was admitted over the time including
			// the pause, with the burst beyond that rate as credit. Too few answers say nothing of a rate
			// (one company that always meets 429, a quota): then only pause.
			const pauseMs = Math.min(FIRST_PAUSE_MAX_MS, report.retryAfterMs ?? FIRST_PAUSE_MAX_MS);
			const activeMs = Math.max(1, now - since);
			if (answered >= MIN_ANSWERS_FOR_RATE) {
				this.rate = (answered * 1000) / (activeMs + pauseMs);
				this.creditCap = Math.max(1, Math.min(answered, answered - (this.rate * activeMs) / 1000));
			}
			this.pauseUntil(now + pauseMs);
		} else if (this.creditCap > this.catchUpCredit() && report.sentAt - this.lastBurstAt < BURST_BLAME_MS) {
			// The registry did not hold the burst (a window, not a bucket): keep the pace, burst no more,
			// and let the burst leave the registry's window before sending on.
			this.creditCap = 1;
			this.pauseUntil(now + Math.min(FIRST_PAUSE_MAX_MS, report.retryAfterMs ?? FIRST_PAUSE_MAX_MS));
		} else {
			const admitted = (answered * 1000) / Math.max(1, now - since);
			this.ceiling = this.rate;
			this.rate = Math.max(0.1, Math.min(0.95 * this.rate, Math.max(0.5 * this.rate, admitted)));
			this.creditCap = Math.max(1, Math.min(this.creditCap, this.rate / 10));
			if (this.recentEvents.length >= STORM_EVENTS) {
				const pauseMs = Math.min(STORM_PAUSE_MAX_MS, report.retryAfterMs ?? 1000, 1000 * 2 ** this.stormLevel);
				this.stormLevel += 1;
				this.pauseUntil(now + pauseMs);
			}
		}
		this.credit = 0;
		this.creditAt = now;
	}

	/**
	 * A 429 while the registry's own budget said go (or to the budget assumed after a reset): the budget
	 * comes back whole at a reset, not request by request. Where the registry says when (X-RateLimit-Reset
	 * or Retry-After), nobody sends again until then; returns false where it does not, and the 429 teaches
	 * a pace instead.
	 */
	private budgetRefused(now: number, report: RequestReport): boolean {
		if (!this.remainingIsFresh(now) && !this.windowed) return false;
		if (this.resetAt === undefined || this.resetAt <= now) {
			if (report.retryAfterMs === undefined) return false;
			this.resetAt = now + Math.max(report.retryAfterMs, 100);
		}
		if (report.sentAt > (this.lastEventAt ?? Number.NEGATIVE_INFINITY)) {
			this.stats.events += 1;
			this.lastEventAt = now;
		}
		this.windowed = true;
		// An assumed budget was too much: the next reset is probed again.
		if (this.assumedBudget) this.budgetAfterReset = undefined;
		this.assumedBudget = false;
		this.remaining = 0;
		this.remainingAt = now;
		this.startedSinceRemaining = this.inFlight;
		return true;
	}

	private pauseUntil(time: number): void {
		if (time > this.pausedUntil) this.stats.pauses += 1;
		this.pausedUntil = Math.max(this.pausedUntil, time);
	}

	/** X-RateLimit-Remaining: the registry's budget now, and (over a window) how fast it refills. */
	private recordRemaining(now: number, remaining: number): void {
		this.remaining = remaining;
		this.assumedBudget = false;
		this.remainingAt = now;
		// Requests still in flight were sent before this answer and will spend from this budget.
		this.startedSinceRemaining = this.inFlight;
		this.samples.push({ at: now, remaining, answered: this.answered });
		while (this.samples.length > 2 && now - this.samples[0].at > REFILL_WINDOW_MS) this.samples.shift();
		const first = this.samples[0];
		const spanMs = now - first.at;
		if (spanMs >= 500) {
			const refillPerSecond = ((remaining - first.remaining + (this.answered - first.answered)) * 1000) / spanMs;
			if (refillPerSecond > 0) this.refillIntervalMs = 1000 / refillPerSecond;
		}
	}
}

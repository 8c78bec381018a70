import { MAX_TIMER_MS, realClock, type Clock } from './wait';

/**
 * When may the next lookup start? One controller per registry and client id, shared by every
 * execution in this n8n process (main, or one queue-mode worker), so that a sheet and an onboarding
 * form spend one quota together instead of discovering each other through 429s. Across processes the
 * controllers adapt through the registry's answers alone.
 *
 * The model, the same for every limiter family (token bucket, fixed or sliding window, with or without
 * rate-limit headers):
 * - Until the registry shows a limit, requests go as fast as each execution's concurrency allows
 *   (the first one alone while the credential has no token, so that one token is fetched and stored;
 *   its try ending in any way, a timeout too, lets the others go). Time comes only from the Clock.
 * - Where answers carry X-RateLimit-Remaining, that budget is spent freely and, once nearly gone,
 *   requests are paced at the refill rate measured from how the budget moves (answers overtake each
 *   other: the count of the latest request sent counts). When the registry refuses and says when its
 *   budget returns (X-RateLimit-Reset), one request alone a moment later tells whether it comes back all
 *   at once (a window): from then on it is spent whole and nobody sends until the reset; the first
 *   request after that goes alone, and its answer tells the new budget. A bucket's 429 pauses until the
 *   budget returns, and the budget paces on.
 * - Otherwise 429s teach the limit. The first 429 pauses everybody briefly; the admitted rate is the
 *   successes seen since sending began (after the last quiet spell) divided by the time including
 *   that pause (a bucket refills while nobody sends), and the burst it allowed sets how much credit
 *   may be spent at once. From then on requests are paced by a mirror token bucket at that rate.
 *   Refused within that pause of the first request, the pause counts from when sending began (what a
 *   window admitted first leaves it first) and the pace starts from nothing after it, with no burst.
 * - Each later 429 wave is one congestion event: the rate drops at least 5% (at most by half) towards
 *   what the registry admitted per second of sending over the last second (longer at slow paces: a few
 *   answers say nothing), and climbs back quickly towards that, then slowly beyond it, so a limit that
 *   rises is found again. In a spell of waves less than a second apart, once requests sent during the
 *   spell have had enough answers, only they count: the second before may have spent a reserve (a
 *   bucket that filled during a pause) the registry no longer has. With less than two seconds of work
 *   left the pace stops probing: a 429 there costs its request a whole Retry-After, with nothing left to
 *   send meanwhile. Requests sent before an event that meet 429
 *   belong to it: one wave, one decrease. A wave that follows a burst of saved-up credit says the
 *   registry does not hold bursts (a window, not a bucket): the pace stays, bursts end, and nobody
 *   sends until the burst has left the registry's window (as long after it began as the first pause).
 * - Waves with nothing admitted between them are a storm: everybody waits out the Retry-After
 *   (capped, doubling). Waves with admissions between them are congestion: a pause would only let a
 *   bucket fill up unused, and let the pace overshoot it unseen afterwards.
 * - Headers are evidence, checked against what the registry does: Retry-After 0 or in the past says
 *   nothing (every pause has a floor); a negative count is none; a count that never rose above 1 while
 *   requests it held back were admitted is no budget; a 429 while the count has plenty left makes the
 *   count a longer quota's, whose Reset is not this 429's wait. Waves of 429s with nothing admitted that
 *   say to wait for hours are a spent quota: who cannot wait that long is told at once.
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
	/** What the registry says is left of its budget, in any dialect (rateControl/headers); never negative. */
	remaining?: number;
	/** For a 429: how long the registry asked to wait, where it said so. */
	retryAfterMs?: number;
	/** In how many ms after `sentAt` the registry says its budget is refilled (rateControl/headers). */
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
	/** How many of this execution's rows no lookup has taken yet (undefined: unknown, many). */
	rowsNotTaken?: () => number;
	/**
	 * How long one lookup may wait for the registry's rate limit: a window whose reset is further away
	 * (a spent daily quota) fails the waiting lookups at once instead of holding them.
	 */
	maxRateLimitWaitMs?: number;
}

export type Acquired =
	| { kind: 'go'; sentAt: number }
	| { kind: 'cancelled' }
	| { kind: 'paused'; until: number };

interface Waiter {
	notAfter: number;
	resolve: (acquired: Acquired) => void;
}

/** One execution's share of a controller. Pair every `go` with `release`. */
export class Tenant {
	readonly queue: Waiter[] = [];
	inFlight = 0;
	nextStartAt = 0;
	readonly joinedAt: number;

	constructor(
		private readonly controller: RateController,
		readonly settings: TenantSettings,
	) {
		this.joinedAt = controller.clock.now();
	}

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
/** Before a limit is known, a spell this long with nothing sent or answered starts the count of what was admitted afresh. */
const QUIET_SPELL_MS = 1_000;
const MIN_ANSWERS_FOR_RATE = 5;
const STORM_PAUSE_MAX_MS = 8_000;
/** Waves of 429s with nothing admitted between them, each saying to wait beyond STORM_PAUSE_MAX_MS, that make a spent quota (one could be a single company's). */
const SPENT_QUOTA_WAVES = 2;
/** Congestion events closer together than this, with nothing admitted between them, count towards a storm. */
const STORM_WINDOW_MS = 2_000;
const STORM_EVENTS = 3;
/** A 429 to a request sent this soon after the last burst of saved-up credit is the burst's fault. */
const BURST_BLAME_MS = 1_000;
/** The shortest and longest span over which the rate the registry admitted is measured at a 429 wave. */
const ADMITTED_SPAN_MS = 1_000;
const ADMITTED_SPAN_MAX_MS = 5_000;
const ADMITTED_SPAN_ANSWERS = 20;
/** Waves of 429s closer together than this are one spell of congestion. */
const CONGESTION_SPELL_MS = 1_000;
/** The first request after a window's reset refused (the reset reckoned early): nobody sends this long, doubling in a row. */
const EARLY_RESET_HOLD_MS = 25;
/** The shortest pause, and the shortest wait for a window's reset, whatever the headers say. */
const MIN_WAIT_MS = 100;
/** After a refusal that suggests a window, how long until one request alone tells window from bucket. */
const CONFIRM_AFTER_MS = 100;
/** How far behind the pace a late timer may let requests catch up at once. */
const CATCH_UP_MS = 50;
/** Growth per second of the pace: towards the last event's rate, and beyond it. */
const RECOVERY_PER_ANSWER = 0.05;
/** Before any congestion event while paced the first estimate may be low: find the limit quickly. */
const SEARCH_GROWTH_PER_SECOND = 0.25;
const PROBE_GROWTH_PER_SECOND = 0.02;
/** With less work left than this many seconds at the pace, the pace stops probing beyond the last event's rate. */
const END_OF_WORK_S = 2;
/** The window over which the registry's refill rate is estimated from X-RateLimit-Remaining. */
const REFILL_WINDOW_MS = 3_000;
/**
 * A 429 while the registry's count still leaves this many requests comes from another limit than the
 * count's: more than the few requests other clients of a shared limit spend within one round trip.
 */
const QUOTA_LEFT_AT_429 = 10;
/** Admissions of requests sent when the count said "spent" that refute a count never above 1 (a constant). */
const ADMITTED_WHILE_SPENT = 2;
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
	static for(key: string, clock: Clock = realClock): RateController {
		const existing = RateController.shared.get(key);
		if (
			existing?.clock === clock &&
			(existing.tenants.size > 0 || clock.now() - existing.idleSince < IDLE_RESET_MS)
		)
			return existing;
		const controller = new RateController(clock);
		RateController.shared.set(key, controller);
		return controller;
	}

	/** For tests: every registry starts unknown again. */
	static forgetAll(): void {
		RateController.shared.clear();
	}

	private readonly tenants = new Set<Tenant>();
	private turn = 0;
	private idleSince: number;
	/** When any request last got an answer. */
	private lastAnswerAt = 0;
	/**
	 * When any request's try last ended, answered or not: by then the credential's token exchange has
	 * happened (a token is stored) or failed (its lookup says so). A registry that never answers must
	 * not keep everybody else behind the first request.
	 */
	private lastTryEndedAt = Number.NEGATIVE_INFINITY;
	private inFlight = 0;
	private pausedUntil = 0;
	private pausedSince = 0;
	/** The requests the registry admitted lately (the last few seconds): when each was answered, and sent. */
	private readonly admitted: Array<{ at: number; sentAt: number }> = [];
	/** How long an answer takes, lately (a moving average). */
	private latencyMs = 0;
	private stormLevel = 0;
	/** A spent quota: nobody sends before this (see onRateLimited). */
	private quotaSpentUntil = 0;
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
	/** When the current spell of congestion (waves less than CONGESTION_SPELL_MS apart) began. */
	private congestionSince = 0;
	private lastCongestionAt = Number.NEGATIVE_INFINITY;

	/**
	 * The registry's count (X-RateLimit-Remaining) is taken for the budget it enforces until the registry
	 * shows otherwise: a count that never rose above 1 while requests sent when it said "spent" were
	 * admitted is refuted (a constant 0 or 1), unless a 429 came when it said spent (confirmed for good:
	 * a bucket of one looks like a constant 0 until it refuses).
	 */
	private countConfirmed = false;
	private countRefuted = false;
	/** The highest count seen. */
	private countPeak = 0;
	/** Requests sent while the count said the budget was (nearly) spent, and how many of them were admitted. */
	private readonly sentWhileSpent = new Set<number>();
	private admittedWhileSpent = 0;
	/**
	 * A 429 came while the registry's count said plenty was left: the count is a longer quota's (5,000 an
	 * hour) and its reset says when that quota refills, not how long this 429 lasts. The 429s teach the
	 * limit that refuses; the count matters again only once it says the quota is spent.
	 */
	private countIsQuota = false;

	/** Learned from X-RateLimit-Remaining on ordinary answers. */
	private answered = 0;
	private remaining: number | undefined;
	private remainingAt = 0;
	/** When the request whose answer told `remaining` left. */
	private remainingSentAt = 0;
	private startedSinceRemaining = 0;
	private refillIntervalMs = 0;
	private readonly samples: RemainingSample[] = [];
	private lastStartAt = 0;
	private lastBurstAt = Number.NEGATIVE_INFINITY;
	/** When the last burst of saved-up credit began. */
	private burstStartedAt = 0;
	/** The earliest moment the answers say the registry's budget is refilled (X-RateLimit-Reset). */
	private resetAt: number | undefined;
	/** Set once the registry refused beyond its own budget: it comes back whole, at a reset. */
	private window: WindowBudget | undefined;
	/** A suspected window was a bucket after all. */
	private refillsSeen = false;

	/** What the controller did, for tests and the benchmark. */
	readonly stats = { requests: 0, events: 0, pauses: 0 };

	/** Time only through `clock`: real in n8n, virtual in the unit tests and bench:sim. */
	constructor(readonly clock: Clock = realClock) {
		this.idleSince = clock.now();
	}

	join(settings: TenantSettings): Tenant {
		const tenant = new Tenant(this, settings);
		this.tenants.add(tenant);
		return tenant;
	}

	leave(tenant: Tenant): void {
		tenant.cancelWaiting();
		this.tenants.delete(tenant);
		if (this.tenants.size === 0) this.idleSince = this.clock.now();
		this.pump();
	}

	/** Lookups still to send by every execution here: those waiting, in flight, and rows not yet taken. */
	private workLeft(): number {
		let left = 0;
		for (const tenant of this.tenants)
			left +=
				tenant.queue.length +
				tenant.inFlight +
				(tenant.settings.rowsNotTaken?.() ?? Number.POSITIVE_INFINITY);
		return left;
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

	release(tenant: Tenant, told: RequestReport): void {
		const now = this.clock.now();
		// "Retry-After: 0" or a date in the past (a registry clock behind) says nothing of how long the
		// limit lasts: read as no Retry-After, never as "at once". (A count below zero never gets here:
		// rateControl/headers reads it as no count.)
		const report: RequestReport = {
			...told,
			retryAfterMs:
				told.retryAfterMs !== undefined && told.retryAfterMs > 0 ? told.retryAfterMs : undefined,
		};
		tenant.inFlight -= 1;
		this.inFlight -= 1;
		this.lastTryEndedAt = now;
		if (report.status !== undefined) this.lastAnswerAt = now;
		if (this.window) {
			this.window.answered(report, now);
			if (this.window.refuted) {
				this.window = undefined;
				this.refillsSeen = true;
			}
		} else this.resetAt = earliestReset(this.resetAt, report, now);
		if (report.status === 429) this.onRateLimited(now, report);
		else if (report.status !== undefined) this.onAnswered(now, report);
		this.pump();
	}

	/** Starts what may start now, executions in turn; arranges to be called again when more may. */
	private pump(): void {
		const now = this.clock.now();
		const paced = this.nextPacedStart(now);
		const holdUntil = Math.max(this.pausedUntil, paced ?? now);
		for (const tenant of this.tenants) {
			// Nobody can start before holdUntil: those who may not wait that long are told now.
			if (holdUntil > now)
				this.refuseImpatient(
					tenant,
					holdUntil,
					this.window?.waitingForReset(now) === true || this.quotaSpentUntil >= holdUntil,
				);
		}
		// Nothing may start before an answer tells more; that answer pumps again.
		if (paced === undefined) return;
		for (;;) {
			const tenant = this.nextTenant(now);
			if (!tenant) return;
			const pacedStart = this.nextPacedStart(now);
			if (pacedStart === undefined) return;
			const startAt = Math.max(this.pausedUntil, pacedStart, tenant.nextStartAt);
			if (startAt > now) {
				this.wakeAt(startAt);
				return;
			}
			this.start(tenant, now);
		}
	}

	/** The next execution, in turn, that has a request waiting and room under its concurrency. */
	private nextTenant(now: number): Tenant | undefined {
		const tenants = [...this.tenants];
		// Executions that began without a token wait for one answer, whoever sends the request: several
		// sheets started together fetch one token, not one each.
		const tokenPending = (tenant: Tenant) =>
			tenant.settings.firstRequestAlone === true && this.lastTryEndedAt < tenant.joinedAt;
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
		// Before a limit is known, a quiet spell (nothing in flight, no answer for a while) starts the
		// count afresh: a first 429 is measured against what was sent since, not against the form's few
		// lookups an hour ago and the idle time between them.
		if (
			this.rate === undefined &&
			this.inFlight === 0 &&
			now - this.lastAnswerAt >= QUIET_SPELL_MS
		) {
			this.firstSentAt = undefined;
			this.answeredSinceEvent = 0;
		}
		tenant.inFlight += 1;
		this.inFlight += 1;
		this.stats.requests += 1;
		// The pace is measured from when requests began to go together: a first request that went alone
		// (to fetch the token) and was answered before the second left does not count as time admitted.
		if (
			this.firstSentAt === undefined ||
			(this.stats.requests === 2 && this.lastAnswerAt >= this.firstSentAt)
		)
			this.firstSentAt = now;
		const budgetLeft = this.budgetLeft(now);
		if (budgetLeft !== undefined && budgetLeft < 2 && !this.countConfirmed)
			this.sentWhileSpent.add(now);
		this.startedSinceRemaining += 1;
		this.lastStartAt = now;
		this.window?.started(now);
		if (this.rate !== undefined) {
			this.refreshCredit(now);
			// Spending credit saved up beyond the pace: a 429 soon after blames the burst, not the pace.
			if (this.credit >= this.catchUpCredit() + 1) {
				if (this.lastBurstAt < (this.lastEventAt ?? 0)) this.burstStartedAt = now;
				this.lastBurstAt = now;
			}
			this.credit -= 1;
		}
		const cap = tenant.settings.maxRequestsPerSecond;
		if (cap) tenant.nextStartAt = now + 1000 / cap;
		waiter.resolve({ kind: 'go', sentAt: now });
	}

	private refuseImpatient(tenant: Tenant, until: number, windowReset: boolean): void {
		const now = this.clock.now();
		// Waiting for a window's reset is waiting for the rate limit: not longer than the execution allows.
		const windowLimit = windowReset
			? now + (tenant.settings.maxRateLimitWaitMs ?? Number.POSITIVE_INFINITY)
			: Number.POSITIVE_INFINITY;
		for (let index = tenant.queue.length - 1; index >= 0; index--) {
			const waiter = tenant.queue[index];
			if (Math.min(waiter.notAfter, windowLimit) < until) {
				tenant.queue.splice(index, 1);
				waiter.resolve({ kind: 'paused', until });
			}
		}
	}

	/**
	 * When the pace allows the next start: at once while the budget or the credit lasts; undefined while
	 * only an answer can tell (a known budget spent, no refill measured yet, requests in flight).
	 */
	private nextPacedStart(now: number): number | undefined {
		if (this.window) return this.window.nextStart(now, this.inFlight);
		// While the registry's budget lasts, spend it; pace at the refill rate once it is nearly gone, but
		// only where a 429 at a spent budget showed the count is the limit that refuses: a count the
		// registry does not enforce (a constant 0, a quota's) must not slow anybody down.
		const budgetLeft = this.budgetLeft(now);
		if (budgetLeft !== undefined && budgetLeft >= 2) return 0;
		if (budgetLeft !== undefined) {
			if (this.refillIntervalMs > 0) return this.lastStartAt + this.refillIntervalMs;
			return budgetLeft <= 0 && this.inFlight > 0 ? undefined : 0;
		}
		if (this.rate === undefined) return 0;
		this.refreshCredit(now);
		if (this.credit >= 1) return 0;
		return now + ((1 - this.credit) * 1000) / this.rate;
	}

	/**
	 * What the registry's own count (X-RateLimit-Remaining) says is left for requests not yet counted;
	 * undefined where it said nothing lately, or where its count turned out to describe another quota.
	 */
	private budgetLeft(now: number): number | undefined {
		if (!this.remainingIsFresh(now) || this.countIsQuota || this.countRefuted) return undefined;
		return this.remaining! - this.startedSinceRemaining;
	}

	private remainingIsFresh(now: number): boolean {
		return this.remaining !== undefined && now - this.remainingAt < REMAINING_TTL_MS;
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
		this.credit = Math.min(
			cap,
			this.credit + (Math.max(0, now - this.creditAt) * this.rate) / 1000,
		);
		// Credit may be set to begin later (at a pause's end).
		this.creditAt = Math.max(this.creditAt, now);
	}

	/** One timer at a time, for the earliest moment something may start (n8n's sleep: no setTimeout here). */
	private wakeAt(time: number): void {
		if (this.wakeArmedFor !== undefined && this.wakeArmedFor <= time) return;
		this.wakeArmedFor = time;
		void this.clock.sleep(Math.min(MAX_TIMER_MS, Math.max(0, time - this.clock.now()))).then(() => {
			if (this.wakeArmedFor === time) this.wakeArmedFor = undefined;
			this.pump();
		});
	}

	private onAnswered(now: number, report: RequestReport): void {
		this.answered += 1;
		this.answeredSinceEvent += 1;
		// An admission ends a storm: the waves around it were congestion, not a registry refusing all.
		this.stormLevel = 0;
		// Only an admission says a spent quota is back (a 503 or a dropped connection says nothing of it).
		if (report.status !== undefined && report.status >= 200 && report.status < 300)
			this.quotaSpentUntil = 0;
		this.recentEvents.length = 0;
		this.admitted.push({ at: now, sentAt: report.sentAt });
		while (now - this.admitted[0].at > ADMITTED_SPAN_MAX_MS) this.admitted.shift();
		this.latencyMs += (now - report.sentAt - this.latencyMs) * 0.1;
		if (this.sentWhileSpent.delete(report.sentAt)) this.admittedWhileSpent += 1;
		if (
			!this.countConfirmed &&
			this.countPeak <= 1 &&
			this.admittedWhileSpent >= ADMITTED_WHILE_SPENT
		)
			this.countRefuted = true;
		if (report.remaining !== undefined) this.recordRemaining(now, report.sentAt, report.remaining);
		if (this.rate === undefined) return;
		if (this.ceiling !== undefined && this.rate < 0.97 * this.ceiling) {
			this.rate += (this.ceiling - this.rate) * RECOVERY_PER_ANSWER;
		} else {
			// Near the end of the work a higher limit would gain nothing, and a 429 would cost its request a
			// whole Retry-After with nothing else left to send meanwhile: the pace stops probing.
			if (this.workLeft() < this.rate * END_OF_WORK_S) return;
			// Beyond the last event's rate, probe slowly: a limit that rose is found again.
			const growth =
				this.ceiling === undefined ? SEARCH_GROWTH_PER_SECOND : PROBE_GROWTH_PER_SECOND;
			this.rate *= Math.pow(1 + growth, 1 / this.rate);
		}
	}

	private onRateLimited(now: number, report: RequestReport): void {
		if (this.window) return;
		// Headers are evidence, checked against what the registry does: refused with plenty left, the
		// count is not the limit that refused; refused at the end of it, it is. The count on the 429 itself,
		// where it has one, is the registry's own word on which budget refused.
		const left =
			report.remaining ??
			(this.remainingIsFresh(now) ? this.remaining! - this.startedSinceRemaining : undefined);
		if (left !== undefined && left >= QUOTA_LEFT_AT_429) this.countIsQuota = true;
		else if (left !== undefined && left <= 0) {
			this.countIsQuota = false;
			this.countConfirmed = true;
			this.countRefuted = false;
		}
		if (
			this.budgetLeft(now) !== undefined &&
			(this.budgetRefused(now, report) || this.budgetSpent(now, report))
		)
			return;
		// A request sent before the last event met the same congestion: one wave, one decrease.
		if (this.lastEventAt !== undefined && report.sentAt <= this.lastEventAt) return;
		this.stats.events += 1;
		const since = this.lastEventAt ?? this.firstSentAt ?? now;
		const answered = this.answeredSinceEvent;
		this.lastEventAt = now;
		this.answeredSinceEvent = 0;
		this.recentEvents.push(now);
		while (this.recentEvents.length > 0 && now - this.recentEvents[0] > STORM_WINDOW_MS)
			this.recentEvents.shift();
		// A 429 ends what the remaining budget said: the registry is out, whatever it told before.
		this.remaining = undefined;
		// Refused in wave after wave with nothing admitted, told each time to wait longer than a storm's
		// longest pause: a spent quota (a day's). Everybody waits until then, and who cannot wait that
		// long fails now, instead of each row spending a round trip to learn it.
		if (
			this.recentEvents.length >= SPENT_QUOTA_WAVES &&
			report.retryAfterMs !== undefined &&
			report.retryAfterMs > STORM_PAUSE_MAX_MS
		) {
			this.quotaSpentUntil = now + report.retryAfterMs;
			this.pauseUntil(this.quotaSpentUntil);
			return;
		}

		if (this.rate === undefined) {
			// The first limit seen: pause briefly, then pace at what was admitted over the time including
			// the pause, with the burst beyond that rate as credit. Too few answers say nothing of a rate
			// (one company that always meets 429, a quota): then only pause.
			const pauseMs = pauseFor(report, FIRST_PAUSE_MAX_MS, FIRST_PAUSE_MAX_MS);
			const activeMs = Math.max(1, now - since);
			// Refused within a pause of the first request: a window's admissions leave it (a bucket refills)
			// counted from when sending began, so the pause is too. What was admitted came back by then, at
			// the speed it went: nothing is spent at once after the pause (it would meet requests that have
			// not left a sliding window yet), the pace starts from nothing.
			const early = activeMs < pauseMs;
			if (answered >= MIN_ANSWERS_FOR_RATE) {
				this.rate = (answered * 1000) / (early ? pauseMs : activeMs + pauseMs);
				this.creditCap = Math.max(1, Math.min(answered, answered - (this.rate * activeMs) / 1000));
			}
			if (early) {
				const pauseEnd = Math.max(now + MIN_WAIT_MS, since + pauseMs);
				this.pauseUntil(pauseEnd);
				this.credit = 0;
				this.creditAt = pauseEnd;
				return;
			}
			this.pauseUntil(now + pauseMs);
		} else if (
			this.creditCap > this.catchUpCredit() &&
			report.sentAt - this.lastBurstAt < BURST_BLAME_MS
		) {
			// The registry did not hold the burst (a window, not a bucket): keep the pace, burst no more,
			// and let the burst leave the registry's window before sending on.
			this.creditCap = 1;
			this.pauseUntil(
				Math.max(
					now + MIN_WAIT_MS,
					this.burstStartedAt + pauseFor(report, FIRST_PAUSE_MAX_MS, FIRST_PAUSE_MAX_MS),
				),
			);
		} else {
			// Waves close together are one spell of congestion: what was admitted since it began tells the limit.
			if (now - this.lastCongestionAt > CONGESTION_SPELL_MS) this.congestionSince = now;
			this.lastCongestionAt = now;
			const admitted = this.admittedRate(now);
			// The pace to climb back to is what the registry took, not the pace that overshot it: where
			// 429s lag behind the pace (a sliding window), the pace has grown past the limit by then. Where
			// it took more than the pace (right after a pause), the limit is higher: climb back to that.
			this.ceiling = Math.min(1.25 * this.rate, Math.max(0.5 * this.rate, admitted));
			this.rate = Math.max(0.1, Math.min(0.95 * this.rate, this.ceiling));
			this.creditCap = Math.max(1, Math.min(this.creditCap, this.rate / 10));
			if (this.recentEvents.length >= STORM_EVENTS) {
				const pauseMs = pauseFor(
					report,
					1000,
					Math.min(STORM_PAUSE_MAX_MS, 1000 * 2 ** this.stormLevel),
				);
				this.stormLevel += 1;
				this.pauseUntil(now + pauseMs);
			}
		}
		this.credit = 0;
		this.creditAt = now;
	}

	/**
	 * What the registry admitted per second of sending just before this wave: over the last second, or
	 * over the time 20 answers take at a slow pace (a few answers more or less swing the figure). Not
	 * since the last wave: that would average in the climb back after it, and the pace would settle
	 * below the limit. A pause is no time the registry refused.
	 */
	private admittedRate(now: number): number {
		// In a spell of waves, the second before it began may have spent a reserve the registry no longer
		// has (a bucket filled during a pause): once requests sent during the spell have been admitted
		// often enough, only they count, per ms of sending up to those whose answers are due by now.
		const until = now - this.latencyMs;
		const inSpell = this.admitted.filter(
			({ sentAt }) => sentAt > this.congestionSince && sentAt <= until,
		).length;
		if (until > this.congestionSince && inSpell >= ADMITTED_SPAN_ANSWERS / 2) {
			const pausedMs = Math.max(
				0,
				Math.min(until, this.pausedUntil) - Math.max(this.congestionSince, this.pausedSince),
			);
			return (inSpell * 1000) / Math.max(1, until - this.congestionSince - pausedMs);
		}
		const spanMs = Math.min(
			ADMITTED_SPAN_MAX_MS,
			Math.max(ADMITTED_SPAN_MS, (ADMITTED_SPAN_ANSWERS * 1000) / (this.rate ?? 1)),
		);
		const from = now - spanMs;
		const pausedMs = Math.max(
			0,
			Math.min(now, this.pausedUntil) - Math.max(from, this.pausedSince),
		);
		const count = this.admitted.filter(({ at }) => at > from).length;
		return (count * 1000) / Math.max(1, now - from - pausedMs);
	}

	/**
	 * A 429 from a registry that tells its budget on its answers: the budget may come back whole at a
	 * reset, not request by request (a window). A refill measured so far does not rule that out: a
	 * window's reset that falls while its first budget is spent looks like one. Where the registry says
	 * when (X-RateLimit-Reset), one request alone a moment later tells: refused too, it is a window,
	 * reckoned per window from then on; admitted, it is a bucket (and stays one). Where the registry does
	 * not say when, the budget paces on (budgetSpent).
	 */
	private budgetRefused(now: number, report: RequestReport): boolean {
		if (!this.remainingIsFresh(now) || this.refillsSeen) return false;
		const resetAt = earliestReset(this.resetAt, report, now);
		if (resetAt === undefined) return false;
		this.stats.events += 1;
		this.lastEventAt = now;
		this.window = new WindowBudget(now, Math.max(resetAt, now + MIN_WAIT_MS));
		return true;
	}

	/**
	 * A 429 from a registry that tells its budget on its answers, not taken for a window: the budget is
	 * spent. Nobody sends until the 429 says it is back (at most a second); the next answer's count, set
	 * beside the earlier ones, tells how fast it refills. The budget keeps pacing: a rate guessed from
	 * 429s, with a burst of credit, would overshoot a bucket that refills slowly.
	 */
	private budgetSpent(now: number, report: RequestReport): boolean {
		if (!this.remainingIsFresh(now) || this.rate !== undefined) return false;
		this.stats.events += 1;
		this.lastEventAt = now;
		this.remaining = 0;
		this.remainingAt = now;
		this.remainingSentAt = report.sentAt;
		this.startedSinceRemaining = this.inFlight;
		this.pauseUntil(
			now + pauseFor(report, report.resetMs ?? FIRST_PAUSE_MAX_MS, FIRST_PAUSE_MAX_MS),
		);
		return true;
	}

	private pauseUntil(time: number): void {
		if (time <= this.pausedUntil) return;
		this.stats.pauses += 1;
		const now = this.clock.now();
		if (this.pausedUntil < now) this.pausedSince = now;
		this.pausedUntil = time;
	}

	/** X-RateLimit-Remaining: the registry's budget now, and (over a window) how fast it refills. */
	private recordRemaining(now: number, sentAt: number, remaining: number): void {
		// Answers overtake each other: a count from a request that left before the one that told the current
		// count is older news, and of requests that left together the lowest count is the latest.
		const older =
			sentAt < this.remainingSentAt ||
			(sentAt === this.remainingSentAt && remaining >= this.remaining!);
		if (this.remainingIsFresh(now) && older) return;
		this.countPeak = Math.max(this.countPeak, remaining);
		this.remaining = remaining;
		this.remainingAt = now;
		this.remainingSentAt = sentAt;
		// Requests still in flight were sent before this answer and will spend from this budget.
		this.startedSinceRemaining = this.inFlight;
		this.samples.push({ at: now, remaining, answered: this.answered });
		while (this.samples.length > 2 && now - this.samples[0].at > REFILL_WINDOW_MS)
			this.samples.shift();
		const first = this.samples[0];
		const spanMs = now - first.at;
		if (spanMs >= 500) {
			const refillPerSecond =
				((remaining - first.remaining + (this.answered - first.answered)) * 1000) / spanMs;
			if (refillPerSecond > 0) this.refillIntervalMs = 1000 / refillPerSecond;
		}
	}
}

/** The earliest of a known reset and the one this answer tells, where it is still ahead. */
function earliestReset(
	known: number | undefined,
	report: RequestReport,
	now: number,
): number | undefined {
	const current = known !== undefined && known > now ? known : undefined;
	if (report.resetMs === undefined || report.resetMs <= 0) return current;
	// Counted from when the request left: a request sent that long after this one reaches the registry
	// about when the budget is back (from when it answered, each window would start a little later).
	const at = report.sentAt + report.resetMs;
	if (at <= now) return current;
	return current === undefined ? at : Math.min(current, at);
}

/**
 * A registry whose budget comes back whole at a reset (a fixed window, a quota): the budget is spent,
 * then nobody sends until X-RateLimit-Reset says it is back. What a reset gives is told by the answer to
 * the first request after it, which goes alone (later answers overtake each other, so their remaining
 * counts are only roughly ordered): one round trip per window, and nothing is sent on a guess, so a slow
 * token bucket taken for a window (its reset says when one token is back, not a whole budget) is served
 * at its rate without 429s. A refusal within a window lowers that window's budget to what it admitted.
 */
class WindowBudget {
	private lastResetAt: number;
	/** Our requests sent since the last reset that the registry may have counted, oldest first. */
	private starts: number[] = [];
	/** This window's budget; undefined until an answer tells it (then one request goes alone). */
	private budget: number | undefined;
	/** What the last reset gave, as the answer to its first request told it: assumed where an answer tells no budget. */
	private given: number | undefined;
	/** The first request after the last reset, whose answer tells what the reset gave. */
	private leadSentAt: number | undefined;
	/** A request sent alone whose answer is awaited before anybody else sends. */
	private probeSentAt: number | undefined;
	/** Refusals of the first request after a reset in a row: the reset came a little later than reckoned. */
	private early = 0;
	private holdUntil: number;
	/** Not yet sure: the one request sent after a moment decides (see budgetRefused). */
	private confirming = true;
	/** That request was admitted: the budget refills request by request, a bucket's. */
	refuted = false;

	/** Entered on a refusal: one request alone after a moment, then (a window) nobody until `resetAt`. */
	constructor(
		now: number,
		private resetAt: number | undefined,
	) {
		this.lastResetAt = now;
		this.holdUntil = now + CONFIRM_AFTER_MS;
	}

	/** When the next request may start; undefined while only an answer can tell. */
	nextStart(now: number, inFlight: number): number | undefined {
		this.rollIfDue(now);
		if (this.probeSentAt !== undefined) return undefined;
		if (this.holdUntil > now) return this.holdUntil;
		if (this.left() >= 1) return 0;
		if (this.resetAt !== undefined) return this.resetAt;
		// Spent, and no answer said when it returns: the answers still out will; with none out, ask.
		return inFlight > 0 ? undefined : 0;
	}

	/** Spent, confirmed, and waiting for a reset that an answer announced. */
	waitingForReset(now: number): boolean {
		return (
			!this.confirming &&
			this.left() < 1 &&
			this.holdUntil <= now &&
			this.resetAt !== undefined &&
			this.resetAt > now
		);
	}

	started(now: number): void {
		if (this.budget === undefined) this.probeSentAt = now;
		if (this.starts.length === 0) this.leadSentAt = now;
		this.starts.push(now);
	}

	answered(report: RequestReport, now: number): void {
		this.rollIfDue(now);
		const admitted = report.status !== undefined && report.status >= 200 && report.status < 300;
		if (this.probeSentAt !== undefined && report.sentAt >= this.probeSentAt) {
			this.probeSentAt = undefined;
			if (this.confirming) {
				// Only a 429 or an admission tells window from bucket; anything else asks again.
				if (admitted) this.refuted = true;
				if (report.status !== 429) {
					this.forget(report.sentAt);
					return;
				}
				// A window: spent until its reset.
				this.confirming = false;
				this.budget = 0;
				this.starts = [];
				this.resetAt = earliestReset(this.resetAt, report, now) ?? fallbackReset(report, now);
				return;
			}
		}
		// An answer to a request sent before the last reset speaks of the window that ended.
		if (report.sentAt < this.lastResetAt) return;
		// Ties count as before: requests started together left in one moment.
		const before = this.starts.filter((start) => start <= report.sentAt).length - 1;
		if (report.status === 429) {
			this.forget(report.sentAt);
			if (report.sentAt === this.leadSentAt) {
				// The first request after a reset refused: the reset was reckoned a little early, not the
				// budget wrong; nobody sends for a moment, longer each time in a row.
				this.holdUntil = now + EARLY_RESET_HOLD_MS * 2 ** Math.min(this.early++, 6);
				return;
			}
			this.resetAt =
				earliestReset(this.resetAt, report, now) ?? this.resetAt ?? fallbackReset(report, now);
			this.budget = Math.min(this.budget ?? Number.POSITIVE_INFINITY, Math.max(0, before));
			return;
		}
		if (!admitted) {
			// No answer, or one the registry may not have counted: it spends nothing of the window.
			if (report.status === undefined || report.status >= 500 || report.status === 401)
				this.forget(report.sentAt);
			return;
		}
		this.early = 0;
		this.resetAt = earliestReset(this.resetAt, report, now);
		if (this.budget !== undefined && report.sentAt !== this.leadSentAt) return;
		// What this reset gave (up or down); an answer without a count is taken to give what the last did.
		if (report.remaining !== undefined) this.given = Math.max(0, before) + 1 + report.remaining;
		this.budget = this.given;
	}

	private left(): number {
		return this.budget === undefined ? 1 : this.budget - this.starts.length;
	}

	private forget(sentAt: number): void {
		const at = this.starts.indexOf(sentAt);
		if (at >= 0) this.starts.splice(at, 1);
	}

	/** A reset that has come starts a new window, whether or not the last one was spent. */
	private rollIfDue(now: number): void {
		if (this.confirming || this.resetAt === undefined || this.resetAt > now) return;
		this.lastResetAt = now;
		this.resetAt = undefined;
		this.starts = [];
		this.leadSentAt = undefined;
		// Unknown until the first request's answer tells it: that request goes alone.
		this.budget = undefined;
	}
}

/**
 * How long everybody pauses at a 429: its Retry-After, or `fallbackMs` where it gives none, at most
 * `capMs`, and never less than MIN_WAIT_MS whatever Retry-After says (a pause of 0 is a retry storm).
 */
function pauseFor(report: RequestReport, fallbackMs: number, capMs: number): number {
	return Math.max(MIN_WAIT_MS, Math.min(capMs, report.retryAfterMs ?? fallbackMs));
}

/** Where a refusal in a window gives no reset: Retry-After, or a second. */
function fallbackReset(report: RequestReport, now: number): number {
	return now + Math.max(MIN_WAIT_MS, report.retryAfterMs ?? 1000);
}

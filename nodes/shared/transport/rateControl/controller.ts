import { MAX_TIMER_MS, realClock, type Clock } from '../wait';
import { IDLE_RESET_MS } from './constants';
import { nextStart, waitIsTheLimit } from './modes';
import { realRandom, type Random } from './random';
import { unknownRegistry, type ControlState } from './state';
import { transition, type ControlEvent } from './transitions';
import type { Acquired, RequestReport, TenantSettings } from './types';

/**
 * When may the next lookup start? One controller per registry and client id, shared by every
 * execution in this n8n process (main, or one queue-mode worker), so that a sheet and an onboarding
 * form spend one quota together instead of discovering each other through 429s. Across processes the
 * controllers adapt through the registry's answers alone.
 *
 * This file is the sharing: executions (tenants) queue, take turns (round-robin) within their own
 * concurrency and optional requests/s cap, and are told at once when a pause outlasts their wait
 * budget. What the registry's limit is, and so when anybody may start, is the state (state.ts) that
 * only `transition` changes, read through its mode (modes.ts). Time comes only from the Clock.
 */

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

	/**
	 * Everything still waiting leaves the queue holding no permit (`setAside`), so it spends no start:
	 * what it would send now is known to fail (a token renewal began), and it asks again once it may.
	 */
	setAside(): void {
		for (const waiter of this.queue.splice(0)) waiter.resolve({ kind: 'setAside' });
	}

	/** When the registry last let through a request of any execution here (refusalStreak.ts). */
	get registryAdmittedAt(): number {
		return this.controller.admittedAt;
	}

	release(report: RequestReport): void {
		this.controller.release(this, report);
	}

	/** The execution is done: its turns go to the others. */
	leave(): void {
		this.controller.leave(this);
	}
}

export class RateController {
	private static readonly shared = new Map<string, RateController>();

	/**
	 * The controller of one registry and client id in this process; one made now draws its chance from
	 * `random` (Math.random unless a test or bench:sim injects a seeded stream).
	 */
	static for(key: string, clock: Clock = realClock, random: Random = realRandom): RateController {
		const existing = RateController.shared.get(key);
		if (
			existing?.clock === clock &&
			(existing.tenants.size > 0 || clock.now() - existing.idleSince < IDLE_RESET_MS)
		)
			return existing;
		const controller = new RateController(clock, random);
		RateController.shared.set(key, controller);
		return controller;
	}

	/** For tests: every registry starts unknown again. */
	static forgetAll(): void {
		RateController.shared.clear();
	}

	/** For tests and bench:sim: lookups stranded at any shared controller (see `stranded`). */
	static strandedAnywhere(): number {
		let stranded = 0;
		for (const controller of RateController.shared.values()) stranded += controller.stranded;
		return stranded;
	}

	private readonly tenants = new Set<Tenant>();
	private turn = 0;
	private idleSince: number;
	private wakeArmedFor: number | undefined;
	private state: ControlState = unknownRegistry();

	/**
	 * Time only through `clock`: real in n8n, virtual in the unit tests and bench:sim. Chance only
	 * through `random` (random.ts), drawn here and handed to the transition in its events (it stays pure).
	 */
	constructor(
		readonly clock: Clock = realClock,
		private readonly random: Random = realRandom,
	) {
		this.idleSince = clock.now();
	}

	get admittedAt(): number {
		return this.state.lastAdmittedAt;
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

	/**
	 * Lookups waiting while nothing is in flight and no wake-up is armed: no answer and no timer will
	 * ever pump for them (a hang). Always 0 between events; tests check it after each one.
	 */
	get stranded(): number {
		let waiting = 0;
		for (const tenant of this.tenants) {
			if (tenant.inFlight > 0) return 0;
			waiting += tenant.queue.length;
		}
		return this.wakeArmedFor === undefined ? waiting : 0;
	}

	/** The pace the controller keeps now (requests/s), undefined while it knows no limit. */
	get pace(): number | undefined {
		return this.state.pace.rate;
	}

	async acquire(tenant: Tenant, notAfter: number): Promise<Acquired> {
		return await new Promise<Acquired>((resolve) => {
			tenant.queue.push({ notAfter, resolve });
			this.pump();
		});
	}

	release(tenant: Tenant, report: RequestReport): void {
		const now = this.clock.now();
		tenant.inFlight -= 1;
		const event: ControlEvent =
			report.status === 429
				? { kind: 'rateLimited', report, phase: this.random(), workLeft: this.workLeft() }
				: report.status === undefined
					? { kind: 'unanswered', report }
					: { kind: 'answered', report, workLeft: this.workLeft() };
		this.apply(event, now);
		this.pump();
	}

	/**
	 * `now` is the moment the caller acted on, read once: a request's start must be recorded at the
	 * `sentAt` its permit carries, or its answer is not recognised (a window's probe never ends).
	 */
	private apply(event: ControlEvent, now: number): void {
		this.state = transition(this.state, event, now).state;
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

	/** When the limit allows the next start; keeps what reckoning it changed (credit, a window's roll). */
	private nextStart(now: number): number | undefined {
		const { state, at } = nextStart(this.state, now);
		this.state = state;
		return at;
	}

	/** Starts what may start now, executions in turn; arranges to be called again when more may. */
	private pump(): void {
		const now = this.clock.now();
		const paced = this.nextStart(now);
		const holdUntil = Math.max(this.state.pausedUntil, paced ?? now);
		// Nobody can start before holdUntil: those who may not wait that long are told now.
		if (holdUntil > now) {
			const theLimit = waitIsTheLimit(this.state, now, holdUntil);
			for (const tenant of this.tenants) this.refuseImpatient(tenant, holdUntil, theLimit);
		}
		// Nothing may start before an answer tells more; that answer pumps again.
		if (paced === undefined) return;
		for (;;) {
			const tenant = this.nextTenant(now);
			if (!tenant) return;
			const pacedStart = this.nextStart(now);
			if (pacedStart === undefined) return;
			const startAt = Math.max(this.state.pausedUntil, pacedStart, tenant.nextStartAt);
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
			tenant.settings.firstRequestAlone === true && this.state.lastTryEndedAt < tenant.joinedAt;
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
		this.apply({ kind: 'started' }, now);
		const cap = tenant.settings.maxRequestsPerSecond;
		if (cap) tenant.nextStartAt = now + 1000 / cap;
		waiter.resolve({ kind: 'go', sentAt: now });
	}

	/** Waiting for the limit itself (`theLimit`) is not longer than the execution allows. */
	private refuseImpatient(tenant: Tenant, until: number, theLimit: boolean): void {
		const now = this.clock.now();
		const limitWait = theLimit
			? now + (tenant.settings.maxRateLimitWaitMs ?? Number.POSITIVE_INFINITY)
			: Number.POSITIVE_INFINITY;
		for (let index = tenant.queue.length - 1; index >= 0; index--) {
			const waiter = tenant.queue[index];
			if (Math.min(waiter.notAfter, limitWait) < until) {
				tenant.queue.splice(index, 1);
				waiter.resolve({ kind: 'paused', until });
			}
		}
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
}

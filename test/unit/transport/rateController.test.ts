import { VirtualClock } from '../../../bench/sim/virtualClock';
import {
	RateController,
	type RequestReport,
	type Tenant,
	type TenantSettings,
} from '../../../nodes/shared/transport/rateControl';
import { driveTenant } from './rateControl/tenantDriver';

// The controller on a virtual clock: time moves only when the test says so, so every assertion is about
// when requests start and what each is told, with no real waits and no tolerance windows.
let clock: VirtualClock;
beforeEach(() => {
	clock = new VirtualClock();
	RateController.forgetAll();
});

const controllerWith = (settings: TenantSettings) => {
	const controller = new RateController(clock);
	return { controller, tenant: controller.join(settings) };
};

const { starts, answer, burst } = driveTenant(() => clock);

describe('rate controller', () => {
	it('is one per registry and client in a process, shared by its executions', () => {
		expect(RateController.for('https://a client', clock)).toBe(
			RateController.for('https://a client', clock),
		);
		expect(RateController.for('https://a client', clock)).not.toBe(
			RateController.for('https://b client', clock),
		);
	});

	it('sends the first request alone while the credential has no token, then up to the concurrency', async () => {
		const { tenant } = controllerWith({ maxConcurrency: 3, firstRequestAlone: true });
		const sent = starts(tenant, 5);
		await clock.advance(1_000);
		expect(sent.at).toHaveLength(1);
		tenant.release({ sentAt: sent.at[0], status: 200 });
		await clock.advance(0);
		expect(sent.at).toHaveLength(4);
	});

	it('takes executions in turn, so a single lookup is not queued behind a whole sheet', async () => {
		const controller = new RateController(clock);
		const sheet = controller.join({ maxConcurrency: 1 });
		const form = controller.join({ maxConcurrency: 1 });
		const order: string[] = [];
		const take = async (tenant: Tenant, name: string) => {
			const acquired = await tenant.acquire();
			if (acquired.kind !== 'go') return;
			order.push(name);
			await clock.sleep(5);
			tenant.release({ sentAt: acquired.sentAt, status: 200 });
		};
		await clock.run(
			Promise.all([
				take(sheet, 'sheet'),
				take(sheet, 'sheet'),
				take(sheet, 'sheet'),
				take(form, 'form'),
			]),
		);
		expect(order.indexOf('form')).toBeLessThanOrEqual(1);
	});

	it('after a first 429 pauses everybody for its Retry-After (at most a second), then paces instead of bursting', async () => {
		const { tenant } = controllerWith({ maxConcurrency: 50 });
		await burst(tenant, 30, 29, { retryAfterMs: 200 }, 700);
		const refusedAt = clock.now();
		const sent = starts(tenant, 20);
		await clock.advance(199);
		expect(sent.at).toHaveLength(0);
		await clock.advance(2_000);
		expect(sent.at[0]).toBeGreaterThanOrEqual(refusedAt + 200);
		// Paced at about what was admitted (29 in 0.9 s with the pause): the 20 spread over about half a second, not at once.
		expect(sent.at[19] - sent.at[0]).toBeGreaterThan(300);
	});

	it('tells a request at once when a pause outlasts its wait budget', async () => {
		const { tenant } = controllerWith({ maxConcurrency: 5 });
		await answer(tenant, { status: 429, retryAfterMs: 1_000 });
		const sent = starts(tenant, 1, clock.now() + 100);
		await clock.advance(0);
		expect(sent.told).toEqual(['paused']);
	});

	it('counts 429s from requests sent before a congestion event as that event: one wave, one cut of the pace', async () => {
		const paceAfter = async (refused: number) => {
			const { controller, tenant } = controllerWith({ maxConcurrency: 50 });
			await clock.advance(500);
			await burst(tenant, 10 + refused, 10);
			return controller.pace;
		};
		expect(await paceAfter(10)).toBe(await paceAfter(1));
	});

	it("honours a tenant's Max Requests per Second", async () => {
		const { tenant } = controllerWith({ maxConcurrency: 10, maxRequestsPerSecond: 20 });
		const sent = starts(tenant, 5);
		await clock.advance(1_000);
		expect(sent.at.map((at) => at - sent.at[0])).toEqual([0, 50, 100, 150, 200]);
	});

	/** A budget of 3 (X-RateLimit-Remaining 2, 1, 0) whose answers say it is back in 0.3 s, spent, then refused. */
	async function spentBudget(tenant: Tenant): Promise<void> {
		for (const remaining of [2, 1, 0])
			await answer(tenant, { status: 200, remaining, resetMs: 300 });
		await answer(tenant, { status: 429, resetMs: 300 });
	}

	it('tells a window from a bucket by one request a moment after the registry refused at the end of its own budget', async () => {
		const window = controllerWith({ maxConcurrency: 10 }).tenant;
		await spentBudget(window);
		const refusedAt = clock.now();
		const sent = starts(window, 5);
		await clock.advance(150);
		// A moment later one request alone, and no other until its answer.
		expect(sent.at).toHaveLength(1);
		expect(sent.at[0]).toBeGreaterThan(refusedAt);
		// Refused too: a window. Nobody sends until its reset (0.2 s after that request left).
		window.release({ sentAt: sent.at[0], status: 429, resetMs: 200 });
		await clock.advance(199 - (clock.now() - sent.at[0]));
		expect(sent.at).toHaveLength(1);
		await clock.advance(10);
		// After the reset, one request alone, whose answer tells the new budget.
		expect(sent.at).toHaveLength(2);

		const bucket = controllerWith({ maxConcurrency: 10 }).tenant;
		await spentBudget(bucket);
		// Admitted a moment later: the budget refills request by request, and requests go on without a reset.
		await answer(bucket, { status: 200, remaining: 0 });
		const next = starts(bucket, 3);
		await clock.advance(250);
		expect(next.at.length).toBeGreaterThan(0);
	});

	/** A window of 3 requests, known: spent, and waiting for its reset in 0.3 s. */
	async function knownWindow(tenant: Tenant): Promise<void> {
		// A count that rose above 1: a count never above 1 tells nothing (count.ts, budgetLeft).
		for (const remaining of [2, 1, 0])
			await answer(tenant, { status: 200, remaining, resetMs: 300 });
		await answer(tenant, { status: 429, resetMs: 300 });
		await answer(tenant, { status: 429, resetMs: 300 });
		// The reset: one request alone learns the budget (3 with itself), and it is spent.
		for (const remaining of [2, 1, 0])
			await answer(tenant, { status: 200, remaining, resetMs: 300 });
	}

	it("at a window's reset sends one request alone, then the budget its answer tells, at once", async () => {
		const { tenant } = controllerWith({ maxConcurrency: 10 });
		await knownWindow(tenant);
		const sent = starts(tenant, 4);
		await clock.advance(250);
		expect(sent.at).toHaveLength(0);
		await clock.advance(100);
		// Nothing is sent on a guess: a slow token bucket taken for a window holds one token at its reset.
		expect(sent.at).toHaveLength(1);
		tenant.release({ sentAt: sent.at[0], status: 200, remaining: 2, resetMs: 300 });
		await clock.advance(0);
		expect(sent.at).toEqual([sent.at[0], clock.now(), clock.now()]);
	});

	it("learns each window's budget from its first answer: one window shared with another client does not shrink the next", async () => {
		const { tenant } = controllerWith({ maxConcurrency: 10 });
		await knownWindow(tenant);
		const sent = starts(tenant, 3);
		await clock.advance(350);
		// This window another client took one: the first answer says 1 left after it, not 2.
		tenant.release({ sentAt: sent.at[0], status: 200, remaining: 1, resetMs: 300 });
		await clock.advance(0);
		expect(sent.at).toHaveLength(2);
		tenant.release({ sentAt: sent.at[1], status: 200, remaining: 0, resetMs: 300 });
		// The next window is whole again: its first answer says so, and two more go with it.
		await clock.advance(320);
		expect(sent.at).toHaveLength(3);
		tenant.release({ sentAt: sent.at[2], status: 200, remaining: 2, resetMs: 300 });
		const more = starts(tenant, 3);
		await clock.advance(0);
		expect(more.at).toHaveLength(2);
	});

	it('a reset that comes while the budget is not spent still starts a new window', async () => {
		const { tenant } = controllerWith({ maxConcurrency: 10 });
		await knownWindow(tenant);
		await clock.advance(300);
		// One request in this window (budget 3), then a quiet spell past the next reset (0.3 s).
		await answer(tenant, { status: 200, remaining: 2, resetMs: 300 });
		await clock.advance(350);
		// A fresh window: its first request alone, then the whole budget its answer tells, not what was left of the last.
		const sent = starts(tenant, 4);
		await clock.advance(0);
		expect(sent.at).toHaveLength(1);
		tenant.release({ sentAt: sent.at[0], status: 200, remaining: 2, resetMs: 300 });
		await clock.advance(0);
		expect(sent.at).toHaveLength(3);
	});

	it('a reset reckoned a little early costs the first request a 429 and the others a moment, not a window', async () => {
		const { tenant } = controllerWith({ maxConcurrency: 10 });
		await knownWindow(tenant);
		await clock.advance(300);
		// The first request after the reset is refused, saying "a second" (whole seconds, rounded up).
		await answer(tenant, { status: 429, resetMs: 1_000 });
		const sent = starts(tenant, 3);
		await clock.advance(150);
		// A moment later the next first request goes alone, not a second later.
		expect(sent.at).toHaveLength(1);
	});

	/** A pace learned from a first 429 after 29 admissions in 0.5 s, its pause (0.1 s) over. */
	async function learnedPace(tenant: Tenant): Promise<void> {
		await clock.advance(500);
		await burst(tenant, 30, 29, { retryAfterMs: 100 });
		await clock.advance(150);
	}

	/** Four waves, each a 429 to a request sent after the last, with `admittedBetween` admissions before each. */
	async function waves(tenant: Tenant, admittedBetween: number): Promise<void> {
		for (let wave = 0; wave < 4; wave++) {
			for (let index = 0; index < admittedBetween; index++) await answer(tenant, { status: 200 });
			await answer(tenant, { status: 429, retryAfterMs: 1_000 });
		}
	}

	it('429 waves with admissions between them are congestion, not a storm: the pace is cut, nobody is held', async () => {
		const { controller, tenant } = controllerWith({ maxConcurrency: 50 });
		await learnedPace(tenant);
		await waves(tenant, 2);
		const lastWave = clock.now();
		const sent = starts(tenant, 1);
		await clock.advance(2_000);
		expect(sent.at[0] - lastWave).toBeLessThanOrEqual(Math.ceil(1000 / controller.pace!));
	});

	it('429 waves with nothing admitted between them are a storm: everybody waits out the Retry-After', async () => {
		const { tenant } = controllerWith({ maxConcurrency: 50 });
		await learnedPace(tenant);
		await waves(tenant, 0);
		const lastWave = clock.now();
		const sent = starts(tenant, 1);
		await clock.advance(5_000);
		expect(sent.at[0] - lastWave).toBeGreaterThanOrEqual(1_000);
	});

	it('after a first 429 within the pause of the first request, sends on when that pause has passed since sending began, paced from nothing', async () => {
		const { tenant } = controllerWith({ maxConcurrency: 50 });
		await clock.advance(500);
		const permits = await clock.run(
			Promise.all(Array.from({ length: 30 }, async () => await tenant.acquire())),
		);
		const began = clock.now();
		await clock.advance(200);
		permits.forEach((permit, index) =>
			tenant.release({
				sentAt: permit.kind === 'go' ? permit.sentAt : 0,
				status: index < 29 ? 200 : 429,
				retryAfterMs: 500,
			}),
		);
		const sent = starts(tenant, 20);
		// What a sliding window admitted first leaves it first: 500 ms after sending began, not after the 429.
		await clock.advance(began + 560 - clock.now());
		expect(sent.at.length).toBeGreaterThanOrEqual(1);
		expect(sent.at[0]).toBeGreaterThanOrEqual(began + 500);
		// No burst of credit saved up during the pause: it would meet requests that have not left the window.
		expect(sent.at.length).toBeLessThanOrEqual(6);
	});

	it('measures the first 429 against the requests since the last quiet spell, not since the first request ever', async () => {
		const { controller, tenant } = controllerWith({ maxConcurrency: 50 });
		// An onboarding form's few lookups, then a quiet spell, then a sheet.
		for (let form = 0; form < 6; form++) await answer(tenant, { status: 200 });
		await clock.advance(1_300);
		await burst(tenant, 30, 29, { retryAfterMs: 1_000 });
		// 29 admitted in a moment: the sheet's pace is learned from those, not from 35 spread over the quiet spell too.
		expect(controller.pace).toBeGreaterThanOrEqual(25);
	});

	it('stops probing for a higher limit when less than two seconds of work are left: a 429 there would cost a whole Retry-After', async () => {
		const paceAfterAnswers = async (rowsLeft: number) => {
			const { controller, tenant } = controllerWith({
				maxConcurrency: 50,
				rowsNotTaken: () => rowsLeft,
			});
			await learnedPace(tenant);
			const learned = controller.pace!;
			for (let index = 0; index < 10; index++) await answer(tenant, { status: 200 });
			return controller.pace! / learned;
		};
		// Many rows left: each answer lets the pace grow towards a limit not yet found.
		expect(await paceAfterAnswers(10_000)).toBeGreaterThan(1);
		// The last rows: the pace stays.
		expect(await paceAfterAnswers(0)).toBe(1);
	});

	it("gives a leaving execution's waiters a cancellation, not a hang", async () => {
		const { tenant } = controllerWith({ maxConcurrency: 1, firstRequestAlone: true });
		await clock.run(tenant.acquire());
		const waiting = tenant.acquire();
		tenant.leave();
		expect(await waiting).toEqual({ kind: 'cancelled' });
	});
});

describe('rate controller: what the registry says is checked (issue 20)', () => {
	it.each([0, -5_000])(
		'a 429 whose Retry-After is %i ms (0, or a date in the past) pauses as long as one that says nothing',
		async (retryAfterMs) => {
			const pauseAfter = async (refusal: Omit<RequestReport, 'sentAt' | 'status'>) => {
				const { tenant } = controllerWith({ maxConcurrency: 50 });
				await burst(tenant, 30, 29, refusal, 700);
				const refusedAt = clock.now();
				const sent = starts(tenant, 1);
				await clock.advance(5_000);
				return sent.at[0] - refusedAt;
			};
			const unsaid = await pauseAfter({});
			expect(await pauseAfter({ retryAfterMs })).toBe(unsaid);
		},
	);

	it('a storm pauses at least a moment whatever Retry-After says', async () => {
		const { tenant } = controllerWith({ maxConcurrency: 50 });
		await burst(tenant, 30, 29, { retryAfterMs: 100 }, 500);
		await clock.advance(150);
		for (let wave = 0; wave < 4; wave++) await answer(tenant, { status: 429, retryAfterMs: 0 });
		const lastWave = clock.now();
		const sent = starts(tenant, 1);
		await clock.advance(5_000);
		expect(sent.at[0] - lastWave).toBeGreaterThanOrEqual(100);
	});

	it('a first request that ends without an answer (a timeout) lets the others go: the token exchange has happened or failed', async () => {
		const { tenant } = controllerWith({ maxConcurrency: 3, firstRequestAlone: true });
		const sent = starts(tenant, 5);
		await clock.advance(30_000);
		expect(sent.at).toHaveLength(1);
		tenant.release({ sentAt: sent.at[0] });
		await clock.advance(0);
		expect(sent.at).toHaveLength(4);
	});
});

import { RateController, type Tenant } from '../../../nodes/shared/transport/rateController';

const tick = async (ms = 20) => await new Promise((resolve) => setTimeout(resolve, ms));

/** Starts `count` acquisitions on a tenant and counts how many got a `go` within `ms`. */
async function startedWithin(tenant: Tenant, count: number, ms: number): Promise<number> {
	let started = 0;
	for (let index = 0; index < count; index++) void tenant.acquire().then((acquired) => acquired.kind === 'go' && started++);
	await tick(ms);
	return started;
}

describe('rate controller', () => {
	beforeEach(() => RateController.forgetAll());

	it('is one per registry and client in a process, shared by its executions', () => {
		expect(RateController.for('https://a client')).toBe(RateController.for('https://a client'));
		expect(RateController.for('https://a client')).not.toBe(RateController.for('https://b client'));
	});

	it('sends the first request alone while the credential has no token, then up to the concurrency', async () => {
		const controller = new RateController();
		const tenant = controller.join({ maxConcurrency: 3, firstRequestAlone: true });
		expect(await startedWithin(tenant, 5, 30)).toBe(1);
		tenant.release({ sentAt: Date.now(), status: 200 });
		await tick(30);
		expect(controller.stats.requests).toBe(4);
	});

	it('takes executions in turn, so a single lookup is not queued behind a whole sheet', async () => {
		const controller = new RateController();
		const sheet = controller.join({ maxConcurrency: 1 });
		const form = controller.join({ maxConcurrency: 1 });
		const order: string[] = [];
		const take = async (tenant: Tenant, name: string) => {
			const acquired = await tenant.acquire();
			if (acquired.kind === 'go') {
				order.push(name);
				await tick(5);
				tenant.release({ sentAt: acquired.sentAt, status: 200 });
			}
		};
		const work = [take(sheet, 'sheet'), take(sheet, 'sheet'), take(sheet, 'sheet'), take(form, 'form')];
		await Promise.all(work);
		expect(order.indexOf('form')).toBeLessThanOrEqual(1);
	});

	it('learns a pace from the first 429 and the successes before it, and pauses briefly', async () => {
		const controller = new RateController();
		const tenant = controller.join({ maxConcurrency: 50 });
		const started = Date.now();
		const permits = await Promise.all(Array.from({ length: 30 }, async () => await tenant.acquire()));
		for (const permit of permits.slice(0, 29)) tenant.release({ sentAt: permit.kind === 'go' ? permit.sentAt : 0, status: 200 });
		tenant.release({ sentAt: started, status: 429, retryAfterMs: 200 });
		expect(controller.pace).toBeGreaterThan(0);
		expect(controller.stats.pauses).toBe(1);
		// Nobody starts during the pause.
		expect(await startedWithin(tenant, 1, 100)).toBe(0);
	});

	it('tells a request at once when a pause outlasts its wait budget', async () => {
		const controller = new RateController();
		const tenant = controller.join({ maxConcurrency: 5 });
		const first = await tenant.acquire();
		tenant.release({ sentAt: first.kind === 'go' ? first.sentAt : 0, status: 429, retryAfterMs: 1000 });
		const acquired = await tenant.acquire(Date.now() + 100);
		expect(acquired.kind).toBe('paused');
	});

	it('counts 429s from requests sent before a congestion event as that event', async () => {
		const controller = new RateController();
		const tenant = controller.join({ maxConcurrency: 20 });
		const permits = await Promise.all(Array.from({ length: 20 }, async () => await tenant.acquire()));
		for (const permit of permits.slice(0, 10)) tenant.release({ sentAt: permit.kind === 'go' ? permit.sentAt : 0, status: 200 });
		for (const permit of permits.slice(10)) tenant.release({ sentAt: permit.kind === 'go' ? permit.sentAt : 0, status: 429 });
		expect(controller.stats.events).toBe(1);
	});

	it('honours a tenant\'s Max Requests per Second', async () => {
		const controller = new RateController();
		const tenant = controller.join({ maxConcurrency: 10, maxRequestsPerSecond: 20 });
		let started = 0;
		const started_ = Date.now();
		await Promise.all(
			Array.from({ length: 5 }, async () => {
				const acquired = await tenant.acquire();
				started++;
				if (acquired.kind === 'go') tenant.release({ sentAt: acquired.sentAt, status: 200 });
			}),
		);
		expect(started).toBe(5);
		expect(Date.now() - started_).toBeGreaterThanOrEqual(190);
	});

	/** One request through the controller, answered at once as told. */
	const answer = async (tenant: Tenant, status: number, remaining?: number, resetMs = 300) => {
		const permit = await tenant.acquire();
		tenant.release({ sentAt: permit.kind === 'go' ? permit.sentAt : 0, status, remaining, resetMs });
	};

	it('tells a window from a bucket by one request a moment after the registry refused beyond its own budget', async () => {
		const controller = new RateController();
		const window = controller.join({ maxConcurrency: 10 });
		// A budget of 3, spent: the answers say when it comes back (X-RateLimit-Reset: 0.3 s).
		for (const remaining of [2, 1, 0]) await answer(window, 200, remaining);
		await answer(window, 429);
		// A moment later one request alone; refused too, it is a window: nobody sends until the reset.
		expect(await startedWithin(window, 1, 60)).toBe(0);
		await tick(60);
		expect(controller.stats.requests).toBe(5);
		controller.release(window, { sentAt: Date.now(), status: 429, resetMs: 200 });
		expect(await startedWithin(window, 4, 100)).toBe(0);
		// After the reset, one request alone, whose answer tells the new budget.
		await tick(150);
		expect(controller.stats.requests).toBe(6);

		const bucket = new RateController();
		const tenant = bucket.join({ maxConcurrency: 10 });
		for (const remaining of [2, 1, 0]) await answer(tenant, 200, remaining);
		await answer(tenant, 429);
		// Admitted a moment later: the budget refills request by request, so requests go on at once.
		await answer(tenant, 200, 0);
		expect(await startedWithin(tenant, 3, 50)).toBeGreaterThan(0);
	});

	/** A window of 3 requests, known: spent, and waiting for its reset in about 0.3 s. */
	async function knownWindow(tenant: Tenant): Promise<void> {
		await answer(tenant, 200, 0);
		await answer(tenant, 429);
		await answer(tenant, 429);
		// The reset: one request alone learns the budget (3 with itself), and it is spent.
		await answer(tenant, 200, 2);
		await answer(tenant, 200, 1);
		await answer(tenant, 200, 0);
	}

	/** Starts `count` acquisitions; the send times of those that got a `go`, filled in as they do. */
	function sendTimes(tenant: Tenant, count: number): number[] {
		const sent: number[] = [];
		for (let index = 0; index < count; index++) void tenant.acquire().then((acquired) => acquired.kind === 'go' && sent.push(acquired.sentAt));
		return sent;
	}

	it('at a window\'s reset sends one request alone, then the budget its answer tells, at once', async () => {
		const controller = new RateController();
		const tenant = controller.join({ maxConcurrency: 10 });
		await knownWindow(tenant);
		const sent = sendTimes(tenant, 4);
		await tick(100);
		expect(sent).toHaveLength(0);
		await tick(250);
		// Nothing is sent on a guess: a slow token bucket taken for a window holds one token at its reset.
		expect(sent).toHaveLength(1);
		tenant.release({ sentAt: sent[0], status: 200, remaining: 2, resetMs: 300 });
		await tick(20);
		expect(sent).toHaveLength(3);
	});

	it('learns each window\'s budget from its first answer: one window shared with another client does not shrink the next', async () => {
		const controller = new RateController();
		const tenant = controller.join({ maxConcurrency: 10 });
		await knownWindow(tenant);
		const sent = sendTimes(tenant, 3);
		await tick(350);
		// This window another client took one: the first answer says 1 left after it, not 2.
		tenant.release({ sentAt: sent[0], status: 200, remaining: 1, resetMs: 300 });
		await tick(20);
		expect(sent).toHaveLength(2);
		tenant.release({ sentAt: sent[1], status: 200, remaining: 0, resetMs: 300 });
		// The next window is whole again: its first answer says so, and two more go with it.
		await tick(320);
		expect(sent).toHaveLength(3);
		tenant.release({ sentAt: sent[2], status: 200, remaining: 2, resetMs: 300 });
		expect(await startedWithin(tenant, 3, 50)).toBe(2);
	});

	it('a reset that comes while the budget is not spent still starts a new window', async () => {
		const controller = new RateController();
		const tenant = controller.join({ maxConcurrency: 10 });
		await knownWindow(tenant);
		await tick(300);
		// One request in this window (budget 3), then a quiet spell past the next reset (0.3 s).
		await answer(tenant, 200, 2);
		await tick(350);
		// A fresh window: its first request alone, then the whole budget its answer tells, not what was left of the last.
		const sent = sendTimes(tenant, 4);
		await tick(20);
		expect(sent).toHaveLength(1);
		tenant.release({ sentAt: sent[0], status: 200, remaining: 2, resetMs: 300 });
		await tick(20);
		expect(sent).toHaveLength(3);
	});

	it('a reset reckoned a little early costs the first request a 429 and the others a moment, not a window', async () => {
		const controller = new RateController();
		const tenant = controller.join({ maxConcurrency: 10 });
		await knownWindow(tenant);
		await tick(300);
		// The first request after the reset is refused, saying "a second" (whole seconds, rounded up).
		await answer(tenant, 429, undefined, 1000);
		// A moment later the next first request goes alone, not a second later.
		expect(await startedWithin(tenant, 3, 150)).toBe(1);
	});

	/** A pace learned from a first 429 after 29 admissions, its pause (0.1 s) over. */
	async function learnedPace(controller: RateController, tenant: Tenant): Promise<void> {
		const permits = await Promise.all(Array.from({ length: 30 }, async () => await tenant.acquire()));
		for (const permit of permits.slice(0, 29)) tenant.release({ sentAt: permit.kind === 'go' ? permit.sentAt : 0, status: 200 });
		tenant.release({ sentAt: permits[29].kind === 'go' ? permits[29].sentAt : 0, status: 429, retryAfterMs: 100 });
		expect(controller.stats.pauses).toBe(1);
		await tick(150);
	}

	it('429 waves with admissions between them are congestion, not a storm: the pace is cut, nobody is held', async () => {
		const controller = new RateController();
		const tenant = controller.join({ maxConcurrency: 50 });
		await learnedPace(controller, tenant);
		for (let wave = 0; wave < 4; wave++) {
			await answer(tenant, 200);
			await answer(tenant, 200);
			const permit = await tenant.acquire();
			tenant.release({ sentAt: permit.kind === 'go' ? permit.sentAt : 0, status: 429, retryAfterMs: 100 });
		}
		// The first pause only: no storm after it.
		expect(controller.stats.pauses).toBe(1);
	});

	it('429 waves with nothing admitted between them are a storm: everybody waits', async () => {
		const controller = new RateController();
		const tenant = controller.join({ maxConcurrency: 50 });
		await learnedPace(controller, tenant);
		for (let wave = 0; wave < 4; wave++) {
			const permit = await tenant.acquire();
			tenant.release({ sentAt: permit.kind === 'go' ? permit.sentAt : 0, status: 429, retryAfterMs: 100 });
		}
		expect(controller.stats.pauses).toBeGreaterThanOrEqual(3);
	});

	it('after a first 429 within the pause of the first request, sends on when that pause has passed since sending began, paced from nothing', async () => {
		const controller = new RateController();
		const tenant = controller.join({ maxConcurrency: 50 });
		const permits = await Promise.all(Array.from({ length: 30 }, async () => await tenant.acquire()));
		await tick(200);
		for (const permit of permits.slice(0, 29)) tenant.release({ sentAt: permit.kind === 'go' ? permit.sentAt : 0, status: 200 });
		tenant.release({ sentAt: permits[29].kind === 'go' ? permits[29].sentAt : 0, status: 429, retryAfterMs: 500 });
		// What a sliding window admitted first leaves it first: 500 ms after sending began, not after the 429.
		await tick(330);
		const started = await startedWithin(tenant, 20, 60);
		expect(started).toBeGreaterThanOrEqual(1);
		// No burst of credit saved up during the pause: it would meet requests that have not left the window.
		expect(started).toBeLessThanOrEqual(6);
	});

	it('measures the first 429 against the requests since the last quiet spell, not since the first request ever', async () => {
		const controller = new RateController();
		const tenant = controller.join({ maxConcurrency: 50 });
		// An onboarding form's few lookups, then a quiet spell, then a sheet.
		for (let form = 0; form < 6; form++) await answer(tenant, 200);
		await tick(1_300);
		const permits = await Promise.all(Array.from({ length: 30 }, async () => await tenant.acquire()));
		for (const permit of permits.slice(0, 29)) tenant.release({ sentAt: permit.kind === 'go' ? permit.sentAt : 0, status: 200 });
		tenant.release({ sentAt: permits[29].kind === 'go' ? permits[29].sentAt : 0, status: 429, retryAfterMs: 1_000 });
		// 29 admitted in a moment: the sheet's pace is learned from those, not from 35 spread over the quiet spell too.
		expect(controller.pace).toBeGreaterThanOrEqual(25);
	});

	it('stops probing for a higher limit when less than two seconds of work are left: a 429 there would cost a whole Retry-After', async () => {
		const paceAfterAnswers = async (rowsLeft: number) => {
			const controller = new RateController();
			const tenant = controller.join({ maxConcurrency: 50, rowsNotTaken: () => rowsLeft });
			await learnedPace(controller, tenant);
			const learned = controller.pace!;
			for (let index = 0; index < 10; index++) {
				const permit = await tenant.acquire();
				tenant.release({ sentAt: permit.kind === 'go' ? permit.sentAt : 0, status: 200 });
			}
			return controller.pace! / learned;
		};
		// Many rows left: each answer lets the pace grow towards a limit not yet found.
		expect(await paceAfterAnswers(10_000)).toBeGreaterThan(1);
		// The last rows: the pace stays.
		expect(await paceAfterAnswers(0)).toBe(1);
	});

	it('gives a leaving execution\'s waiters a cancellation, not a hang', async () => {
		const controller = new RateController();
		const tenant = controller.join({ maxConcurrency: 1, firstRequestAlone: true });
		await tenant.acquire();
		const waiting = tenant.acquire();
		tenant.leave();
		expect(await waiting).toEqual({ kind: 'cancelled' });
	});
});

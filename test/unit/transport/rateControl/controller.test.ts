import { VirtualClock } from '../../../../bench/sim/virtualClock';
import {
	RateController,
	type RequestReport,
	type Tenant,
} from '../../../../nodes/shared/transport/rateControl';
import { IDLE_RESET_MS } from '../../../../nodes/shared/transport/rateControl/constants';
import { driveTenant } from './tenantDriver';

// How one controller shares a registry's limit between the executions of a process, on a virtual clock:
// which execution starts when, which is told to give up at once, and when a controller is shared at all.

let clock: VirtualClock;
beforeEach(() => {
	clock = new VirtualClock();
	RateController.forgetAll();
});

const { starts, answer, burst } = driveTenant(() => clock);

describe('one controller per registry and client in a process', () => {
	const key = 'https://registry.example client-1';

	it('keeps what it learned for the next execution a minute later, and forgets it after an idle hour', async () => {
		const first = RateController.for(key, clock);
		first.join({ maxConcurrency: 1 }).leave();
		await clock.advance(60_000);
		expect(RateController.for(key, clock)).toBe(first);
		await clock.advance(3_600_000);
		expect(RateController.for(key, clock)).not.toBe(first);
	});

	it('is idle from when the last execution left, not from when it was made', async () => {
		const shared = RateController.for(key, clock);
		const sheet = shared.join({ maxConcurrency: 1 });
		const form = shared.join({ maxConcurrency: 1 });
		// A sheet that runs for two hours: the controller is in use all along.
		await clock.advance(7_200_000);
		expect(RateController.for(key, clock)).toBe(shared);
		form.leave();
		await clock.advance(IDLE_RESET_MS - 1);
		expect(RateController.for(key, clock)).toBe(shared);
		sheet.leave();
		await clock.advance(IDLE_RESET_MS - 1);
		expect(RateController.for(key, clock)).toBe(shared);
		await clock.advance(1);
		expect(RateController.for(key, clock)).not.toBe(shared);
	});

	it('runs on the clock it is asked for, and starts afresh for every registry once forgotten', () => {
		const shared = RateController.for(key, clock);
		const other = new VirtualClock();
		expect(RateController.for(key, other)).not.toBe(shared);
		expect(RateController.for(key, other).clock).toBe(other);
		const again = RateController.for(key, other);
		RateController.forgetAll();
		expect(RateController.for(key, other)).not.toBe(again);
	});
});

describe('executions taking turns', () => {
	it('takes executions in strict turn, one start each, however many each has waiting', async () => {
		const controller = new RateController(clock);
		const names = ['a', 'b', 'c'];
		const order: string[] = [];
		// Three sheets begun together without a token: a's first request goes alone, then all start at once.
		const tenants = names.map((name) => {
			const tenant = controller.join({ maxConcurrency: 3, firstRequestAlone: true });
			for (let index = 0; index < 3; index++)
				void tenant.acquire().then((permit) => permit.kind === 'go' && order.push(name));
			return tenant;
		});
		await clock.advance(0);
		expect(order).toEqual(['a']);
		tenants[0].release({ sentAt: clock.now(), status: 200 });
		await clock.advance(0);
		// a's two left, b's and c's three each: a turn each while all have some.
		expect(order.join('')).toBe('a' + 'abcabc' + 'bc');
	});

	it('holds an execution to its own Max Requests per Second, not the others beside it', async () => {
		const controller = new RateController(clock);
		const capped = controller.join({ maxConcurrency: 5, maxRequestsPerSecond: 1 });
		const faster = controller.join({ maxConcurrency: 5, maxRequestsPerSecond: 10 });
		const free = controller.join({ maxConcurrency: 5 });
		const slow = starts(capped, 3);
		const quick = starts(faster, 3);
		const open = starts(free, 3);
		await clock.advance(0);
		const began = clock.now();
		expect(open.at).toEqual([began, began, began]);
		await clock.advance(2_500);
		expect(quick.at.map((at) => at - began)).toEqual([0, 100, 200]);
		expect(slow.at.map((at) => at - began)).toEqual([0, 1_000, 2_000]);
	});

	it('holds one wake-up for a sheet waiting on its Max Requests per Second, not one per lookup', async () => {
		const tenant = new RateController(clock).join({ maxConcurrency: 5, maxRequestsPerSecond: 1 });
		const sent = starts(tenant, 100);
		await clock.advance(0);
		expect(sent.at).toHaveLength(1);
		expect(clock.pending).toBe(1);
	});

	it('sends one token request for several executions begun together without a token', async () => {
		const controller = new RateController(clock);
		const sheet = controller.join({ maxConcurrency: 3, firstRequestAlone: true });
		const form = controller.join({ maxConcurrency: 3, firstRequestAlone: true });
		const sheetSent = starts(sheet, 3);
		const formSent = starts(form, 3);
		await clock.advance(1_000);
		expect(sheetSent.at.length + formSent.at.length).toBe(1);
		const [lone, of] = sheetSent.at.length === 1 ? [sheetSent, sheet] : [formSent, form];
		of.release({ sentAt: lone.at[0], status: 200 });
		await clock.advance(0);
		expect(sheetSent.at.length + formSent.at.length).toBe(6);
	});

	it('lets an execution that begins as the first answer arrives send at once: the token is there', async () => {
		const controller = new RateController(clock);
		const first = controller.join({ maxConcurrency: 3, firstRequestAlone: true });
		const sentAt = (await clock.run(first.acquire())) as { sentAt: number };
		await clock.advance(200);
		first.release({ sentAt: sentAt.sentAt, status: 200 });
		const next = controller.join({ maxConcurrency: 3, firstRequestAlone: true });
		const sent = starts(next, 3);
		await clock.advance(0);
		expect(sent.at).toHaveLength(3);
	});

	it('passes no turn while the limit waits for an answer: the execution whose turn it is goes when it comes', async () => {
		const controller = new RateController(clock);
		const sheet = controller.join({ maxConcurrency: 5 });
		const form = controller.join({ maxConcurrency: 5 });
		const first = starts(sheet, 1);
		await clock.advance(45);
		// A count that holds one (slow start, slowStart.ts): one in flight until an admission widens it.
		sheet.release({ sentAt: first.at[0], status: 200, remaining: 0, limit: 1, resetMs: 1_000 });
		const second = starts(sheet, 1);
		await clock.advance(0);
		expect(second.at).toHaveLength(1);
		// The sheet sent last, so the next turn is the form's, however the two ask while nothing may start.
		const sheetWaits = starts(sheet, 1);
		await clock.advance(0);
		const formWaits = starts(form, 1);
		await clock.advance(500);
		expect(sheetWaits.at.length + formWaits.at.length).toBe(0);
		// No admission (a 503): room for one again, not two.
		sheet.release({ sentAt: second.at[0], status: 503 });
		await clock.advance(0);
		expect(formWaits.at).toEqual([clock.now()]);
		expect(sheetWaits.at).toEqual([]);
	});
});

describe('who is told at once to give up waiting', () => {
	it('starts a request whose wait budget is already spent when nobody has to wait', async () => {
		const tenant = new RateController(clock).join({ maxConcurrency: 2 });
		await clock.advance(1_000);
		const sent = starts(tenant, 1, clock.now() - 1);
		await clock.advance(0);
		expect(sent.told).toEqual(['go']);
	});

	/** After a first 429 (a fresh registry, 29 of 30 admitted), one request whose last allowed start is `notAfter` after the refusal. */
	async function afterFirst429(notAfter: number) {
		const tenant = new RateController(clock).join({ maxConcurrency: 50 });
		await burst(tenant, 30, 29, { retryAfterMs: 400 }, 700);
		const refusedAt = clock.now();
		const sent = starts(tenant, 1, refusedAt + notAfter);
		await clock.advance(5_000);
		return { told: sent.told, after: sent.at[0] - refusedAt };
	}

	it('lets a request wait for a pause that ends exactly at its last allowed start', async () => {
		const { after } = await afterFirst429(Number.POSITIVE_INFINITY);
		expect(after).toBeGreaterThan(0);
		expect((await afterFirst429(after)).told).toEqual(['go']);
		expect((await afterFirst429(after - 1)).told).toEqual(['paused']);
	});

	it('starts a request whose wait budget ran out just before, at the moment the pause ends', async () => {
		const { after } = await afterFirst429(Number.POSITIVE_INFINITY);
		const tenant = new RateController(clock).join({ maxConcurrency: 50 });
		await burst(tenant, 30, 29, { retryAfterMs: 400 }, 700);
		await clock.advance(after);
		const sent = starts(tenant, 1, clock.now() - 1);
		await clock.advance(0);
		expect(sent.told).toEqual(['go']);
	});

	/** A window of 3 requests whose answers say it is back in `resetMs`: spent, refused, and confirmed by a lone request. */
	async function spentWindow(tenant: Tenant, resetMs: number): Promise<void> {
		for (const remaining of [2, 1, 0]) await answer(tenant, { status: 200, remaining, resetMs });
		await answer(tenant, { status: 429, resetMs });
		await answer(tenant, { status: 429, resetMs });
	}

	it("fails the waiting lookups at once when a window's reset is further than Max Rate-Limit Wait, and not before", async () => {
		const hasted = new RateController(clock).join({
			maxConcurrency: 5,
			maxRateLimitWaitMs: 10_000,
		});
		await spentWindow(hasted, 60_000);
		const refused = starts(hasted, 2);
		await clock.advance(0);
		expect(refused.told).toEqual(['paused', 'paused']);

		const patient = new RateController(clock).join({
			maxConcurrency: 5,
			maxRateLimitWaitMs: 120_000,
		});
		await spentWindow(patient, 60_000);
		const waiting = starts(patient, 2);
		await clock.advance(0);
		expect(waiting.told).toEqual([]);
	});

	it('tells a request at once when the pace cannot start it before its last allowed start', async () => {
		const tenant = new RateController(clock).join({ maxConcurrency: 50 });
		// A pace learned from a first 429 (29 admitted in 0.5 s), its pause over.
		await clock.advance(500);
		await burst(tenant, 30, 29, { retryAfterMs: 100 });
		await clock.advance(150);
		const queued = starts(tenant, 40);
		await clock.advance(0);
		expect(queued.at.length).toBeLessThan(40);
		const late = starts(tenant, 1, clock.now());
		await clock.advance(0);
		expect(late.told).toEqual(['paused']);
	});
});

describe('what an answer is', () => {
	/** A learned pace, then four 429 waves (each saying to wait a second) with `between` before each. */
	async function wavesWith(between: Omit<RequestReport, 'sentAt'>): Promise<number> {
		const tenant = new RateController(clock).join({ maxConcurrency: 50 });
		await clock.advance(500);
		await burst(tenant, 30, 29, { retryAfterMs: 100 });
		await clock.advance(150);
		for (let wave = 0; wave < 4; wave++) {
			await answer(tenant, between);
			await answer(tenant, { status: 429, retryAfterMs: 1_000 });
		}
		const lastWave = clock.now();
		const sent = starts(tenant, 1);
		await clock.advance(5_000);
		return sent.at[0] - lastWave;
	}

	it('a request that ends without an answer (a timeout) is not an admission: waves around it are still a storm', async () => {
		expect(await wavesWith({})).toBeGreaterThanOrEqual(1_000);
		// Admitted between the waves: congestion, not a storm.
		expect(await wavesWith({ status: 200 })).toBeLessThan(1_000);
	});
});

describe('work left, as the executions tell it', () => {
	it('a sheet with a few rows not yet taken is near its end: the pace it learned stays, as with none left', async () => {
		const paceAfterAnswers = async (rowsLeft: number) => {
			const controller = new RateController(clock);
			const tenant = controller.join({ maxConcurrency: 50, rowsNotTaken: () => rowsLeft });
			await clock.advance(500);
			await burst(tenant, 30, 29, { retryAfterMs: 100 });
			await clock.advance(150);
			const learned = controller.pace!;
			for (let index = 0; index < 10; index++) await answer(tenant, { status: 200 });
			return controller.pace! / learned;
		};
		expect(await paceAfterAnswers(3)).toBe(1);
		expect(await paceAfterAnswers(10_000)).toBeGreaterThan(1);
	});

	it('lookups in flight are work left too: every row taken, the answers of 200 still to come keep the pace climbing', async () => {
		const paceAfterAnswers = async (inFlight: number) => {
			const controller = new RateController(clock);
			const tenant = controller.join({ maxConcurrency: 500, rowsNotTaken: () => 0 });
			await clock.advance(500);
			// 29 of 30 admitted over a second: a pace of some 26/s, so two seconds of work is some 53 lookups.
			await burst(tenant, 30, 29, { retryAfterMs: 100 }, 1_000);
			const learned = controller.pace!;
			const sentAt: number[] = [];
			for (let index = 0; index < inFlight; index++) {
				const permit = await clock.run(tenant.acquire());
				if (permit.kind === 'go') sentAt.push(permit.sentAt);
			}
			for (const sent of sentAt.slice(0, 10)) {
				tenant.release({ sentAt: sent, status: 200 });
				await clock.advance(20);
			}
			return controller.pace! / learned;
		};
		// Ten answers with two in flight after them: the last of the work, the pace stays.
		expect(await paceAfterAnswers(12)).toBe(1);
		// With 190 still in flight (and none queued, no row left to take): seconds of work, it climbs.
		expect(await paceAfterAnswers(200)).toBeGreaterThan(1);
	});
});

describe('the hang check (the simulations assert it between events)', () => {
	it('counts lookups waiting with nothing in flight and no wake-up armed, and only those', async () => {
		const controller = RateController.for('https://registry.example stuck', clock);
		// An execution that may never send: its lookups wait for a turn nothing will give.
		const stuck = controller.join({ maxConcurrency: 0 });
		starts(stuck, 2);
		await clock.advance(0);
		expect(controller.stranded).toBe(2);
		expect(RateController.strandedAnywhere()).toBe(2);
		// One in flight elsewhere: its answer will pump.
		const other = controller.join({ maxConcurrency: 1, maxRequestsPerSecond: 1 });
		const sent = starts(other, 2);
		await clock.advance(0);
		expect(controller.stranded).toBe(0);
		// Answered, and the next start of that execution a second away: the wake-up will pump.
		other.release({ sentAt: sent.at[0], status: 200 });
		await clock.advance(0);
		expect(sent.at).toHaveLength(1);
		expect(controller.stranded).toBe(0);
	});
});

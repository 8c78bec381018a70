import { VirtualClock } from '../../../../bench/sim/virtualClock';
import { RateController } from '../../../../nodes/shared/transport/rateControl';
import { nextStart } from '../../../../nodes/shared/transport/rateControl/modes';
import { suspectWindow } from '../../../../nodes/shared/transport/rateControl/windowState';
import { ok, play, refused, send, type Step } from './story';

// When the next request may start, as the mode says: a count the registry tells (spent freely, then
// paced at its refill, or waiting for an answer), a window's reset, a spent quota.

/** Requests every 100 ms from 1 s, each answered 50 ms later with the count told. */
function counted(remaining: number[]): Step[] {
	return remaining.flatMap((left, index) => {
		const at = 1_000 + 100 * index;
		return [send(at), ok(at, at + 50, { remaining: left })];
	});
}
const lastAnswer = (remaining: number[]) => 1_000 + 100 * (remaining.length - 1) + 50;

describe('a count the registry tells (X-RateLimit-Remaining)', () => {
	it('is spent at once while two or more are left, though it refills slowly', () => {
		// Ten sent, the count fell by four: it refills about five a second.
		const told = [6, 6, 5, 5, 4, 4, 3, 3, 2, 2];
		const { state } = play(counted(told));
		expect(nextStart(state, lastAnswer(told)).at).toBe(0);
	});

	it('with one left, is paced at its refill: the next start waits for it', () => {
		const told = [6, 6, 5, 5, 4, 4, 3, 3, 2, 1];
		const now = lastAnswer(told);
		const { state } = play(counted(told));
		const at = nextStart(state, now).at!;
		// About four and a half a second: the next start a good while after the last, not at once.
		expect(at).toBeGreaterThan(now + 100);
		expect(at).toBeLessThan(now + 400);
	});

	it('spent with requests out and no refill known: nothing starts before an answer tells more', () => {
		const steps = [send(1_000), ok(1_000, 1_050, { remaining: 5 })];
		const spent = [...steps, ...[1, 2, 3, 4, 5].map((index) => send(1_050 + index))];
		expect(nextStart(play(spent).state, 1_060).at).toBeUndefined();
		// One left: it goes.
		const oneLeft = [...steps, ...[1, 2, 3, 4].map((index) => send(1_050 + index))];
		expect(nextStart(play(oneLeft).state, 1_060).at).toBe(0);
		// Spent, and nothing out: one request goes, to learn the count again.
		const idle = [...steps, send(1_100), ok(1_100, 1_150, { remaining: 0 })];
		expect(nextStart(play(idle).state, 1_160).at).toBe(0);
	});
});

describe("a window whose answers tell a bucket's count (refills: no reset ahead)", () => {
	// Taken for a window, then every answer told a count and no reset: a bucket's. The window reckons our
	// own requests since it began (4 of 100 here); workers sharing the bucket spend the rest, and only the
	// count says so (bench/sim/queueShape.ts: the warm worker in this mode sent its whole concurrency into
	// a count others had spent, a wave of 429s every 1.25 s).
	const window = {
		...suspectWindow(900, undefined),
		confirming: false,
		holdUntil: 0,
		budget: 100,
		given: 100,
		refills: true,
		starts: [1_051, 1_052, 1_053, 1_054],
	};
	const told = (remaining: number, out: number) =>
		play([
			send(1_000),
			ok(1_000, 1_050, { remaining }),
			...[1, 2, 3, 4].slice(0, out).map((index) => send(1_050 + index)),
		]).state;

	it('is spent when the count, less our requests since, is: nothing starts before an answer', () => {
		expect(nextStart({ ...told(4, 4), window }, 1_060).at).toBeUndefined();
		expect(nextStart({ ...told(5, 4), window }, 1_060).at).toBe(0);
	});

	it('with nothing out, one goes to learn the count again; a window with resets keeps its own reckoning', () => {
		const spent = play([
			send(1_000),
			ok(1_000, 1_050, { remaining: 4 }),
			send(1_055),
			ok(1_055, 1_058, { remaining: 0 }),
		]).state;
		expect(nextStart({ ...spent, window }, 1_060).at).toBe(0);
		expect(nextStart({ ...told(4, 4), window: { ...window, refills: false } }, 1_060).at).toBe(0);
	});
});

describe('asking when the next start may be', () => {
	it("leaves the state it is asked about as it was, a window's reset or a pace's credit reckoned on a copy", () => {
		// A window of 3, spent and refused at its end, confirmed by a lone request; then asked after its reset.
		const window = play([
			...[2, 1, 0].flatMap((left, index) => {
				const at = 1_000 + 100 * index;
				return [send(at), ok(at, at + 50, { remaining: left, resetMs: 300 })];
			}),
			send(1_300),
			refused(1_300, 1_350, { resetMs: 300 }),
			send(1_500),
			refused(1_500, 1_550, { resetMs: 300 }),
		]).state;
		const before = structuredClone(window);
		const asked = nextStart(window, 5_000);
		expect(window).toEqual(before);
		expect(asked.state).not.toEqual(before);
	});
});

describe('a spent quota', () => {
	it('fails the waiting lookups at once when the quota is back later than Max Rate-Limit Wait', async () => {
		const clock = new VirtualClock();
		RateController.forgetAll();
		const tenant = new RateController(clock).join({
			maxConcurrency: 5,
			maxRateLimitWaitMs: 60_000,
		});
		// Two waves of 429s, nothing admitted, each saying to wait an hour: the quota is spent.
		for (let wave = 0; wave < 2; wave++) {
			const permit = await clock.run(tenant.acquire());
			if (permit.kind !== 'go') throw new Error(`expected a start, got ${permit.kind}`);
			tenant.release({ sentAt: permit.sentAt, status: 429, retryAfterMs: 3_600_000 });
		}
		const told: string[] = [];
		void tenant.acquire().then((acquired) => told.push(acquired.kind));
		await clock.advance(0);
		expect(told).toEqual(['paused']);
	});
});

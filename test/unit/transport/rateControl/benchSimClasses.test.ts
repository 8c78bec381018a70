import { seededRandom } from '../../../../bench/sim/random';
import { SimulatedRegistry, type RegistrySpec } from '../../../../bench/sim/registry';
import { runSheet } from '../../../../bench/sim/sheet';
import { VirtualClock } from '../../../../bench/sim/virtualClock';
import { RateController } from '../../../../nodes/shared/transport/rateControl';
import { CLASS_REGISTRY } from './simScenario';

// The classes of limiters bench:sim found the controller slow on, one case each, on a virtual clock:
// the real batch runner and controller against a simulated registry, in registry time.
let clock: VirtualClock;
beforeEach(() => {
	clock = new VirtualClock({ invariant: () => expect(RateController.strandedAnywhere()).toBe(0) });
	RateController.forgetAll();
});

const registry = (overrides: Partial<RegistrySpec>, seed = 1) =>
	new SimulatedRegistry(clock, { ...CLASS_REGISTRY, ...overrides }, seededRandom(seed));
const count = (rows: string[], kind: string) => rows.filter((row) => row === kind).length;

describe('bench:sim classes (issue 20)', () => {
	it('a bucket whose burst is below what measures a rate (no headers, Retry-After: 1) is paced, not asked 20 at once each second', async () => {
		// 80/s, burst 1: each second 20 requests at once met one token; no pace was ever learned from
		// one answer, so the sheet went at one row a second (bench:sim s243, 12.9x the floor).
		const sim = registry({ limiter: { family: 'token-bucket', ratePerSecond: 80, burst: 1 } });
		const startedAt = clock.now();
		const sheet = await clock.run(runSheet(clock, sim.request, 800));
		expect(count(sheet.rows, 'record')).toBe(800);
		// The floor is 10 s; doubling from one a second meets 80/s within 7 s.
		expect(clock.now() - startedAt).toBeLessThan(20_000);
	});

	it('a bucket of one a second, 20 rows, is not paced below what asking all at once each second gets', async () => {
		// The same first wave (one admitted of 20) as at 80/s: the doubling's wave must not leave the pace
		// below one a second, nor probe past it, each 429 costing its row a second (bench:sim s7).
		const sim = registry({ limiter: { family: 'token-bucket', ratePerSecond: 1, burst: 1 } });
		const startedAt = clock.now();
		const sheet = await clock.run(runSheet(clock, sim.request, 20));
		expect(count(sheet.rows, 'record')).toBe(20);
		// The floor is 19 s (the first row at once, then one a second).
		expect(clock.now() - startedAt).toBeLessThan(19_000 * 1.1);
	});

	it('a bucket of one that tells its count on every answer (always 0 left) is not paced at the rate we happened to send', async () => {
		// Every answer says 0 left: measured from how the count moves, the refill looked like exactly what
		// was sent, and the pace stayed there (bench:sim s31, 100/s: one row a second, 423x the floor).
		// A count never above 1 tells no budget to spend: the 429s teach the pace.
		const sim = registry({
			limiter: { family: 'token-bucket', ratePerSecond: 100, burst: 1 },
			headers: 'ratelimit-draft',
			retryAfter: 'zero',
		});
		const startedAt = clock.now();
		const sheet = await clock.run(runSheet(clock, sim.request, 600));
		expect(count(sheet.rows, 'record')).toBe(600);
		// The floor is 6 s.
		expect(clock.now() - startedAt).toBeLessThan(6_000 * 3);
	});

	it('a window whose 429 says 0 left and its reset 10 s ahead is waited for, not paced into wave after wave', async () => {
		// 150 per 10 s, headers on 429s only, Retry-After a date in the past (says nothing): the pace
		// learned from the first burst met 429 after 429 until the reset, each wave cutting the pace the
		// next window was spent at (bench:sim s69, 5x the floor).
		const sim = registry({
			limiter: {
				family: 'fixed-window',
				ratePerSecond: 15,
				burst: 150,
				limit: 150,
				windowMs: 10_000,
			},
			headers: 'x-ratelimit',
			headersOn: '429-only',
			retryAfter: 'past-date',
		});
		const startedAt = clock.now();
		const sheet = await clock.run(runSheet(clock, sim.request, 450));
		expect(count(sheet.rows, 'record')).toBe(450);
		// The floor is 20 s: three windows' budgets, at 0, 10 and 20 s.
		expect(clock.now() - startedAt).toBeLessThan(20_000 * 1.15);
		expect(sim.counters.rateLimited / sim.counters.requests).toBeLessThan(0.05);
	});
});

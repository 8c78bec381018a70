import { seededRandom } from '../../../bench/sim/random';
import { SimulatedRegistry, type RegistrySpec } from '../../../bench/sim/registry';
import { runSheet } from '../../../bench/sim/sheet';
import { VirtualClock } from '../../../bench/sim/virtualClock';
import { RateController } from '../../../nodes/shared/transport/rateControl';

// Issue 20's reproduced defects, each against a simulated registry on a virtual clock: the real batch
// runner and controller, what each row gets and how long the sheet takes in registry time.
let clock: VirtualClock;
beforeEach(() => {
	clock = new VirtualClock();
	RateController.forgetAll();
});

const spec = (overrides: Partial<RegistrySpec>): RegistrySpec => ({
	limiter: { family: 'token-bucket', ratePerSecond: 20, burst: 20 },
	headers: 'x-ratelimit',
	headersOn: 'always',
	resetAs: 'seconds',
	retryAfter: 'seconds',
	nonsense: 'none',
	latencyMs: 50,
	jitterMs: 10,
	faultShare: 0,
	...overrides,
});

const registry = (overrides: Partial<RegistrySpec>, seed = 1) =>
	new SimulatedRegistry(clock, spec(overrides), seededRandom(seed));
const count = (rows: string[], kind: string) => rows.filter((row) => row === kind).length;
const share429 = (sim: SimulatedRegistry) => sim.counters.rateLimited / sim.counters.requests;

describe('rate limits the controller once misread (issue 20)', () => {
	it.each([
		[
			'a fixed window',
			{ family: 'fixed-window', ratePerSecond: 20, burst: 20, limit: 20, windowMs: 1_000 },
		],
		[
			'a sliding window',
			{ family: 'sliding-window', ratePerSecond: 20, burst: 20, limit: 20, windowMs: 1_000 },
		],
		['a token bucket', { family: 'token-bucket', ratePerSecond: 20, burst: 20 }],
	] as const)(
		"1: a long quota's X-RateLimit-Reset is not the wait of a 429 from %s while the quota's Remaining is far from spent",
		async (_name, limiter) => {
			// 5,000 an hour told on every answer (Reset 50 min ahead, as Unix time), while 20 a second refuse with Retry-After: 1.
			const sim = registry({
				limiter: { ...limiter },
				longQuota: { limit: 5_000, windowMs: 50 * 60_000 },
			});
			const sheet = await clock.run(runSheet(clock, sim.request, 200));
			expect(count(sheet.rows, 'record')).toBe(200);
			// The quota's headers cost nothing over a registry that tells no limit at all (started as aligned to its windows).
			await clock.advance(60_000 - (clock.now() % 60_000));
			const silent = await clock.run(
				runSheet(clock, registry({ limiter: { ...limiter }, headers: 'none' }).request, 200, {
					process: 'silent',
				}),
			);
			expect(sheet.ms).toBeLessThanOrEqual(silent.ms * 1.02);
			await clock.advance(3_000);
			const next = await clock.run(runSheet(clock, sim.request, 100, { process: 'p0' }));
			expect(count(next.rows, 'record')).toBe(100);
		},
	);

	it.each(['zero', 'past-date'] as const)(
		'2: Retry-After %s (says nothing) costs no more 429s than no Retry-After at all: a floor under every pause',
		async (retryAfter) => {
			for (const seed of [1, 2, 3, 4, 5]) {
				const bucket = {
					limiter: { family: 'token-bucket' as const, ratePerSecond: 20, burst: 5 },
					headers: 'none' as const,
					latencyMs: 30,
				};
				const unsaid = registry({ ...bucket, retryAfter: 'none' }, seed);
				await clock.run(runSheet(clock, unsaid.request, 200, { process: `none${seed}` }));
				const sim = registry({ ...bucket, retryAfter }, seed);
				const sheet = await clock.run(
					runSheet(clock, sim.request, 200, { process: `${retryAfter}${seed}` }),
				);
				expect(count(sheet.rows, 'record')).toBe(200);
				// The first wave (20 sent at once into a burst of 5) is refused whatever Retry-After says.
				expect(share429(sim)).toBeLessThanOrEqual(share429(unsaid) + 0.01);
			}
		},
	);

	it('3: with no stored token, a first request that times out lets the others go: the token exchange has happened or failed', async () => {
		const silent = { silent: { timeoutMs: 3_000 } };
		const withToken = await clock.run(
			runSheet(clock, registry(silent).request, 50, { process: 'stored' }),
		);
		const withoutToken = await clock.run(
			runSheet(clock, registry(silent).request, 50, { process: 'none', tokenWasStored: false }),
		);
		expect(count(withoutToken.rows, 'record')).toBe(0);
		// A timeout or two more (the first request's, alone), not the sheet one by one.
		expect(withoutToken.ms).toBeLessThan(withToken.ms + 2 * 3_000);
	});

	it.each(['remaining-0', 'remaining-1', 'remaining-negative'] as const)(
		'4: a constant X-RateLimit-Remaining (%s) that the registry does not enforce does not slow a sheet',
		async (nonsense) => {
			const generous = { family: 'token-bucket' as const, ratePerSecond: 10_000, burst: 10_000 };
			const plain = await clock.run(
				runSheet(clock, registry({ limiter: generous, headers: 'none' }).request, 200, {
					process: 'plain',
				}),
			);
			const odd = await clock.run(
				runSheet(clock, registry({ limiter: generous, nonsense }).request, 200, {
					process: nonsense,
				}),
			);
			expect(count(odd.rows, 'record')).toBe(200);
			// About 200 / 20 in flight = 10 round trips either way; a couple more while the header is found out.
			expect(odd.ms).toBeLessThanOrEqual(plain.ms + 150);
		},
	);

	// What the checks above must not cost: a count that is the real budget is still trusted from its first answer.
	it("a slow bucket's count, told from the first (lone) request's answer on, starts no burst", async () => {
		const sim = registry({
			limiter: { family: 'token-bucket', ratePerSecond: 4, burst: 10 },
			latencyMs: 45,
		});
		const sheet = await clock.run(runSheet(clock, sim.request, 40, { tokenWasStored: false }));
		expect(count(sheet.rows, 'record')).toBe(40);
		expect(sim.counters.rateLimited).toBeLessThanOrEqual(4);
	});

	it("a spent daily quota's 429 (Remaining 0, Reset at midnight) fails the rows within a second or so", async () => {
		const sim = registry({
			limiter: { family: 'token-bucket', ratePerSecond: 100, burst: 1_000, dailyQuota: 5 },
		});
		const sheet = await clock.run(runSheet(clock, sim.request, 30));
		expect(count(sheet.rows, 'record')).toBe(5);
		expect(count(sheet.rows, 'rate-limited')).toBe(25);
		expect(sheet.ms).toBeLessThan(2_000);
	});
});

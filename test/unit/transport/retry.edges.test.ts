import { decideRetry, firstTry, type Tries } from '../../../nodes/shared/transport/retryDecision';
import {
	backoffMs,
	CircuitBreaker,
	rateLimitDelayMs,
	RetryBudget,
	TRANSIENT_STATUSES,
} from '../../../nodes/shared/transport/retryPolicy';
import type { LookupFailure } from '../../../nodes/shared/transport/registryError';
import { decided, retriesPaid, virtualClock } from './retryPolicy.clock';

// The retry policy at its edges, on an injected clock: how long each wait is, when the budget runs out,
// when the breaker opens, trips and closes, and the decision after each kind of try at its limits.

describe('waits', () => {
	it('backoff doubles from 250 ms to its 5 s cap, anywhere from 0 to that step', () => {
		const top = () => 1;
		expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => backoffMs(attempt, top))).toEqual([
			250, 500, 1000, 2000, 4000, 5000, 5000,
		]);
		expect(backoffMs(2, () => 0.5)).toBe(250);
		expect(backoffMs(1, () => 0.501)).toBe(125);
		const drawn = backoffMs(3);
		expect(drawn).toBeGreaterThanOrEqual(0);
		expect(drawn).toBeLessThanOrEqual(1000);
	});

	it('after a 429 with Retry-After: what it asks, but never below a floor doubling from 100 ms to 1 s', () => {
		expect([1, 2, 3, 4, 5, 6].map((attempt) => rateLimitDelayMs(0, attempt))).toEqual([
			100, 200, 400, 800, 1000, 1000,
		]);
		expect(rateLimitDelayMs(-5_000, 1)).toBe(100);
		expect(rateLimitDelayMs(7_000, 1)).toBe(7_000);
		expect(rateLimitDelayMs(150, 1)).toBe(150);
	});

	it('after a 429 without Retry-After: between half and all of 1, 2, 4 ... s, at most 30 s', () => {
		expect([1, 2, 3, 6, 7].map((attempt) => rateLimitDelayMs(undefined, attempt, () => 0))).toEqual(
			[500, 1000, 2000, 15_000, 15_000],
		);
		expect([1, 2, 6].map((attempt) => rateLimitDelayMs(undefined, attempt, () => 1))).toEqual([
			1000, 2000, 30_000,
		]);
		expect(rateLimitDelayMs(undefined, 2, () => 0.5)).toBe(1500);
		expect(rateLimitDelayMs(undefined, 1, () => 0.001)).toBe(501);
		const drawn = rateLimitDelayMs(undefined, 1);
		expect(drawn).toBeGreaterThanOrEqual(500);
		expect(drawn).toBeLessThanOrEqual(1000);
	});

	it("the statuses tried again are 500, 502, 503 and 504, a gateway's 520-524 and 529, and 408", () => {
		expect([...TRANSIENT_STATUSES].sort()).toEqual([
			408, 500, 502, 503, 504, 520, 521, 522, 523, 524, 529,
		]);
	});
});

describe('the retry budget', () => {
	it('of an execution pays for 100 retries, or 50 after timeouts', () => {
		expect(retriesPaid(new RetryBudget(), false)).toBe(100);
		expect(retriesPaid(new RetryBudget(), true)).toBe(50);
	});

	it('pays a retry with exactly its cost left, and refills no higher than it holds', () => {
		const budget = new RetryBudget(10);
		for (let index = 0; index < 5; index++) budget.refill();
		expect(budget.take(true)).toBe(true);
		expect(budget.take(false)).toBe(false);
		for (let index = 0; index < 5; index++) budget.refill();
		expect(budget.take(false)).toBe(true);
		expect(budget.take(false)).toBe(false);
	});
});

describe('the circuit breaker', () => {
	const time = virtualClock();
	const { clock, sleep } = time;
	beforeEach(() => time.reset());
	const failing = (breaker: CircuitBreaker, count: number) => {
		for (let index = 0; index < count; index++) breaker.record(false, false);
	};

	it('needs ten answers before it judges: nine failures leave it closed', async () => {
		const breaker = new CircuitBreaker(clock);
		failing(breaker, 9);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'closed' });
		failing(breaker, 1);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'probe' });
		expect(breaker.tripReport).toEqual({ failed: 10, of: 10 });
	});

	it('opens at 80% of the last 20 answers failed, not below', async () => {
		const below = new CircuitBreaker(clock);
		for (let index = 0; index < 5; index++) below.record(true, false);
		failing(below, 15);
		expect(await decided(below.gate(sleep))).toEqual({ kind: 'closed' });
		// The oldest answer leaves the window of 20: a failure, so 15 of 20 again.
		const window = new CircuitBreaker(clock);
		window.record(false, false);
		for (let index = 0; index < 4; index++) window.record(true, false);
		failing(window, 15);
		expect(await decided(window.gate(sleep))).toEqual({ kind: 'probe' });
		expect(window.tripReport).toEqual({ failed: 16, of: 20 });
		const slid = new CircuitBreaker(clock);
		for (let index = 0; index < 5; index++) slid.record(true, false);
		failing(slid, 15);
		slid.record(false, false);
		expect(await decided(slid.gate(sleep))).toEqual({ kind: 'probe' });
		expect(slid.tripReport).toEqual({ failed: 16, of: 20 });
	});

	it('keeps the report of the window that opened it while the answers of requests under way still come in', async () => {
		const breaker = new CircuitBreaker(clock);
		failing(breaker, 10);
		failing(breaker, 5);
		expect(breaker.tripReport).toEqual({ failed: 10, of: 10 });
	});

	it('a probe closing it forgets the failures before: the next spell needs ten answers again', async () => {
		const breaker = new CircuitBreaker(clock);
		failing(breaker, 10);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'probe' });
		breaker.record(true, true);
		failing(breaker, 9);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'closed' });
	});

	it('a verdict of a probe it did not send changes nothing', async () => {
		const breaker = new CircuitBreaker(clock);
		failing(breaker, 9);
		breaker.record(true, true);
		breaker.record(false, true);
		failing(breaker, 1);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'probe' });
		expect(time.now).toBe(1000);
	});

	it('trips at a failed probe exactly the tolerance after the outage began', async () => {
		const breaker = new CircuitBreaker(clock, 3000);
		failing(breaker, 10);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'probe' });
		breaker.record(false, true);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'probe' });
		expect(time.now).toBe(3000);
		breaker.record(false, true);
		expect(breaker.tripped).toBe(true);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'tripped' });
	});

	it("counts the tolerance from when the outage began, not from the clock's zero", async () => {
		time.reset(50_000);
		const breaker = new CircuitBreaker(clock, 3001);
		failing(breaker, 10);
		await decided(breaker.gate(sleep));
		breaker.record(false, true);
		expect(breaker.tripped).toBe(false);
		await decided(breaker.gate(sleep));
		expect(time.now).toBe(53_000);
		breaker.record(false, true);
		expect(breaker.tripped).toBe(false);
		await decided(breaker.gate(sleep));
		breaker.record(false, true);
		expect(breaker.tripped).toBe(true);
	});

	it('a probe failing just inside the tolerance opens it again', async () => {
		const breaker = new CircuitBreaker(clock, 3001);
		failing(breaker, 10);
		await decided(breaker.gate(sleep));
		breaker.record(false, true);
		await decided(breaker.gate(sleep));
		breaker.record(false, true);
		expect(breaker.tripped).toBe(false);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'probe' });
		expect(time.now).toBe(7000);
	});

	it('stopped, it holds nobody: those waiting for the probe and those waiting out the cool-down give up', async () => {
		const breaker = new CircuitBreaker(clock);
		failing(breaker, 10);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'probe' });
		const waiting = breaker.gate(sleep);
		breaker.stop();
		expect(await decided(waiting)).toEqual({ kind: 'tripped' });
		const other = new CircuitBreaker(clock);
		failing(other, 10);
		other.stop();
		const before = time.now;
		expect(await decided(other.gate(sleep))).toEqual({ kind: 'tripped' });
		expect(time.now).toBe(before);
	});

	it('a failed probe wakes those waiting for it, to wait out the next cool-down', async () => {
		const breaker = new CircuitBreaker(clock);
		failing(breaker, 10);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'probe' });
		const waiting = breaker.gate(sleep);
		breaker.record(false, true);
		expect(await decided(waiting)).toEqual({ kind: 'probe' });
		expect(time.now).toBe(3000);
	});

	it('a probe given back unsent is no verdict: the next waiter probes at once, the outage still counted from its start', async () => {
		const breaker = new CircuitBreaker(clock, 3000);
		failing(breaker, 10);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'probe' });
		breaker.record(false, true);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'probe' });
		const waiting = breaker.gate(sleep);
		breaker.notSent(true);
		expect(await decided(waiting)).toEqual({ kind: 'probe' });
		// No cool-down added (a failed probe would have doubled it to 4 s), and the next one waits again.
		expect(time.now).toBe(3000);
		const next = breaker.gate(sleep);
		breaker.notSent(true);
		expect(await decided(next)).toEqual({ kind: 'probe' });
		// Its failure trips it: every probe that went failed for the tolerance.
		breaker.record(false, true);
		expect(breaker.tripped).toBe(true);
	});

	it("a request given back unsent that was not the probe changes nothing, nor does a probe's outside half-open", async () => {
		const breaker = new CircuitBreaker(clock);
		breaker.notSent(true);
		failing(breaker, 9);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'closed' });
		failing(breaker, 1);
		breaker.notSent(true);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'probe' });
		expect(time.now).toBe(1000);
		const waiting = breaker.gate(sleep);
		breaker.notSent(false);
		await expect(decided(waiting)).rejects.toThrow('the gate still waits');
		breaker.record(true, true);
		expect(await decided(waiting)).toEqual({ kind: 'closed' });
	});

	it("reads the system clock when given none (here jest's, moved by the sleeps)", async () => {
		// setImmediate stays real: `decided` needs it to tell a gate that waits for nothing.
		jest.useFakeTimers({ now: 0, doNotFake: ['setImmediate'] });
		try {
			const breaker = new CircuitBreaker();
			failing(breaker, 10);
			// Jest's clock moves; the virtual one's sleep only counts, to end a breaker that loops.
			const fakeSleep = async (ms: number) => {
				jest.advanceTimersByTime(ms);
				return await sleep(0);
			};
			expect(await decided(breaker.gate(fakeSleep))).toEqual({ kind: 'probe' });
			expect(Date.now()).toBe(1000);
			breaker.record(false, true);
			expect(breaker.tripped).toBe(false);
		} finally {
			jest.useRealTimers();
		}
	});
});

describe('the decision after a try, at its limits', () => {
	const now = 100_000;
	const limits = { maxAttempts: 3, maxRateLimitWaitMs: 60_000 };
	const tries = (spent: Partial<Tries>): Tries => ({ ...firstTry(), ...spent });
	const http503: LookupFailure = { kind: 'http', status: 503, body: '', attempts: 1 };
	const transient = (failure: LookupFailure, retryAfterMs?: number, probe = false) =>
		({ kind: 'transient', failure, retryAfterMs, probe }) as const;

	it('a first try is attempt 1, nothing spent', () => {
		expect(firstTry()).toStrictEqual({
			attempt: 1,
			rateLimited: 0,
			rateLimitedSince: undefined,
			refusedWith: undefined,
			tokenResends: 0,
		});
	});

	it('a pause of everybody before this lookup met a 429 has waited nothing', () => {
		expect(
			decideRetry({ kind: 'paused', until: now + 300 }, firstTry(), limits, now),
		).toStrictEqual({
			kind: 'finish',
			outcome: {
				kind: 'failed',
				failure: { kind: 'rate-limited', waitedMs: 0, retryAfterMs: 300, status: undefined },
			},
		});
	});

	it('the third resend to a renewed token still goes', () => {
		expect(
			decideRetry(
				{ kind: 'tokenResend', refusal: { status: 401 } },
				tries({ tokenResends: 2 }),
				limits,
				now,
			),
		).toStrictEqual({ kind: 'again', tries: tries({ tokenResends: 3 }) });
	});

	it('a 429 whose wait ends exactly at the wait budget is waited for; one past it is not', () => {
		const since = now - 58_000;
		expect(
			decideRetry(
				{ kind: 'rateLimited', status: 429, retryAfterMs: 2_000, delayMs: 2_000 },
				tries({ rateLimited: 2, rateLimitedSince: since }),
				limits,
				now,
			),
		).toStrictEqual({
			kind: 'wait',
			ms: 2_000,
			tries: tries({ rateLimited: 3, rateLimitedSince: since, refusedWith: 429 }),
		});
		expect(
			decideRetry(
				{ kind: 'rateLimited', status: 420, retryAfterMs: undefined, delayMs: 2_001 },
				tries({ rateLimited: 2, rateLimitedSince: since }),
				limits,
				now,
			),
		).toStrictEqual({
			kind: 'finish',
			outcome: {
				kind: 'failed',
				failure: { kind: 'rate-limited', waitedMs: 58_000, retryAfterMs: undefined, status: 420 },
			},
		});
	});

	it('the 19th 429 is waited for, the 20th ends the lookup', () => {
		const result = {
			kind: 'rateLimited',
			status: 429,
			retryAfterMs: undefined,
			delayMs: 10,
		} as const;
		expect(
			decideRetry(result, tries({ rateLimited: 18, rateLimitedSince: now }), limits, now),
		).toMatchObject({
			kind: 'wait',
		});
		expect(
			decideRetry(result, tries({ rateLimited: 19, rateLimitedSince: now }), limits, now),
		).toMatchObject({
			kind: 'finish',
		});
	});

	it('a 503 before the last attempt backs off, counting the attempt; on it, the failure is final', () => {
		expect(decideRetry(transient(http503), tries({ attempt: 2 }), limits, now)).toStrictEqual({
			kind: 'backOff',
			failure: http503,
			timeout: false,
			retryAfterMs: undefined,
			backoffAttempt: 2,
			tries: tries({ attempt: 3 }),
		});
		expect(decideRetry(transient(http503), tries({ attempt: 3 }), limits, now)).toStrictEqual({
			kind: 'finish',
			outcome: { kind: 'failed', failure: http503 },
		});
	});

	it('a 503 asking for exactly the wait budget backs off, at least that long', () => {
		expect(decideRetry(transient(http503, 60_000), firstTry(), limits, now)).toMatchObject({
			kind: 'backOff',
			retryAfterMs: 60_000,
		});
		expect(decideRetry(transient(http503, 60_001), firstTry(), limits, now)).toStrictEqual({
			kind: 'finish',
			outcome: { kind: 'failed', failure: http503 },
		});
	});

	it('a dropped connection is no timeout: it costs a retry, not two', () => {
		const dropped: LookupFailure = {
			kind: 'no-response',
			reason: 'network',
			code: 'ECONNRESET',
			attempts: 1,
		};
		expect(decideRetry(transient(dropped), firstTry(), limits, now)).toMatchObject({
			kind: 'backOff',
			timeout: false,
		});
	});

	it("the breaker's probe without retries (Max Tries 1) fails its row", () => {
		expect(
			decideRetry(
				transient(http503, undefined, true),
				firstTry(),
				{ ...limits, maxAttempts: 1 },
				now,
			),
		).toStrictEqual({ kind: 'finish', outcome: { kind: 'failed', failure: http503 } });
	});

	it("the breaker's probe before the last attempt does not spend its row's attempt", () => {
		expect(
			decideRetry(transient(http503, undefined, true), tries({ attempt: 2 }), limits, now),
		).toMatchObject({ kind: 'backOff', backoffAttempt: 2, tries: tries({ attempt: 2 }) });
	});
});

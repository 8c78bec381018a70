import { backoffMs, CircuitBreaker, RetryBudget } from '../../../nodes/shared/transport/retryPolicy';

describe('backoff', () => {
	it('is full jitter under a capped exponential step', () => {
		expect(backoffMs(1, () => 0.999999)).toBe(250);
		expect(backoffMs(3, () => 0.999999)).toBe(1000);
		expect(backoffMs(30, () => 0.999999)).toBe(5000);
		expect(backoffMs(3, () => 0)).toBe(0);
	});
});

describe('retry budget', () => {
	it('pays 5 per retry and 10 per timeout, and successes give 1 back', () => {
		const budget = new RetryBudget(20);
		expect(budget.take(true)).toBe(true);
		expect(budget.take(false)).toBe(true);
		expect(budget.take(false)).toBe(true);
		expect(budget.take(false)).toBe(false);
		for (let index = 0; index < 5; index++) budget.refill();
		expect(budget.take(false)).toBe(true);
	});
});

describe('circuit breaker', () => {
	let now = 0;
	const clock = () => now;
	const sleep = async (ms: number) => {
		now += ms;
		return true;
	};

	it('stays closed while most answers are good', async () => {
		const breaker = new CircuitBreaker(clock);
		for (let index = 0; index < 100; index++) breaker.record(index % 10 !== 0, false);
		expect(await breaker.gate(sleep)).toEqual({ kind: 'closed' });
	});

	it('opens when most recent requests failed, lets one probe through after a cool-down, and closes on its success', async () => {
		now = 0;
		const breaker = new CircuitBreaker(clock);
		for (let index = 0; index < 10; index++) breaker.record(false, false);
		expect(await breaker.gate(sleep)).toEqual({ kind: 'probe' });
		expect(now).toBe(1000);
		breaker.record(true, true);
		expect(await breaker.gate(sleep)).toEqual({ kind: 'closed' });
	});

	it('trips after two failed probes, the second after a doubled cool-down', async () => {
		now = 0;
		const breaker = new CircuitBreaker(clock);
		for (let index = 0; index < 10; index++) breaker.record(false, false);
		expect(await breaker.gate(sleep)).toEqual({ kind: 'probe' });
		breaker.record(false, true);
		expect(await breaker.gate(sleep)).toEqual({ kind: 'probe' });
		expect(now).toBe(3000);
		breaker.record(false, true);
		expect(breaker.tripped).toBe(true);
		expect(await breaker.gate(sleep)).toEqual({ kind: 'tripped' });
		expect(breaker.tripReport).toEqual({ failed: 10, of: 10 });
	});

	it('holds others while the probe is out, and wakes them with its verdict', async () => {
		now = 0;
		const breaker = new CircuitBreaker(clock);
		for (let index = 0; index < 10; index++) breaker.record(false, false);
		expect(await breaker.gate(sleep)).toEqual({ kind: 'probe' });
		const waiting = breaker.gate(sleep);
		breaker.record(true, true);
		expect(await waiting).toEqual({ kind: 'closed' });
	});
});

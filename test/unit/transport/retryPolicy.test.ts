import {
	backoffMs,
	CircuitBreaker,
	OUTAGE_TOLERANCE_MS,
	RetryBudget,
} from '../../../nodes/shared/transport/retryPolicy';

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

	it('half-open: a failed probe opens it again for a doubled cool-down (at most 4 s); it trips only once every probe failed for the outage tolerance', async () => {
		now = 0;
		const breaker = new CircuitBreaker(clock);
		for (let index = 0; index < 10; index++) breaker.record(false, false);
		const probes: number[] = [];
		for (;;) {
			const gate = await breaker.gate(sleep);
			if (gate.kind !== 'probe') {
				expect(gate).toEqual({ kind: 'tripped' });
				break;
			}
			probes.push(now);
			breaker.record(false, true);
		}
		// Cool-downs of 1, 2, 4 and 4 s: the probe at 11 s is the first after 10 s of outage.
		expect(probes).toEqual([1000, 3000, 7000, 11_000]);
		expect(OUTAGE_TOLERANCE_MS).toBe(10_000);
		expect(breaker.tripped).toBe(true);
		expect(breaker.tripReport).toEqual({ failed: 10, of: 10 });
	});

	it('rides out an outage shorter than the tolerance: the probe after it closes the breaker, nobody is failed', async () => {
		now = 0;
		const breaker = new CircuitBreaker(clock);
		for (let index = 0; index < 10; index++) breaker.record(false, false);
		const outageEnds = 6000;
		for (;;) {
			const gate = await breaker.gate(sleep);
			expect(gate.kind).not.toBe('tripped');
			if (gate.kind === 'closed') break;
			breaker.record(now >= outageEnds, true);
		}
		expect(now).toBe(7000);
		expect(breaker.tripped).toBe(false);
		// A new spell of failures starts from the first cool-down again.
		for (let index = 0; index < 10; index++) breaker.record(false, false);
		expect(await breaker.gate(sleep)).toEqual({ kind: 'probe' });
		expect(now).toBe(8000);
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

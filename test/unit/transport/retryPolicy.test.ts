import {
	backoffMs,
	CircuitBreaker,
	isTransient,
	OUTAGE_TOLERANCE_MS,
	RetryBudget,
} from '../../../nodes/shared/transport/retryPolicy';
import type { RegistryAnswer } from '../../../nodes/shared/transport/registryRequest';
import { decided, virtualClock } from './retryPolicy.clock';

describe('backoff', () => {
	it('is full jitter under a capped exponential step', () => {
		expect(backoffMs(1, () => 0.999999)).toBe(250);
		expect(backoffMs(3, () => 0.999999)).toBe(1000);
		expect(backoffMs(30, () => 0.999999)).toBe(5000);
		expect(backoffMs(3, () => 0)).toBe(0);
	});
});

describe('transient answers (isTransient)', () => {
	const response = (status: number): RegistryAnswer => ({
		kind: 'response',
		status,
		headers: {},
		body: {},
	});
	it.each<[string, RegistryAnswer, boolean]>([
		['no answer in time', { kind: 'no-response', reason: 'timeout', code: 'ETIMEDOUT' }, true],
		['a dropped connection', { kind: 'no-response', reason: 'network', code: 'ECONNRESET' }, true],
		...[408, 500, 502, 503, 504, 520, 521, 522, 523, 524, 529].map(
			(status): [string, RegistryAnswer, boolean] => [`HTTP ${status}`, response(status), true],
		),
		...[200, 404, 429, 403, 501, 525, 526].map((status): [string, RegistryAnswer, boolean] => [
			`HTTP ${status}`,
			response(status),
			false,
		]),
		['a token refused', { kind: 'token-refused', status: 401, tokenBytes: 900 }, false],
		['the token exchange failed', { kind: 'credential', message: 'no' }, false],
		['the execution stopped', { kind: 'cancelled' }, false],
		['an answer not decodable', { kind: 'undecodable', status: 200, code: 'Z_DATA_ERROR' }, false],
	])('%s: %s', (_name, answer, transient) => {
		expect(isTransient(answer)).toBe(transient);
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
	const time = virtualClock();
	const { clock, sleep } = time;
	beforeEach(() => time.reset());

	it('stays closed while most answers are good', async () => {
		const breaker = new CircuitBreaker(clock);
		for (let index = 0; index < 100; index++) breaker.record(index % 10 !== 0, false);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'closed' });
	});

	it('opens when most recent requests failed, lets one probe through after a cool-down, and closes on its success', async () => {
		const breaker = new CircuitBreaker(clock);
		for (let index = 0; index < 10; index++) breaker.record(false, false);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'probe' });
		expect(time.now).toBe(1000);
		breaker.record(true, true);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'closed' });
	});

	it('half-open: a failed probe opens it again for a doubled cool-down (at most 4 s); it trips only once every probe failed for the outage tolerance', async () => {
		const breaker = new CircuitBreaker(clock);
		for (let index = 0; index < 10; index++) breaker.record(false, false);
		const probes: number[] = [];
		// A breaker that never ends the spell leaves the loop here, and fails the checks after it.
		for (let probe = 0; probe < 20; probe++) {
			const gate = await decided(breaker.gate(sleep));
			if (gate.kind !== 'probe') {
				expect(gate).toEqual({ kind: 'tripped' });
				break;
			}
			probes.push(time.now);
			breaker.record(false, true);
		}
		// Cool-downs of 1, 2, 4 and 4 s: the probe at 11 s is the first after 10 s of outage.
		expect(probes).toEqual([1000, 3000, 7000, 11_000]);
		expect(OUTAGE_TOLERANCE_MS).toBe(10_000);
		expect(breaker.tripped).toBe(true);
		expect(breaker.tripReport).toEqual({ failed: 10, of: 10 });
	});

	it('rides out an outage shorter than the tolerance: the probe after it closes the breaker, nobody is failed', async () => {
		const breaker = new CircuitBreaker(clock);
		for (let index = 0; index < 10; index++) breaker.record(false, false);
		const outageEnds = 6000;
		// A breaker that never ends the spell leaves the loop here, and fails the checks after it.
		for (let probe = 0; probe < 20; probe++) {
			const gate = await decided(breaker.gate(sleep));
			expect(gate.kind).not.toBe('tripped');
			if (gate.kind === 'closed') break;
			breaker.record(time.now >= outageEnds, true);
		}
		expect(time.now).toBe(7000);
		expect(breaker.tripped).toBe(false);
		// A new spell of failures starts from the first cool-down again.
		for (let index = 0; index < 10; index++) breaker.record(false, false);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'probe' });
		expect(time.now).toBe(8000);
	});

	it('holds others while the probe is out, and wakes them with its verdict', async () => {
		const breaker = new CircuitBreaker(clock);
		for (let index = 0; index < 10; index++) breaker.record(false, false);
		expect(await decided(breaker.gate(sleep))).toEqual({ kind: 'probe' });
		const waiting = breaker.gate(sleep);
		breaker.record(true, true);
		expect(await decided(waiting)).toEqual({ kind: 'closed' });
	});
});

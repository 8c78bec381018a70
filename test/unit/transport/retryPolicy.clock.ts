/**
 * The virtual clock the circuit breaker's tests run on. A breaker that never decides fails its test at
 * once instead of hanging it: on a virtual clock nothing but the test moves time, so a gate that sleeps
 * a thousand times is looping, and a gate still pending once every queued callback has run waits for a
 * verdict nobody will give. (Mutation testing makes such breakers on purpose: each hang would cost the
 * whole run's timeout and a restart of the test runner.)
 */
const MAX_SLEEPS = 1000;

export interface VirtualClock {
	now: number;
	clock: () => number;
	sleep: (ms: number) => Promise<boolean>;
	/** Forgets the sleeps counted so far and sets the time (a test's start). */
	reset: (now?: number) => void;
}

export function virtualClock(): VirtualClock {
	let sleeps = 0;
	const time: VirtualClock = {
		now: 0,
		clock: () => time.now,
		sleep: async (ms) => {
			if (++sleeps > MAX_SLEEPS) throw new Error(`the breaker slept ${MAX_SLEEPS} times: a loop`);
			time.now += ms;
			return true;
		},
		reset: (now = 0) => {
			time.now = now;
			sleeps = 0;
		},
	};
	return time;
}

/** The gate's answer, which on a virtual clock must come without any real time passing. */
export async function decided<T>(gate: Promise<T>): Promise<T> {
	const pending = Symbol('pending');
	const first = await Promise.race([
		gate,
		new Promise<typeof pending>((resolve) => setImmediate(() => resolve(pending))),
	]);
	if (first === pending) throw new Error('the gate still waits, and nothing is left to wake it');
	return first as T;
}

/** How many retries a budget pays before it refuses one; a budget that never runs out fails the count. */
export function retriesPaid(budget: { take: (timeout: boolean) => boolean }, timeout: boolean) {
	let paid = 0;
	while (paid < MAX_SLEEPS && budget.take(timeout)) paid++;
	return paid;
}

import { sleep } from 'n8n-workflow';

/** Node's timers overflow past 2^31 - 1 ms and then fire at once, in a loop: never ask for more. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * n8n's sleep, clamped to what a timer can hold, ended early (without throwing) when `signal` aborts.
 * Resolves true when the whole time passed.
 */
export async function wait(ms: number, signal?: AbortSignal): Promise<boolean> {
	if (signal?.aborted) return false;
	const delay = Math.min(MAX_TIMER_MS, Math.max(0, Number.isFinite(ms) ? ms : MAX_TIMER_MS));
	try {
		await sleep(delay, signal);
		return !signal?.aborted;
	} catch {
		// sleep rejects with the abort reason: the wait simply ended.
		return false;
	}
}

/**
 * Where time comes from: the real clock in n8n, a virtual one in the unit tests and the simulation
 * (bench:sim), so that what waits for the rate limit can be run over hours of registry time in a moment.
 */
export interface Clock {
	now(): number;
	/** Resolves true when the whole time passed, false when `signal` aborted first. Never throws. */
	sleep(ms: number, signal?: AbortSignal): Promise<boolean>;
}

/** The real clock: Date.now, and n8n's sleep through `wait`. */
export const realClock: Clock = { now: () => Date.now(), sleep: wait };

/**
 * Waits that all end when one signal aborts, with one listener on that signal however many wait at
 * once (a listener per wait would pile up on a sheet's signal).
 */
export class Waits {
	private readonly pending = new Set<AbortController>();

	constructor(
		private readonly signal: AbortSignal,
		private readonly clock: Clock = realClock,
	) {
		signal.addEventListener('abort', () => {
			for (const controller of this.pending) controller.abort();
		});
	}

	async wait(ms: number): Promise<boolean> {
		if (this.signal.aborted) return false;
		const controller = new AbortController();
		this.pending.add(controller);
		try {
			return await this.clock.sleep(ms, controller.signal);
		} finally {
			this.pending.delete(controller);
		}
	}
}

import type { Clock } from '../../nodes/shared/transport/wait';

interface Timer {
	at: number;
	/** Ties fire in the order they were set, as real timers do. */
	seq: number;
	resolve: (completed: boolean) => void;
	done: boolean;
}

/** Everything already queued as a promise reaction runs before this resolves (one macrotask turn). */
const settle = async () => await new Promise<void>((resolve) => setImmediate(resolve));

/** The virtual clock's first moment unless told otherwise: a whole second (so a whole window of a second). */
export const VIRTUAL_EPOCH = Date.UTC(2026, 0, 5, 9, 0, 0);

export interface VirtualClockOptions {
	/** Starts at a fixed, realistic moment: resets given as Unix time must read as such. */
	start?: number;
	/**
	 * Each reading of the clock moves it on by this much, as real time moves while code runs: two
	 * readings in one turn differ (0: time stands still until every reaction has run).
	 */
	readCostMs?: number;
	/** Called whenever everything queued has run (between events), to assert what must always hold. */
	invariant?: () => void;
}

/**
 * A clock whose time moves only when nothing else can happen: every pending promise reaction runs,
 * then time jumps to the earliest sleep that ends. Hours of registry time take as long as the code
 * takes to run, and a run is the same every time (no real timer decides an order).
 */
export class VirtualClock implements Clock {
	private time: number;
	private seq = 0;
	/** A binary heap on (at, seq). */
	private readonly timers: Timer[] = [];
	private readonly readCostMs: number;
	private readonly invariant: () => void;

	constructor({
		start = VIRTUAL_EPOCH,
		readCostMs = 0,
		invariant = () => {},
	}: VirtualClockOptions = {}) {
		this.time = start;
		this.readCostMs = readCostMs;
		this.invariant = invariant;
	}

	now(): number {
		const time = this.time;
		this.time += this.readCostMs;
		return time;
	}

	async sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
		if (signal?.aborted) return false;
		return await new Promise<boolean>((resolve) => {
			const timer: Timer = {
				at: this.time + Math.max(0, Number.isFinite(ms) ? ms : Number.MAX_SAFE_INTEGER),
				seq: this.seq++,
				resolve,
				done: false,
			};
			const onAbort = () => {
				if (timer.done) return;
				timer.done = true;
				resolve(false);
			};
			timer.resolve = (completed) => {
				signal?.removeEventListener('abort', onAbort);
				resolve(completed);
			};
			signal?.addEventListener('abort', onAbort, { once: true });
			this.push(timer);
		});
	}

	/** Lets time pass by `ms`, firing every sleep that ends meanwhile, in order. */
	async advance(ms: number): Promise<void> {
		const until = this.time + ms;
		await this.settle();
		for (;;) {
			const next = this.peek();
			if (next === undefined || next.at > until) break;
			this.fireDue(next.at);
			await this.settle();
		}
		this.time = until;
		await this.settle();
	}

	/**
	 * Runs until `work` settles, moving time on whenever nothing else can happen. Throws when nothing is
	 * left to wait for and `work` still has not settled (a hang), or once `limitMs` of virtual time passed.
	 */
	async run<T>(work: Promise<T>, limitMs = 7 * 86_400_000): Promise<T> {
		let settled = false;
		const watched = work.finally(() => {
			settled = true;
		});
		const deadline = this.time + limitMs;
		await this.settle();
		while (!settled) {
			const next = this.peek();
			if (next === undefined) throw new Error(`hang: nothing left to wait for at +${this.time}`);
			if (next.at > deadline) throw new Error(`still running after ${limitMs} ms of virtual time`);
			this.fireDue(next.at);
			await this.settle();
		}
		return await watched;
	}

	/** One macrotask turn, then the invariant. */
	private async settle(): Promise<void> {
		await settle();
		this.invariant();
	}

	/** Sleeps not yet ended. */
	get pending(): number {
		return this.timers.filter((timer) => !timer.done).length;
	}

	private fireDue(at: number): void {
		this.time = Math.max(this.time, at);
		for (;;) {
			const next = this.peek();
			if (next === undefined || next.at > this.time) return;
			this.pop();
			next.done = true;
			next.resolve(true);
		}
	}

	private peek(): Timer | undefined {
		while (this.timers.length > 0 && this.timers[0].done) this.pop();
		return this.timers[0];
	}

	private push(timer: Timer): void {
		const heap = this.timers;
		heap.push(timer);
		let index = heap.length - 1;
		while (index > 0) {
			const parent = (index - 1) >> 1;
			if (!before(heap[index], heap[parent])) break;
			[heap[index], heap[parent]] = [heap[parent], heap[index]];
			index = parent;
		}
	}

	private pop(): void {
		const heap = this.timers;
		const last = heap.pop()!;
		if (heap.length === 0) return;
		heap[0] = last;
		let index = 0;
		for (;;) {
			const left = 2 * index + 1;
			const right = left + 1;
			let smallest = index;
			if (left < heap.length && before(heap[left], heap[smallest])) smallest = left;
			if (right < heap.length && before(heap[right], heap[smallest])) smallest = right;
			if (smallest === index) return;
			[heap[index], heap[smallest]] = [heap[smallest], heap[index]];
			index = smallest;
		}
	}
}

const before = (a: Timer, b: Timer) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

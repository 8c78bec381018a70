import { randomUUID } from 'node:crypto';

import type { ICheckProcessedOptions } from 'n8n-workflow';

import { realClock, type Clock } from '../transport/wait';
import { STORE_CAPACITY, type ProcessedItemsStore } from './storeRow';

/**
 * How long one lease entry stands for: a run holds the store while the row holds the entry of the current
 * or the previous slot of this length. Every call the run makes carries the current slot's, so it must
 * exceed the longest time between two calls of a run that holds the store: at 100,000 companies a call
 * reads and writes a row of some 300,000 hashes and the comparison between recall and remember takes a
 * second or two (bench/watch.ts), tens of seconds on a loaded n8n. A run that dies holding it (its process
 * crashed) holds the store two slots at most.
 */
export const LEASE_MS = 60_000;

/**
 * How often a run that holds the store renews its lease entry while it makes no call on the row (its
 * lookups: minutes for a long list at a registry's rate limit): within a slot, so it never lapses.
 */
export const LEASE_RENEW_MS = LEASE_MS / 2;

/**
 * How long a run that finds the store held waits before it asks again. Each ask reads and writes the whole
 * row twice (the ask, then the take-back of what it recorded): some 0.1-0.2 s of n8n's work at 100,000
 * companies, so a few a holder's run, not one a second.
 */
export const TURN_POLL_MS = 5_000;

/**
 * How long a run that found the store free waits before it checks that its take stood, at least: longer
 * than another run's take that read the row before this one wrote (n8n reads, then writes the whole row:
 * the later write keeps the earlier one's out). Twice the run's own take call, where that was longer
 * (about 0.4 s at 100,000 companies, more on a loaded n8n). The run that holds the store waits as long
 * again after its check, so that the others' checks and take-backs land before its first call.
 */
export const TAKE_SETTLE_MS = 500;

/**
 * Lease entries a run may add to the row beyond the entries the memory asks room for (the three its take
 * records, and one a slot its run lasts): n8n trims the oldest past `maxEntries`, and a company's status
 * entry must not go to make room for them.
 */
const LEASE_ROOM = 5;

/**
 * The lease entry of one slot: two values, the second a number, so no company's entry (`[id, field, value]`),
 * the row's mark or its emptied entry reads like it.
 */
export const leaseEntry = (slot: number) => JSON.stringify(['store in use', slot]);

/** The entry that says which run's take stood: one per take, kept while it holds the store. */
export const takerEntry = (token: string) => JSON.stringify(['store in use', 'by', token]);

/**
 * Runs of one watch node take turns over its row in n8n's processed-items store: one run's asks, clear and
 * write never interleave with another's. n8n reads and rewrites the row per call without a lock, and each
 * run writes the whole row anew from what it read: two runs at once lose an alert (one records a new
 * status, the other then finds it held and reports nothing, and the first fails) or bring an older status
 * back (the later writer wins).
 *
 * The turn is a lease entry in the row itself, `["store in use", slot]` with slot = time / LEASE_MS, made
 * with n8n's store calls alone (no other lock is reachable from a node):
 *   - a run takes it by recording the current and the previous slot's entries with a taker entry of its
 *     own (`["store in use", "by", token]`): either lease entry held, another run holds it: it takes back
 *     what it recorded (removeProcessed) and asks again TURN_POLL_MS later; both new, the store is free,
 *     but runs whose takes read the row before either wrote it all find it so (runs started together:
 *     n8n starts a worker's queued executions at once), and the later whole-row write keeps only its own
 *     taker entry: each asks for its taker entry once those takes have landed (TAKE_SETTLE_MS), and the
 *     run whose entry stood holds the store;
 *   - every call the run makes carries the current slot's entry (one value more, last, so n8n's trimming
 *     keeps it): the lease renews itself at no extra call; a run that holds the store from before its
 *     lookups (`hold`: the watch, so that it never compares lookups older than the memory it reads)
 *     records that entry alone every LEASE_RENEW_MS while it makes no call;
 *   - the run's clear gives the store up (the lease entries go with the row; its write, one call, is its
 *     last); a run that does not clear (a quiet run, one that failed) removes the entries it recorded when
 *     it ends; a run that died holding the store leaves entries of slots that stop counting two slots on.
 * The memory sees none of this: the entries are taken out of what the store answers, the count leaves out
 * those this run recorded, and n8n is asked for room for them beyond the memory's capacity.
 *
 * Two runs' first calls on a row that is not there (a watch's first runs, a poll while the holder writes
 * its row anew after its clear) both insert it, and n8n fails one on the duplicate key: the take asks once
 * more and finds the row. A run n8n stops while it waits (its execution timeout, a user's stop: n8n runs the
 * node's code on) gives up its wait and holds nothing, so it records nothing.
 *
 * What it does not close (storeTurns.redteam.test.ts, each a known failure): n8n's own calls are not atomic
 * (findOne, then insert or update), so a take whose call outlasts another run's take and its check can
 * stand too; a run polling while the holder writes its row anew takes the store one call early where
 * its insert comes before the holder's and the holder's write outlasts its settle (the write hashes
 * every value first: about 1 s at 100,000 companies); a waiter's ask that records the current slot's entry just
 * before the holder's call, and takes it back after, leaves the holder without it until its next call (a
 * poll in the next slot before that call finds the store free); runs whose clocks differ by more than a
 * slot ask slots that never meet. Each then runs as without turns, never worse.
 */
export class StoreTurn implements ProcessedItemsStore {
	/** Lease entries this run recorded into the row (not held before) since its last clear: its own. */
	private readonly owned = new Set<string>();
	/** Whether the run holds the store (between `take` and `release`). */
	private holding = false;
	/** When the run last called on the row while holding it (a call renews the lease). */
	private calledAt = Number.NEGATIVE_INFINITY;
	/** The run's calls on the row, one after another: a renewal never meets the memory's call (n8n would keep one write). */
	private calls: Promise<unknown> = Promise.resolve();
	/** The renewal of a run that holds the store (`hold`), until `release`. */
	private renewal: { stop: AbortController; done: Promise<void> } | undefined;

	/**
	 * `maxEntries`: the row's capacity the memory asks for (ProcessedItemsMemory's); the lease's calls ask
	 * for LEASE_ROOM more.
	 */
	constructor(
		private readonly store: ProcessedItemsStore,
		private readonly clock: Clock = realClock,
		private readonly maxEntries = STORE_CAPACITY,
	) {}

	/** Whether the store lets a run take turns: taking back a lease entry needs n8n's removeProcessed. */
	static possible(store: ProcessedItemsStore): boolean {
		return typeof store.removeProcessed === 'function';
	}

	/**
	 * Runs `work` holding the store: waits for its turn first, gives the store up after, failed or not.
	 * `signal`: the execution's cancel signal (see `take`).
	 */
	async during<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
		await this.hold(signal);
		try {
			return await work();
		} finally {
			await this.release();
		}
	}

	/**
	 * Takes the store (`take`) and keeps it until `release`, renewing the lease while the run makes no call
	 * on the row (its lookups). `take` alone holds it only as long as the run calls.
	 */
	async hold(signal?: AbortSignal): Promise<void> {
		await this.take(signal);
		const stop = new AbortController();
		this.renewal = { stop, done: this.renewWhileIdle(stop.signal) };
	}

	/**
	 * Renews the lease while the run holds the store and makes no call on the row (its lookups), until
	 * `stop`: a run that holds the store from before its lookups would otherwise lose it two slots on.
	 */
	private async renewWhileIdle(stop: AbortSignal): Promise<void> {
		while (await this.clock.sleep(LEASE_RENEW_MS, stop)) {
			if (!this.holding) return;
			if (this.clock.now() - this.calledAt < LEASE_RENEW_MS) continue;
			// A holder's call carries the current slot's entry: one with nothing else is the renewal.
			await this.checkProcessedAndRecord([], 'node', {
				mode: 'entries',
				maxEntries: this.maxEntries,
			}).catch(() => undefined);
		}
	}

	/** Runs one call on the row after the run's previous one has ended. */
	private async inTurn<T>(call: () => Promise<T>): Promise<T> {
		const next = this.calls.then(call, call);
		this.calls = next.catch(() => undefined);
		return await next;
	}

	/**
	 * Waits until no other run holds the store, and takes it. Where `signal` aborts first (n8n ended the
	 * execution: its timeout, a user's stop) it gives up waiting and throws, holding nothing: n8n runs a
	 * node's code on after the execution ends, and a run taking the store then would record changes whose
	 * alerts go nowhere (the next run would find them known).
	 */
	async take(signal?: AbortSignal): Promise<void> {
		for (;;) {
			if (signal?.aborted) throw stopped();
			const slot = this.slot();
			const lease = [leaseEntry(slot), leaseEntry(slot - 1)];
			const taker = takerEntry(randomUUID());
			const askedAt = this.clock.now();
			const recordedNew = await this.record([...lease, taker]);
			if (lease.every((entry) => recordedNew.includes(entry))) {
				const stood = await this.tookIt(taker, this.clock.now() - askedAt).catch(
					async (error: unknown) => {
						// Not known whether it stood: what it recorded would hold the store for two slots.
						await this.remove(recordedNew).catch(() => undefined);
						throw error;
					},
				);
				if (stood) {
					for (const entry of recordedNew) this.owned.add(entry);
					this.holding = true;
					this.calledAt = this.clock.now();
					if (!signal?.aborted) return;
					await this.release();
					throw stopped();
				}
			} else if (recordedNew.length > 0) {
				// Held by another run: what this ask recorded would hold the store against it, and all others.
				await this.remove(recordedNew);
			}
			if (!(await this.clock.sleep(TURN_POLL_MS, signal))) throw stopped();
		}
	}

	/**
	 * Whether this run's take stood: runs whose takes read the row before either wrote it (runs started
	 * together: n8n starts a worker's queued executions at once) all find it free, and the later write
	 * keeps only its own taker entry. Asked once every such take has landed; a run whose entry is gone
	 * takes it back (it was just recorded again) and waits its turn; the one whose entry stood waits for
	 * those take-backs before its first call. The lease entries are the same for every run: they stay.
	 */
	private async tookIt(taker: string, takeMs: number): Promise<boolean> {
		const settle = Math.max(TAKE_SETTLE_MS, 2 * takeMs);
		// Not cancellable: a take that stood must be given up, and only the check tells.
		await this.clock.sleep(settle);
		const stood = (await this.record([taker])).length === 0;
		if (!stood) await this.remove([taker]);
		else await this.clock.sleep(settle);
		return stood;
	}

	/**
	 * Gives the store up: removes the lease entries this run recorded (none after a clear). Best effort: they
	 * expire anyway.
	 */
	async release(): Promise<void> {
		this.renewal?.stop.abort();
		this.holding = false;
		const owned = [...this.owned];
		this.owned.clear();
		// After a renewal in flight: its write would bring the lease entry back.
		if (owned.length > 0)
			await this.inTurn(async () => await this.remove(owned)).catch(() => undefined);
		await this.renewal?.done;
		this.renewal = undefined;
	}

	async checkProcessedAndRecord(
		...[items, scope, options]: Parameters<ProcessedItemsStore['checkProcessedAndRecord']>
	): ReturnType<ProcessedItemsStore['checkProcessedAndRecord']> {
		if (!this.holding) return await this.store.checkProcessedAndRecord(items, scope, options);
		const lease = leaseEntry(this.slot());
		const output = await this.inTurn(
			async () =>
				await this.store.checkProcessedAndRecord([...items, lease], scope, this.withRoom(options)),
		);
		this.calledAt = this.clock.now();
		const isLease = (item: unknown) => item === lease;
		if (output.new.some(isLease)) this.owned.add(lease);
		return {
			new: output.new.filter((item) => !isLease(item)),
			processed: output.processed.filter((item) => !isLease(item)),
		};
	}

	async clearAllProcessedItems(
		...[scope, options]: Parameters<ProcessedItemsStore['clearAllProcessedItems']>
	): ReturnType<ProcessedItemsStore['clearAllProcessedItems']> {
		await this.inTurn(async () => await this.store.clearAllProcessedItems(scope, options));
		// The row is gone, and its lease entries with it: the store is given up here. The write that follows
		// records the whole row in one call, the run's last (or, if it fails, writes the row it read back),
		// so nothing is left to give up at the end: a run that writes its row makes no call to release it.
		this.holding = false;
		this.owned.clear();
	}

	/** The row's entries but the lease entries this run recorded (the memory compares counts with its own). */
	async getProcessedDataCount(
		...[scope, options]: Parameters<ProcessedItemsStore['getProcessedDataCount']>
	): ReturnType<ProcessedItemsStore['getProcessedDataCount']> {
		return (await this.store.getProcessedDataCount(scope, options)) - this.owned.size;
	}

	/** n8n's own (it reads no capacity: nothing is trimmed by a removal). */
	get removeProcessed(): ProcessedItemsStore['removeProcessed'] {
		return this.store.removeProcessed;
	}

	private slot(): number {
		return Math.floor(this.clock.now() / LEASE_MS);
	}

	/** A held run's call asks n8n for room for its lease entries beyond the memory's capacity. */
	private withRoom(options: ICheckProcessedOptions): ICheckProcessedOptions {
		return options.maxEntries === undefined
			? options
			: { ...options, maxEntries: options.maxEntries + LEASE_ROOM };
	}

	/** The options of the lease's own calls: the memory's capacity and room for the lease. */
	private leaseOptions(): ICheckProcessedOptions {
		return { mode: 'entries', maxEntries: this.maxEntries + LEASE_ROOM };
	}

	/**
	 * Records lease entries; returns those the row did not hold. n8n reads the row, then inserts it where
	 * there was none, without a transaction: two runs whose first calls meet (a watch's first runs, or a poll
	 * while the holder writes its row anew after its clear) insert it twice, and one fails on the duplicate
	 * key. Asked once more, it finds the row (as StoreRow's calls do).
	 */
	private async record(lease: string[]): Promise<string[]> {
		const ask = async () =>
			await this.store.checkProcessedAndRecord(lease, 'node', this.leaseOptions());
		const recorded = await ask().catch(ask);
		return recorded.new.map(String);
	}

	private async remove(entries: string[]): Promise<void> {
		await this.store.removeProcessed!(entries, 'node', this.leaseOptions());
	}
}

const stopped = () =>
	new Error('The execution was stopped while the run waited for its turn over the store');

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
 * How long a run that finds the store held waits before it asks again. Each ask reads and writes the whole
 * row twice (the ask, then the take-back of what it recorded): some 0.1-0.2 s of n8n's work at 100,000
 * companies, so a few a holder's run, not one a second.
 */
export const TURN_POLL_MS = 5_000;

/**
 * Lease entries a run may add to the row beyond the entries the memory asks room for (the two its take
 * records, and one a slot its run lasts): n8n trims the oldest past `maxEntries`, and a company's status
 * entry must not go to make room for them.
 */
const LEASE_ROOM = 4;

/**
 * The lease entry of one slot: two values, the second a number, so no company's entry (`[id, field, value]`),
 * the row's mark or its emptied entry reads like it.
 */
export const leaseEntry = (slot: number) => JSON.stringify(['store in use', slot]);

/**
 * Runs of one watch node take turns over its row in n8n's processed-items store: one run's asks, clear and
 * write never interleave with another's. n8n reads and rewrites the row per call without a lock, and each
 * run writes the whole row anew from what it read: two runs at once lose an alert (one records a new
 * status, the other then finds it held and reports nothing, and the first fails) or bring an older status
 * back (the later writer wins).
 *
 * The turn is a lease entry in the row itself, `["store in use", slot]` with slot = time / LEASE_MS, made
 * with n8n's store calls alone (no other lock is reachable from a node):
 *   - a run takes it by recording the current and the previous slot's entries: both new, the store is its;
 *     either held, another run holds it: it takes back what it recorded (removeProcessed) and asks again
 *     TURN_POLL_MS later;
 *   - every call the run makes carries the current slot's entry (one value more, last, so n8n's trimming
 *     keeps it): the lease renews itself at no extra call;
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
 * (findOne, then insert or update), so two runs whose asks meet within one call on the row (some 0.4 s at
 * 100,000 companies) can both take the store; a run polling while the holder writes its row anew takes
 * the store one call early where its insert comes before the holder's (the holder's write hashes every
 * value first: about 1 s at 100,000 companies); a waiter's ask that records the current slot's entry just
 * before the holder's call, and takes it back after, leaves the holder without it until its next call (a
 * poll in the next slot before that call finds the store free); runs whose clocks differ by more than a
 * slot ask slots that never meet. Each then runs as without turns, never worse.
 */
export class StoreTurn implements ProcessedItemsStore {
	/** Lease entries this run recorded into the row (not held before) since its last clear: its own. */
	private readonly owned = new Set<string>();
	/** Whether the run holds the store (between `take` and `release`). */
	private holding = false;

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
		await this.take(signal);
		try {
			return await work();
		} finally {
			await this.release();
		}
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
			const recordedNew = await this.record(lease);
			if (recordedNew.length === lease.length) {
				for (const entry of recordedNew) this.owned.add(entry);
				this.holding = true;
				return;
			}
			// Held by another run: what this ask recorded would hold the store against it, and all others.
			if (recordedNew.length > 0) await this.remove(recordedNew);
			if (!(await this.clock.sleep(TURN_POLL_MS, signal))) throw stopped();
		}
	}

	/**
	 * Gives the store up: removes the lease entries this run recorded (none after a clear). Best effort: they
	 * expire anyway.
	 */
	async release(): Promise<void> {
		this.holding = false;
		const owned = [...this.owned];
		this.owned.clear();
		if (owned.length > 0) await this.remove(owned).catch(() => undefined);
	}

	async checkProcessedAndRecord(
		...[items, scope, options]: Parameters<ProcessedItemsStore['checkProcessedAndRecord']>
	): ReturnType<ProcessedItemsStore['checkProcessedAndRecord']> {
		if (!this.holding) return await this.store.checkProcessedAndRecord(items, scope, options);
		const lease = leaseEntry(this.slot());
		const output = await this.store.checkProcessedAndRecord(
			[...items, lease],
			scope,
			this.withRoom(options),
		);
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
		await this.store.clearAllProcessedItems(scope, options);
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

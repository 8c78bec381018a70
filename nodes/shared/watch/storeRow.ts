import type { DeduplicationHelperFunctions, ICheckProcessedOptions } from 'n8n-workflow';

import type { RowMark } from './memory';

/**
 * n8n's processed-items store as the watch uses it (the deduplication helpers of n8n 2.41.1, 'entries'
 * mode; measured in harness/processedItems.ts, which follows it): one row per node holding MD5 hashes in
 * the order they came. checkProcessedAndRecord reads the row, says which values it held, appends the
 * others and writes the row back, dropping the oldest beyond `maxEntries`: linear. removeProcessed
 * searches the whole row once per value: a run that removes one value per company is quadratic (10,000
 * companies: 3 s; 100,000: minutes). clearAllProcessedItems deletes the row.
 */
export type ProcessedItemsStore = Pick<
	DeduplicationHelperFunctions,
	'checkProcessedAndRecord' | 'clearAllProcessedItems' | 'getProcessedDataCount'
> &
	Partial<Pick<DeduplicationHelperFunctions, 'removeProcessed'>>;

/**
 * The entries the memory asks n8n to keep in the row (n8n trims the oldest beyond it). Three entries a
 * registered company and a block per 10: room for 161,290 companies; beyond, the first of the list start
 * a new baseline each run.
 */
export const STORE_CAPACITY = 500_000;

/**
 * How much of the row a failed run's undo may have n8n search: values removed × the row's entries.
 * n8n's removeProcessed searches the whole row once per value (bench/watchUndo.ts, n8n 2.41.1: 10-20 ns a
 * value × entry, in one piece of synchronous work), so this bound is 0.5-1 s. A worker whose folded step
 * 1 recorded the questions of a quarter of 100,000 companies would remove some 30,000 values from a row
 * of 330,000: about 150 s, long past Bull's job lock (30 s). Past it the row is cleared instead (see
 * StoreRow).
 */
const UNDO_MAX_SEARCHED_ENTRIES = 50_000_000;

/**
 * The entry that marks a row written by a run that saved static data (processedItemsMemory.ts says
 * why); no company id has no `/`. It holds the whole mark: a mark whose count or list was edited by hand
 * (or another version's) is then not in the row, and proves nothing.
 */
export const rowEntry = (mark: RowMark) =>
	JSON.stringify(['row written', mark.token, mark.entries, mark.notAsSaved]);
/**
 * The one entry a failed run leaves where its undo cleared the row (UNDO_MAX_SEARCHED_ENTRIES) and the row
 * held its static data's mark: no other run wrote the row since the one that saved that static data, and
 * this one reported nothing, so the static data is still the memory of the emptied row. It names the
 * patches too: static data saved before a patch (a backup) shares the token, not the memory.
 */
export const rowEmptiedEntry = (mark: RowMark) =>
	JSON.stringify(
		mark.patches ? ['row emptied', mark.token, mark.patches.count] : ['row emptied', mark.token],
	);

/**
 * The node's row in the store, call by call, for one run; and the undo of a run that fails.
 *
 * A run that fails leaves the store as the last successful run left it, as far as it can: steps 1 and 2
 * record entries as they ask, so a failure before step 3 removes the few this run newly recorded (else the
 * next run would take them as known, and never report the change); where n8n would search the row too
 * long for that (it searches it once per value: a worker's folded step 1 can record 30,000), the row is
 * cleared instead (UNDO_MAX_SEARCHED_ENTRIES: a worker starts a new baseline; a main process whose row held
 * its static data's mark leaves one entry saying so, and falls back to the static data, which keeps the
 * changes); a failure after the clear writes back the entries recall learned. What a process crash between
 * the calls can still cost: a crash after step 1 leaves its new entries, and the changes of that run are
 * lost for good (and the mark it asked, if the row did not hold it: a later run with that static data then
 * trusts a row another run wrote, takes a company back to what the static data says as unchanged, and a
 * changed one's previous snapshot from the older static data; a known gap, rowMark.redteam.test.ts); a
 * crash between the clear and the write (or a write and its write-back both failing) leaves an empty row:
 * every company starts a new baseline (changes meanwhile lost, none false), on a main process too
 * (processedItemsMemory.ts, "a row found empty").
 */
export class StoreRow {
	/** The options of every store call: the entries mode, and the capacity n8n trims the row to. */
	private readonly options: ICheckProcessedOptions & { maxEntries: number };
	/** Entries this run recorded that the store did not hold: removed again if the run fails before step 3. */
	private recordedNew: string[] = [];
	/**
	 * The entries the row holds, as far as this run can tell: three a company named (a status alone where
	 * not registered), a block per 10, three a company not named. What an undo would search (a row holding
	 * companies no longer named is longer, up to the store's capacity).
	 */
	private length = 0;
	/** The static data's mark, where the row held it at step 1 (no other run wrote it since the one that saved it). */
	private heldMark: RowMark | undefined;

	constructor(
		private readonly store: ProcessedItemsStore,
		maxEntries: number,
	) {
		this.options = { mode: 'entries', maxEntries };
	}

	/** The entries n8n keeps in the row (it trims the oldest beyond). */
	get capacity(): number {
		return this.options.maxEntries;
	}

	/** A run starts: nothing recorded yet, no mark found; `length` as above. */
	start(length: number): void {
		this.recordedNew = [];
		this.heldMark = undefined;
		this.length = length;
	}

	/** Step 1 found the row holding the static data's mark. */
	markHeld(mark: RowMark): void {
		this.heldMark = mark;
	}

	/**
	 * Records entries and returns those the store did not hold before (the few, in a run where little
	 * changed); the run's undo removes them again. A call that fails undoes the run's entries first.
	 */
	async ask(entries: string[]): Promise<Set<string>> {
		const recordedNew = await this.record(entries).catch(async (error: unknown) => {
			await this.undoRecorded();
			throw error;
		});
		// One by one: spread into push, hundreds of thousands of entries overflow the call stack.
		for (const entry of recordedNew) this.recordedNew.push(entry);
		return recordedNew;
	}

	/** How many entries the row holds (n8n reads the whole row). A call that fails undoes the run's entries first. */
	async count(): Promise<number> {
		return await this.call(
			async () => await this.store.getProcessedDataCount('node', this.options),
		).catch(async (error: unknown) => {
			await this.undoRecorded();
			throw error;
		});
	}

	/** Clears the row (step 3, before the write). A call that fails undoes the run's entries first. */
	async clear(): Promise<void> {
		await this.call(
			async () => await this.store.clearAllProcessedItems('node', this.options),
		).catch(async (error: unknown) => {
			await this.undoRecorded();
			throw error;
		});
	}

	/** Records entries into an empty row: what the store answers is all of them, and not looked at. */
	async write(entries: string[]): Promise<void> {
		if (entries.length === 0) return;
		await this.call(
			async () => await this.store.checkProcessedAndRecord(entries, 'node', this.options),
		);
	}

	/**
	 * Removes the entries this run recorded that the store did not hold (few: those of changed companies).
	 * Where n8n would search the row too long for them (UNDO_MAX_SEARCHED_ENTRIES), clears it instead: a
	 * worker then starts a new baseline (this run's changes lost, none false); a main process whose row held
	 * its static data's mark writes the emptied entry, and falls back to its static data (which this run did
	 * not save: its changes are reported next run), else starts a new baseline. Best effort: the run fails
	 * with its own error either way.
	 */
	private async undoRecorded(): Promise<void> {
		const values = this.recordedNew.length;
		if (values === 0) return;
		const row = Math.min(this.length + values, this.options.maxEntries);
		if (values * row > UNDO_MAX_SEARCHED_ENTRIES) {
			// The row held the mark at step 1; asked again, as another run (a worker) may have written it
			// since. Every write clears first: a mark still held means no run wrote the row since.
			const mark = this.heldMark;
			const stillMarked =
				mark !== undefined &&
				(await this.record([rowEntry(mark)]).then(
					(recordedNew) => recordedNew.size === 0,
					() => false,
				));
			const cleared = await this.call(
				async () => await this.store.clearAllProcessedItems('node', this.options),
			).then(
				() => true,
				() => false,
			);
			// The static data is then still the memory (rowEmptiedEntry).
			if (cleared && stillMarked) await this.write([rowEmptiedEntry(mark)]).catch(() => undefined);
			return;
		}
		const { removeProcessed } = this.store;
		if (!removeProcessed) return;
		await this.call(
			async () => await removeProcessed(this.recordedNew, 'node', this.options),
		).catch(() => undefined);
	}

	/** Records entries; returns those the store did not hold before. */
	private async record(entries: string[]): Promise<Set<string>> {
		if (entries.length === 0) return new Set();
		const output = await this.call(
			async () => await this.store.checkProcessedAndRecord(entries, 'node', this.options),
		);
		return new Set(output.new.map(String));
	}

	/**
	 * n8n reads and rewrites the store's row per call: two runs whose first calls meet at the same moment
	 * insert it twice, and one fails. That call is made once more, and then finds the row.
	 */
	private async call<T>(call: () => Promise<T>): Promise<T> {
		return await call().catch(call);
	}
}

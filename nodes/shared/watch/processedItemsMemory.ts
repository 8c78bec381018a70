import type { DeduplicationHelperFunctions, ICheckProcessedOptions } from 'n8n-workflow';

import type { Recollection, StaticDataMemory, WatchMemory } from './memory';
import type { CompanySnapshot, PreviousSnapshot } from './snapshot';

/**
 * The watch's memory in n8n's processed-items store (the deduplication helpers, kept in n8n's database).
 * Why: a queue-mode worker of n8n 2.41.1 starts every execution without the saved static data, and
 * overlapping runs overwrite each other's static data (last writer wins).
 *
 * What n8n 2.41.1 offers ('entries' mode; measured in harness/processedItems.ts, which follows it): one
 * row per node holding MD5 hashes in the order they came. checkProcessedAndRecord reads the row, says
 * which values it held, appends the others and writes the row back, dropping the oldest beyond
 * `maxEntries`: linear. removeProcessed searches the whole row once per value: a run that removes one
 * value per company is quadratic (10,000 companies: 3 s; 100,000: minutes). clearAllProcessedItems
 * deletes the row. So a run reads once, compares, and writes the memory anew:
 *   1. records each company's full entry (status, name and address in one): those it held are unchanged;
 *   2. for the few that are not, asks for each status, the current name and address (and the static
 *      data's, where n8n loaded it): which status it had, and which of the details changed;
 *   3. clears the row and records the current entries, company by company.
 * A company's entries go in one order, full entry first and status entry second: n8n drops the oldest
 * first, so a company whose status entry survived kept its name and address entries too. One whose
 * status entry was dropped is unknown: a new baseline, never a false change.
 *
 * A run that fails leaves the store as the last successful run left it, as far as it can: steps 1 and 2
 * record entries as they ask, so a failure before step 3 removes the few this run newly recorded (else the
 * next run would take them as known, and never report the change); a failure after the clear writes back
 * the entries recall learned. What a process crash between the calls can still cost: a crash after step 1
 * leaves its new entries, and the changes of that run are lost for good; a crash between the clear and the
 * write leaves an empty row: a main process falls back to the static data (written only after the store),
 * a queue-mode worker starts a new baseline (changes meanwhile lost, none false).
 */
export type ProcessedItemsStore = Pick<
	DeduplicationHelperFunctions,
	'checkProcessedAndRecord' | 'clearAllProcessedItems' | 'getProcessedDataCount'
> &
	Partial<Pick<DeduplicationHelperFunctions, 'removeProcessed'>>;

/** Four entries a registered company: room for 125,000 companies; beyond, the first of the list start a new baseline each run. */
const STORE_OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: 500_000 };

const STATUSES: ReadonlyArray<CompanySnapshot['s']> = ['A', 'I', 'N'];

/**
 * One entry: JSON, so that no company id, name or address can pose as another entry (the forms of earlier
 * versions). Put together from the JSON of each part (the same text as JSON.stringify of the array), so
 * that a company's four entries turn its id, name and address into JSON once.
 */
const json = (value: string | undefined) => JSON.stringify(value ?? null);
const statusEntry = (id: string, status: CompanySnapshot['s'], idJson = json(id)) =>
	`[${idJson},"status","${status}"]`;
const nameEntry = (
	id: string,
	name: string | undefined,
	idJson = json(id),
	nameJson = json(name),
) => `[${idJson},"name",${nameJson}]`;
const addressEntry = (
	id: string,
	address: string | undefined,
	idJson = json(id),
	addressJson = json(address),
) => `[${idJson},"address",${addressJson}]`;
/** Said of a company that could not be checked where only its status was known: its name and address are not. */
const detailsUnknownEntry = (id: string) => `[${json(id)},"details","unknown"]`;

function fullEntry(
	id: string,
	snapshot: Omit<CompanySnapshot, 'd'>,
	parts?: { idJson: string; nameJson: string; addressJson: string },
): string {
	// Not registered: the status says all.
	if (snapshot.s === 'N') return statusEntry(id, 'N', parts?.idJson);
	// Alone (one entry a company), one JSON.stringify of the array is quicker than three of its parts.
	if (!parts)
		return JSON.stringify([id, 'company', snapshot.s, snapshot.n ?? null, snapshot.a ?? null]);
	return `[${parts.idJson},"company","${snapshot.s}",${parts.nameJson},${parts.addressJson}]`;
}

/**
 * Appends a company's entries, in the order that keeps them safe from n8n's trimming (see above); returns
 * its full entry.
 */
function pushEntriesOf(
	entries: string[],
	id: string,
	snapshot: Omit<CompanySnapshot, 'd'>,
): string {
	const idJson = json(id);
	if (snapshot.s === 'N') {
		const full = statusEntry(id, 'N', idJson);
		entries.push(full);
		return full;
	}
	const [nameJson, addressJson] = [json(snapshot.n), json(snapshot.a)];
	const full = fullEntry(id, snapshot, { idJson, nameJson, addressJson });
	entries.push(
		full,
		statusEntry(id, snapshot.s, idJson),
		nameEntry(id, snapshot.n, idJson, nameJson),
		addressEntry(id, snapshot.a, idJson, addressJson),
	);
	return full;
}

function entriesOf(id: string, snapshot: Omit<CompanySnapshot, 'd'>): string[] {
	const entries: string[] = [];
	pushEntriesOf(entries, id, snapshot);
	return entries;
}

export class ProcessedItemsMemory implements WatchMemory {
	/** What `remember` writes for companies this run could not check (or did not name): their previous entries. */
	private carried: string[] = [];
	/** What step 3 writes for the companies named now, made once a run (in recall). */
	private currentEntries: string[] = [];
	/** Entries this run recorded that the store did not hold: removed again if the run fails before step 3. */
	private recordedNew: string[] = [];
	/**
	 * The last successful run's entries of the companies found changed, as far as recall learned them: with
	 * the unchanged companies' entries (the same as this run's), written back if step 3 fails after the clear.
	 */
	private previousOfChanged = new Map<string, string[]>();
	/** The companies step 1 found changed (or all, in a new store). */
	private changed = new Set<string>();
	/** Whether the store's row already holds exactly what step 3 would write (nothing changed, nothing to drop). */
	private rowIsCurrent = false;
	/** How many entries the store held before this run. */
	private heldBefore = 0;

	/** `notebook`: the static data, where n8n loaded it; it adds old names, addresses and days the store cannot give. */
	constructor(
		private readonly store: ProcessedItemsStore,
		private readonly notebook?: StaticDataMemory,
	) {}

	async recall(
		current: ReadonlyMap<string, CompanySnapshot>,
		unchecked: readonly string[],
	): Promise<ReadonlyMap<string, Recollection>> {
		const saved = (id: string) => this.notebook?.saved(id);
		// A store with no entries at all: a first run, or a watch saved by an earlier version (static data
		// only). Then nothing is asked of it, and only the static data can be the memory.
		this.heldBefore = await this.call(
			async () => await this.store.getProcessedDataCount('node', STORE_OPTIONS),
		);
		const storeIsNew = this.heldBefore === 0;
		const absent = [...new Set([...unchecked, ...(this.notebook?.kept(current) ?? [])])].filter(
			(id) => !current.has(id),
		);

		// 1. The full entries: one per company named now, and the static data's for those not checked.
		this.currentEntries = [];
		const ids: string[] = [];
		const fullEntries: string[] = [];
		for (const [id, snapshot] of current) {
			ids.push(id);
			fullEntries.push(pushEntriesOf(this.currentEntries, id, snapshot));
		}
		const notebookEntries = absent.flatMap((id) => {
			const snapshot = saved(id);
			return snapshot ? [fullEntry(id, snapshot)] : [];
		});
		// Most companies are unchanged: the few new entries are what a run has to look at.
		// A new store holds nothing: asking it would only add entries step 3 clears again.
		this.recordedNew = [];
		this.previousOfChanged = new Map();
		const firstNew = storeIsNew
			? undefined
			: await this.record(fullEntries.concat(notebookEntries));
		if (firstNew) this.recordedNew = [...firstNew];
		const changed = firstNew ? ids.filter((_id, index) => firstNew.has(fullEntries[index])) : ids;
		const carriedWhole = firstNew
			? absent.filter((id) => {
					const snapshot = saved(id);
					return snapshot !== undefined && !firstNew.has(fullEntry(id, snapshot));
				})
			: [];
		const carriedWholeSet = new Set(carriedWhole);
		const statusOnly = absent.filter((id) => !carriedWholeSet.has(id));

		// 2. For the rest: each status, and the names and addresses that may have been.
		const questions = storeIsNew
			? []
			: [
					...changed.flatMap((id) => {
						const now = current.get(id)!;
						const before = saved(id);
						return [
							// A company not registered now asked for its status entry in step 1 already (and recorded it).
							...STATUSES.filter((status) => status !== 'N' || now.s !== 'N').map((status) =>
								statusEntry(id, status),
							),
							nameEntry(id, now.n),
							addressEntry(id, now.a),
							detailsUnknownEntry(id),
							...(before ? [nameEntry(id, before.n), addressEntry(id, before.a)] : []),
						];
					}),
					...statusOnly.flatMap((id) => [
						...STATUSES.map((status) => statusEntry(id, status)),
						detailsUnknownEntry(id),
					]),
				];
		const secondNew = await this.record(questions).catch(async (error: unknown) => {
			await this.undoRecorded();
			throw error;
		});
		// One by one: spread into push, hundreds of thousands of entries overflow the call stack.
		for (const entry of secondNew) this.recordedNew.push(entry);
		// Every entry step 3 would write was held (unchanged companies hold their four: the full entry is
		// written first, so n8n's trimming never leaves it without the others), and the row holds no more.
		this.rowIsCurrent = !storeIsNew && firstNew?.size === 0 && secondNew.size === 0;
		// Only entries asked in step 2 are looked up here.
		const answers = { has: (entry: string) => !storeIsNew && !secondNew.has(entry) };
		/** `now`: the status a changed company has now, whose entry step 1 found missing (and did not ask again). */
		const statusOf = (id: string, now?: CompanySnapshot['s']) => {
			const held = STATUSES.filter((status) =>
				status === 'N' && now === 'N' ? false : answers.has(statusEntry(id, status)),
			);
			// None: unknown. More than one: entries of a run that stopped half-way; not to be trusted.
			return held.length === 1 ? held[0] : undefined;
		};
		const changedSet = new Set(changed);
		this.changed = changedSet;

		const known = new Map<string, Recollection>();
		for (const [id, now] of current) {
			if (!changedSet.has(id)) {
				// Unchanged: compared with itself (a change is never shown against it).
				known.set(id, { previous: now });
				continue;
			}
			const before = saved(id);
			const status = storeIsNew ? undefined : statusOf(id, now.s);
			if (status === undefined) {
				// Unknown to the store. Only where the store has never held anything is the static data the memory.
				if (storeIsNew && before) known.set(id, { previous: before });
				continue;
			}
			const detailsUnknown = answers.has(detailsUnknownEntry(id));
			const nameChanged = !detailsUnknown && status !== 'N' && !answers.has(nameEntry(id, now.n));
			const addressChanged =
				!detailsUnknown && status !== 'N' && !answers.has(addressEntry(id, now.a));
			// The static data's old value where the store confirms it was the last one.
			const old = <F extends 'n' | 'a'>(
				field: F,
				entry: (id: string, value: string | undefined) => string,
			) => (before && answers.has(entry(id, before[field])) ? before[field] : undefined);
			const previous: PreviousSnapshot = {
				s: status,
				n: nameChanged ? old('n', nameEntry) : now.n,
				a: addressChanged ? old('a', addressEntry) : now.a,
				...(before ? { d: before.d } : {}),
			};
			known.set(id, {
				previous,
				detailsChanged: { officialName: nameChanged, registeredAddress: addressChanged },
			});
			const oldName = nameChanged ? old('n', nameEntry) : now.n;
			const oldAddress = addressChanged ? old('a', addressEntry) : now.a;
			const detailsKnown =
				!detailsUnknown &&
				(!nameChanged || oldName !== undefined) &&
				(!addressChanged || oldAddress !== undefined);
			this.previousOfChanged.set(
				id,
				status === 'N'
					? [statusEntry(id, 'N')]
					: detailsKnown
						? entriesOf(id, { s: status, n: oldName, a: oldAddress })
						: [statusEntry(id, status), detailsUnknownEntry(id)],
			);
		}

		this.carried = [
			...carriedWhole.flatMap((id) => entriesOf(id, saved(id)!)),
			...statusOnly.flatMap((id) => {
				const status = statusOf(id);
				if (status === undefined) return [];
				return status === 'N'
					? [statusEntry(id, 'N')]
					: [statusEntry(id, status), detailsUnknownEntry(id)];
			}),
		];
		return known;
	}

	async remember(
		current: ReadonlyMap<string, CompanySnapshot>,
		unchecked: readonly string[],
	): Promise<void> {
		// `current` is what recall was given: its entries were made there.
		const entries = this.carried.concat(this.currentEntries);
		// Nothing changed and nothing is to be dropped: the row stays as it is (a quiet run writes nothing).
		if (!this.rowIsCurrent || entries.length !== this.heldBefore) {
			// 3. Written anew: entries of companies no longer named, and old values, go with the old row.
			await this.call(
				async () => await this.store.clearAllProcessedItems('node', STORE_OPTIONS),
			).catch(async (error: unknown) => {
				await this.undoRecorded();
				throw error;
			});
			await this.record(entries).catch(async (error: unknown) => {
				// The row is gone: the last run's entries, as recall learned them, are written back.
				await this.record(this.previousEntries(current)).catch(() => undefined);
				throw error;
			});
		}
		// The notebook changes only once the store has answered.
		await this.notebook?.remember(current, unchecked);
	}

	/** The last run's entries as recall learned them: the unchanged companies' are this run's. */
	private previousEntries(current: ReadonlyMap<string, CompanySnapshot>): string[] {
		const entries = [...this.carried];
		for (const [id, snapshot] of current) {
			const previous = this.previousOfChanged.get(id);
			if (previous) entries.push(...previous);
			else if (!this.changed.has(id)) pushEntriesOf(entries, id, snapshot);
		}
		return entries;
	}

	/**
	 * Removes the entries this run recorded that the store did not hold (few: those of changed companies).
	 * Best effort: the run fails with its own error either way.
	 */
	private async undoRecorded(): Promise<void> {
		const { removeProcessed } = this.store;
		if (this.recordedNew.length === 0 || !removeProcessed) return;
		await this.call(
			async () => await removeProcessed(this.recordedNew, 'node', STORE_OPTIONS),
		).catch(() => undefined);
	}

	/** Records entries; returns those the store did not hold before (the few, in a run where little changed). */
	private async record(entries: string[]): Promise<Set<string>> {
		if (entries.length === 0) return new Set();
		const output = await this.call(
			async () => await this.store.checkProcessedAndRecord(entries, 'node', STORE_OPTIONS),
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

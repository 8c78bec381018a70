import { randomUUID } from 'node:crypto';

import type { DeduplicationHelperFunctions, ICheckProcessedOptions } from 'n8n-workflow';

import type { Recollection, Recollections, RowMark, StaticDataMemory, WatchMemory } from './memory';
import {
	canonicalText,
	caseFolded,
	sameText,
	type CompanySnapshot,
	type PreviousSnapshot,
} from './snapshot';

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
 * deletes the row. So a run reads once, compares, and writes the memory anew, three entries a registered
 * company (its status, its name, its address; one not registered: its status), and a block entry per 10
 * companies (their entries in one text, before them):
 *   1. records each block entry, then the three entries of each company whose block the store did not
 *      hold: those it held all are unchanged, and of the others it says which of status, name and
 *      address changed (a block held: its companies are unchanged);
 *   2. for the few that are not, asks the statuses it may have had, and whether only its status was known
 *      (and the static data's name and address, where n8n loaded it and they are not the current ones);
 *   3. clears the row and records the current entries, company by company.
 * A company's entries go in one order, status first: n8n drops the oldest first, so a company whose
 * status entry survived kept its name and address entries too, and a block that survived kept its
 * companies' entries. A block is written only with its companies' entries, and every run that finds a
 * change (or records anything new) writes the row anew: a block the row holds is the companies' last
 * state, never an older one. Why blocks: a worker has no static data, and asking three values a company
 * was 300,000 hashes a run at 100,000 companies; with 1% of them changed about one block in ten is not
 * held, so it asks 10,000 blocks and some 30,000 entries (a run that writes: 310,000 values, not 300,000).
 * A worker asks its blocks before it counts the row (a count reads the whole row): a run that finds some
 * held and others not writes the row anew and needs no count; one that finds none held counts, to tell an
 * empty row (a first run: nothing more is asked) from one that holds others; one that finds all held
 * counts at the end if it is still quiet (the row may hold more than it would write). Its block texts are
 * made from the snapshots: a quiet run makes no entries. One whose status entry was dropped is
 * unknown: a new baseline, never a false change. Step 2 asks the status again where step 1 found it: n8n
 * may have trimmed it since (step 1 records too), and with it what step 2 would find.
 * Why three, not fewer: a worker must tell which of status, name and address changed, and know the
 * company when name and address changed together; two entries ([id, status, name], [id, status,
 * address]) would then know neither the company nor its status (a lost alert), and a status entry with
 * one fingerprint of the rest could not tell the name from the address. The earlier version wrote a
 * whole-record entry before these three (a quicker step 1 for a worker, 400,000 entries at 100,000
 * companies instead of 300,000): a row it wrote holds every entry asked here, so an upgrade loses nothing
 * (its blocks are not held: every company is asked, as before, and the row written anew with blocks).
 *
 * What each value costs (n8n 2.41.1, measured in bench/watch.ts): an MD5 hash each (about 3 µs), and each
 * call the whole row (parsed, a Set of it built, written back). So a run passes few values in few calls.
 * The row's mark: a run on a main process writes the row with a random token last (`["row written",
 * token, entries, notAsSaved]`, kept longest by the trimming) and saves that mark in the static data with
 * the companies. A later run whose static data holds that mark, and whose row still holds it, knows the
 * row is exactly that run's: no other run wrote it since (every write clears the row first, so the
 * token goes), and
 * the row holds each company's entries as the static data's snapshot says (except `notAsSaved`:
 * those not named then, whose entries were a status at most). Such a run asks in step 1 only the mark
 * and the companies whose record differs from the static data (what the row would answer for the
 * others is known: held), and takes the previous snapshot of those from the static data instead of
 * step 2. The row it writes is as complete as ever: a worker reading it afterwards knows all it knew
 * before (the seal tried earlier wrote fewer entries, and a worker then missed name and address changes).
 * Where the mark is missing (a worker wrote the row since, a run's static data was lost, the row was
 * emptied), the rest of step 1 is asked: the run then costs what it did without the mark (and, where the
 * row held none of it, a count tells an emptied row from one that holds others). The changed companies'
 * entries are still recorded in step 1, so of two overlapping runs only one reports a change, as
 * before. A row too long for the store's capacity gets no mark (n8n would trim what the mark vouches for).
 *
 * Names and addresses are written in their canonical form, case-folded (snapshot.ts: the same text in
 * another form or another letter case is no change, as `sameText` compares); the version before wrote the
 * canonical form with its case, earlier ones the text as it came. Step 2 asks a name or address that step 1
 * found not held in those forms too, where they differ: held, so is the field, and a company whose registry
 * keeps sending one text reports nothing on the first run after the upgrade (its row is then written anew;
 * a worker's blocks are not held then, so it asks every company once). Left: a worker's first run after the
 * upgrade on a registry that changed only the letter case that day reports a detailsChanged (the row
 * holds the old case, which it cannot ask).
 *
 * A run that fails leaves the store as the last successful run left it, as far as it can: steps 1 and 2
 * record entries as they ask, so a failure before step 3 removes the few this run newly recorded (else the
 * next run would take them as known, and never report the change); where n8n would search the row too
 * long for that (it searches it once per value: a worker's folded step 1 can record 30,000), the row is
 * cleared instead (UNDO_MAX_SEARCHED_ENTRIES: a worker starts a new baseline; a main process whose row held
 * its static data's mark leaves one entry saying so, and falls back to the static data, which keeps the
 * changes); a failure after the clear writes back the entries recall learned. What a process crash between the calls can still cost: a crash after step 1
 * leaves its new entries, and the changes of that run are lost for good (and the mark it asked, if the row
 * did not hold it: a later run with that static data then trusts a row another run wrote, takes a company
 * back to what the static data says as unchanged, and a changed one's previous snapshot from the older
 * static data; a known gap, rowMark.redteam.test.ts); a crash between the clear and the
 * write (or a write and its write-back both failing) leaves an empty row: every company starts a new
 * baseline (changes meanwhile lost, none false), on a main process too. Its static data is the memory of an
 * empty row only where no run with the store saved it (a first run, a watch kept in static data alone by
 * an earlier version) or the row says a failed run emptied it as marked: else a worker, or a run whose save
 * was lost, may have reported from the row before it was emptied, and the static data would report those
 * changes again (found with the memory's own capacity: a worker whose write failed after its clear on a
 * trimmed row had nothing to write back).
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

const STATUSES: ReadonlyArray<CompanySnapshot['s']> = ['A', 'I', 'N'];

/**
 * One entry: `[id, field, value]` as JSON, so that no company id, name or address can pose as another
 * entry. The forms earlier versions wrote too (after a whole-record entry, `[id,"company",...]`, no
 * longer written): a row they wrote holds every entry asked here. Made by hand, as JSON.stringify would:
 * it cost about a fifth of the package's time in a run at 100,000 companies. Joined, not templates: a template
 * makes a rope of pieces, which n8n's hashing copies flat again (twice the memory, kept until n8n answers).
 */
function pushEntry(parts: string[], id: string, field: string, value: string | undefined): void {
	parts.push('[');
	pushJson(parts, id);
	parts.push(',"', field, '",');
	pushJson(parts, value);
	parts.push(']');
}

/**
 * What JSON.stringify may escape in a text: all but these ranges (controls, `"`, `\`; lone surrogates, so
 * any surrogate goes to it).
 */
const ESCAPED = /[^\u0020\u0021\u0023-\u005b\u005d-\ud7ff\ue000-\uffff]/;

/** A text's JSON (a missing one: null); most need no escaping. */
function pushJson(parts: string[], value: string | undefined): void {
	if (value === undefined) parts.push('null');
	else if (ESCAPED.test(value)) parts.push(JSON.stringify(value));
	else parts.push('"', value, '"');
}

function entry(id: string, field: string, value: string | undefined): string {
	const parts: string[] = [];
	pushEntry(parts, id, field, value);
	return parts.join('');
}
const statusEntry = (id: string, status: CompanySnapshot['s']) => entry(id, 'status', status);
/** Whether two snapshots say the same of a company (its last check's day aside), in the canonical form. */
const sameSnapshot = (before: Omit<CompanySnapshot, 'd'>, after: Omit<CompanySnapshot, 'd'>) =>
	before.s === after.s && sameText(before.n, after.n) && sameText(before.a, after.a);

type TextField = 'name' | 'address';
/**
 * A name or address in the form this version writes: canonical and case-folded, the form `sameText`
 * compares (snapshot.ts says why): a registry that changes only the letter case changes no entry.
 */
const foldedOf = (text: string | undefined) => (text === undefined ? undefined : caseFolded(text));
const nameEntry = (id: string, name: string | undefined) => entry(id, 'name', foldedOf(name));
const addressEntry = (id: string, address: string | undefined) =>
	entry(id, 'address', foldedOf(address));
/**
 * The entries earlier versions wrote of a name or address, where they are not this version's: the
 * canonical form with its letter case (the version before), and the text as it came (the ones before
 * it). A row they wrote holds one of them, and a company whose registry sends that text is unchanged.
 */
function earlierEntries(id: string, field: TextField, text: string | undefined): string[] {
	if (text === undefined) return [];
	const folded = caseFolded(text);
	const entries: string[] = [];
	// This version's form is asked apart: asked again here, step 2 would find it held (step 1 recorded it).
	for (const form of new Set([canonicalText(text), text]))
		if (form !== folded) entries.push(entry(id, field, form));
	return entries;
}
/** Said of a company that could not be checked where only its status was known: its name and address are not. */
const detailsUnknownEntry = (id: string) => entry(id, 'details', 'unknown');

/** Where entries are appended: a list, or the row step 3 writes (RowEntries). */
interface Entries {
	push(entry: string): void;
}

/**
 * The row step 3 writes, made at its size (known before: three entries a registered company, one not, a
 * block per 10) and filled by place. Grown by push, 300,000 entries leave some 6 MB of copies of the list
 * a run (each larger than V8's regular objects, so straight into the old space the peak is made of).
 */
class RowEntries implements Entries {
	readonly values: string[];
	private filled = 0;

	constructor(size: number) {
		this.values = new Array<string>(size);
	}

	push(entry: string): void {
		this.values[this.filled] = entry;
		this.filled += 1;
	}
}

/**
 * Appends a company's entries, the status first: n8n drops the oldest first, so a company whose status
 * entry survived kept its name and address entries too.
 */
function pushEntriesOf(entries: Entries, id: string, snapshot: Omit<CompanySnapshot, 'd'>): void {
	entries.push(statusEntry(id, snapshot.s));
	// Not registered: the status says all.
	if (snapshot.s === 'N') return;
	entries.push(nameEntry(id, snapshot.n));
	entries.push(addressEntry(id, snapshot.a));
}

/** How many entries `pushEntriesOf` makes for these companies. */
function entriesCount(companies: ReadonlyMap<string, CompanySnapshot>): number {
	let count = 0;
	for (const snapshot of companies.values()) count += snapshot.s === 'N' ? 1 : 3;
	return count;
}

/**
 * Companies a block entry stands for: a worker asks one value per 10 companies, and asks the entries of
 * only the 10 whose block the row does not hold (with 1% of the companies changed, about 1 block in 10).
 */
const BLOCK_SIZE = 10;

/**
 * The share of the companies named that a worker may ask in step 1 and still ask step 2's questions in
 * the same call: each company asked adds three values (an MD5 hash each, about 3.5 µs), and a call of its
 * own costs reading, a Set of and writing the whole row (about 1.2 µs an entry, three entries a company),
 * so folding pays below about a third; a quarter leaves room, and bounds what a failed run removes again
 * (n8n's removeProcessed searches the row once per value). With 1% of the companies changed about one
 * block in ten is not held.
 */
const FOLDED_QUESTIONS_MAX_SHARE = 0.25;

/**
 * How much of the row a failed run's undo may have n8n search: values removed × the row's entries.
 * n8n's removeProcessed searches the whole row once per value (bench/watchUndo.ts, n8n 2.41.1: 10-20 ns a
 * value × entry, in one piece of synchronous work), so this bound is 0.5-1 s. A worker whose folded step
 * 1 recorded the questions of a quarter of 100,000 companies would remove some 30,000 values from a row
 * of 330,000: about 150 s, long past Bull's job lock (30 s). Past it the row is cleared instead (see
 * ProcessedItemsMemory).
 */
const UNDO_MAX_SEARCHED_ENTRIES = 50_000_000;

/**
 * The blocks of the companies named now: per block its entry, its companies, and where their entries lie
 * in it (step 3 writes each block before them; the entries are cut out of the block, not made again).
 */
interface Blocks {
	texts: string[];
	members: string[][];
	bounds: number[][];
}

/**
 * The pieces of a company's entries as a block holds them: made from its snapshot, not from its entries (a
 * quiet worker's run makes the blocks alone, not 300,000 entries at 100,000 companies). `bounds` gets
 * where each entry starts and ends among the pieces.
 */
function pushEntriesText(
	parts: string[],
	bounds: number[],
	id: string,
	snapshot: Omit<CompanySnapshot, 'd'>,
): void {
	pushBoundedEntry(parts, bounds, id, 'status', snapshot.s);
	if (snapshot.s === 'N') return;
	parts.push(',');
	pushBoundedEntry(parts, bounds, id, 'name', foldedOf(snapshot.n));
	parts.push(',');
	pushBoundedEntry(parts, bounds, id, 'address', foldedOf(snapshot.a));
}

function pushBoundedEntry(
	parts: string[],
	bounds: number[],
	id: string,
	field: string,
	value: string | undefined,
): void {
	bounds.push(parts.length);
	pushEntry(parts, id, field, value);
	bounds.push(parts.length);
}

/** Turns `bounds`, places among `parts`, into places in their joined text. */
function boundsInText(parts: readonly string[], bounds: number[]): void {
	let [part, at] = [0, 0];
	for (const [index, bound] of bounds.entries()) {
		for (; part < bound; part++) at += parts[part].length;
		bounds[index] = at;
	}
}

/** Appends the entries lying in `text` at `bounds`: slices, which V8 makes without copying the text. */
function cutEntries(entries: Entries, text: string, bounds: readonly number[]): void {
	for (let at = 0; at < bounds.length; at += 2)
		entries.push(text.slice(bounds[at], bounds[at + 1]));
}

/**
 * A block entry is its companies' entries in one JSON array, and comes before them: a block the row
 * holds says its companies' entries were written with it, and n8n, dropping the oldest first, kept them.
 */
function blocksOf(companies: ReadonlyMap<string, CompanySnapshot>): Blocks {
	const blocks: Blocks = { texts: [], members: [], bounds: [] };
	let ids: string[] = [];
	let bounds: number[] = [];
	// One join a block: texts grown piece by piece are ropes, flattened again when hashed.
	let parts: string[] = ['["companies",'];
	const close = () => {
		parts.push(']');
		blocks.texts.push(parts.join(''));
		blocks.members.push(ids);
		boundsInText(parts, bounds);
		blocks.bounds.push(bounds);
		[ids, parts, bounds] = [[], ['["companies",'], []];
	};
	for (const [id, snapshot] of companies) {
		if (ids.length > 0) parts.push(',');
		ids.push(id);
		pushEntriesText(parts, bounds, id, snapshot);
		if (ids.length === BLOCK_SIZE) close();
	}
	if (ids.length > 0) close();
	return blocks;
}

/** Appends the row step 3 writes for the companies named now: per block its entry, then its companies' entries. */
function pushRowOf(entries: Entries, blocks: Blocks): void {
	for (const [index, text] of blocks.texts.entries()) {
		entries.push(text);
		cutEntries(entries, text, blocks.bounds[index]);
	}
}

/**
 * The entry that marks a row written by a run that saved static data (see above); no company id has no `/`.
 * It holds the whole mark: a mark whose count or list was edited by hand (or another version's) is then
 * not in the row, and proves nothing.
 */
const rowEntry = (mark: RowMark) =>
	JSON.stringify(['row written', mark.token, mark.entries, mark.notAsSaved]);
/**
 * The one entry a failed run leaves where its undo cleared the row (UNDO_MAX_SEARCHED_ENTRIES) and the row
 * held its static data's mark: no other run wrote the row since the one that saved that static data, and
 * this one reported nothing, so the static data is still the memory of the emptied row.
 */
const rowEmptiedEntry = (mark: RowMark) => JSON.stringify(['row emptied', mark.token]);

function entriesOf(id: string, snapshot: Omit<CompanySnapshot, 'd'>): string[] {
	const entries: string[] = [];
	pushEntriesOf(entries, id, snapshot);
	return entries;
}

/** What step 1 learned of a company: whether the store held its status, name and address entries. */
interface Held {
	status: boolean;
	name: boolean;
	address: boolean;
}

/**
 * Companies asked in step 1, with their entries in one list (one call). `asking`: false where the store is
 * new and nothing is asked (every company is new to it): no entries are made.
 */
class Asked {
	readonly ids: string[] = [];
	readonly snapshots: Array<Omit<CompanySnapshot, 'd'>> = [];
	readonly entries: string[] = [];

	constructor(private readonly asking: boolean) {}

	add(id: string, snapshot: Omit<CompanySnapshot, 'd'>): void {
		this.ids.push(id);
		this.snapshots.push(snapshot);
		if (this.asking) pushEntriesOf(this.entries, id, snapshot);
	}

	/** The companies of a block the store did not hold (so it is asked), their entries cut out of its text. */
	addBlock(blocks: Blocks, index: number, current: ReadonlyMap<string, CompanySnapshot>): void {
		for (const id of blocks.members[index]) {
			this.ids.push(id);
			this.snapshots.push(current.get(id)!);
		}
		cutEntries(this.entries, blocks.texts[index], blocks.bounds[index]);
	}

	/** Calls `each` for every company with what the store held (not registered: its status says all). */
	walk(
		isNew: (entry: string) => boolean,
		each: (id: string, snapshot: Omit<CompanySnapshot, 'd'>, held: Held) => void,
	): void {
		let at = 0;
		for (const [index, id] of this.ids.entries()) {
			const snapshot = this.snapshots[index];
			// Where nothing was asked (no entries), the store is new and `isNew` says so of every entry.
			const status = !isNew(this.entries[at]);
			if (snapshot.s === 'N') {
				at += 1;
				each(id, snapshot, { status, name: status, address: status });
			} else {
				each(id, snapshot, {
					status,
					name: !isNew(this.entries[at + 1]),
					address: !isNew(this.entries[at + 2]),
				});
				at += 3;
			}
		}
	}
}

const allHeld = (held: Held) => held.status && held.name && held.address;

/**
 * Step 2's questions asked in step 1's call (a worker's, `folded` in recall): of each company asked, the
 * statuses other than its current one (the current one is among its entries), whether only its status
 * was known, and its name and address in the forms earlier versions wrote (earlierEntries); of each
 * company not named and unknown to the static data, every status. n8n answers a call from the row as it
 * was before it, so each is answered as step 2 would be, and every question step 2 could ask is asked:
 * the changed companies are among those asked.
 */
function foldedQuestions(asked: Asked, absentUnsaved: readonly string[]): string[] {
	const questions: string[] = [];
	for (const [index, id] of asked.ids.entries()) {
		const snapshot = asked.snapshots[index];
		for (const status of probed(snapshot.s, false)) questions.push(statusEntry(id, status));
		questions.push(detailsUnknownEntry(id));
		for (const [field, text] of [
			['name', snapshot.n],
			['address', snapshot.a],
		] as const) {
			questions.push(...earlierEntries(id, field, text));
		}
	}
	for (const id of absentUnsaved)
		for (const status of STATUSES) questions.push(statusEntry(id, status));
	return questions;
}

/**
 * The statuses step 2 asks of a company, given the one step 1 asked: all if that one was held (n8n may have
 * trimmed it since, with the entries after it; and a row holding two is not to be trusted), else the others
 * (step 1 recorded it: asked again, it would be held).
 */
const probed = (asked: CompanySnapshot['s'] | undefined, held: boolean) =>
	held ? STATUSES : STATUSES.filter((status) => status !== asked);

export class ProcessedItemsMemory implements WatchMemory {
	/** What `remember` writes for companies this run could not check (or did not name): their previous entries. */
	private carried: string[] = [];
	/** The companies not named now whose entries in the row are not the static data's snapshot (a status at most). */
	private notAsSaved: string[] = [];
	/** Entries this run recorded that the store did not hold: removed again if the run fails before step 3. */
	private recordedNew: string[] = [];
	/**
	 * The entries the row holds, as far as this run can tell: three a company named (a status alone where
	 * not registered), a block per 10, three a company not named. What an undo would search (a row holding
	 * companies no longer named is longer, up to the store's capacity).
	 */
	private rowLength = 0;
	/** The blocks of the companies named now, where recall built them (a worker's run): step 3 writes them. */
	private blocks: Blocks | undefined;
	/**
	 * The last successful run's entries of the companies found changed, as far as recall learned them: with
	 * the unchanged companies' entries (the same as this run's), written back if step 3 fails after the clear.
	 */
	private previousOfChanged = new Map<string, string[]>();
	/** The companies step 1 found changed (or all, in a new store). */
	private changed: Pick<ReadonlySet<string>, 'has'> = new Set<string>();
	/** Whether the store's row already holds exactly what step 3 would write (nothing changed, nothing to drop). */
	private rowIsCurrent = false;
	/** How many entries the store held before this run (-1: not known; asked only where the row may stay as it is). */
	private heldBefore = 0;
	/**
	 * Whether the row held the mark and every company named now as the static data says: only then may a
	 * run that leaves the row as it is keep its mark. A company that differs from the static data but whose
	 * entries the row held got them from another run (one in progress may yet take them back, if it fails).
	 */
	private rowAsSaved = false;
	/** Whether the row held the static data's mark (no other run wrote it since the one that saved it). */
	private rowAsMarked = false;

	/** The options of every store call: the entries mode, and the capacity n8n trims the row to. */
	private readonly options: ICheckProcessedOptions & { maxEntries: number };

	/**
	 * `notebook`: the static data, where n8n loaded it; it adds old names, addresses and days the store
	 * cannot give. `maxEntries`: the row's capacity (tests give a few companies' worth, standing for 500,000).
	 */
	constructor(
		private readonly store: ProcessedItemsStore,
		private readonly notebook?: StaticDataMemory,
		maxEntries = STORE_CAPACITY,
	) {
		this.options = { mode: 'entries', maxEntries };
	}

	async recall(
		current: ReadonlyMap<string, CompanySnapshot>,
		unchecked: readonly string[],
	): Promise<Recollections> {
		const saved = (id: string) => this.notebook?.saved(id);
		const mark = this.notebook?.rowMark;
		const notAsSavedBefore = new Set(mark?.notAsSaved);
		/** The static data's snapshot of a company, where the marked row holds exactly its entries. */
		const asInRow = (id: string) => (mark && !notAsSavedBefore.has(id) ? saved(id) : undefined);
		// Neither list names a company named now (the detector's and the static data's `kept` leave them out).
		const absent = [...new Set([...unchecked, ...(this.notebook?.kept(current) ?? [])])];
		this.recordedNew = [];
		this.rowAsMarked = false;
		this.rowLength = entriesCount(current) + current.size / BLOCK_SIZE + 3 * absent.length;
		const count = async () =>
			await this.call(
				async () => await this.store.getProcessedDataCount('node', this.options),
			).catch(async (error: unknown) => {
				await this.undoRecorded();
				throw error;
			});
		// A store with no entries at all: a first run, a watch saved by an earlier version (static data
		// only), or a row emptied since (staticDataIsMemory below says when the static data is still the
		// memory: only after a failed run's undo that found the mark). Nothing is asked of it. A mark says the
		// row was written (and, if it still holds the mark, what it holds): no count is needed. A worker
		// asks its blocks first and counts only where that can tell something (below); a main process
		// without its mark (a first run, a lost save) counts first: a first run then asks no blocks.
		const countFirst = !mark && this.notebook !== undefined;
		this.heldBefore = mark ? mark.entries : countFirst ? await count() : -1;
		let storeIsNew = this.heldBefore === 0 && !mark;
		// No static data to vouch for the row (a worker): first the blocks, then the entries of the
		// companies whose block the row does not hold. A block held: its companies are as it says.
		// A main process's first run (its row empty, no mark) writes none either: its next run has the mark,
		// and its blocks were some 40 MB of texts, slices and bounds at 100,000 companies that a worker
		// would use only if queue mode came later (it then asks every company once, as after a marked run).
		this.blocks = mark || storeIsNew ? undefined : blocksOf(current);
		/** Block entries the store did not hold (recorded now). */
		const blockNew =
			this.blocks && !storeIsNew ? await this.record(this.blocks.texts) : new Set<string>();
		for (const block of blockNew) this.recordedNew.push(block);
		// A worker's row that held none of the blocks may be empty: a count tells (the row then holds the
		// blocks alone; beyond the store's capacity n8n trimmed what it held, and every company is unknown
		// either way). One that held some and not others is written anew: what it held is not needed; one
		// that held all is counted at the end, if the run is still quiet.
		if (this.heldBefore < 0 && blockNew.size === this.blocks!.texts.length) {
			this.heldBefore = (await count()) - blockNew.size;
			storeIsNew = this.heldBefore === 0;
		}

		// 1. The entries of each company named now, and the static data's of those not checked. Those the
		// marked row holds as the static data says are asked only if the row turns out not to be it.
		const asked = new Asked(!storeIsNew);
		// Their entries are made only if asked: most of a long list.
		const deferred: string[] = [];
		if (this.blocks && !storeIsNew) {
			for (const [index, block] of this.blocks.texts.entries())
				if (blockNew.has(block)) asked.addBlock(this.blocks, index, current);
		} else {
			for (const [id, now] of current) {
				const before = asInRow(id);
				if (before && sameSnapshot(before, now)) deferred.push(id);
				else asked.add(id, now);
			}
		}
		const absentAsked = new Asked(!storeIsNew);
		const absentDeferred: string[] = [];
		/** Companies not named now and not in the static data: only a status can be known of them. */
		const absentUnsaved: string[] = [];
		for (const id of absent) {
			const before = saved(id);
			if (!before) absentUnsaved.push(id);
			else if (asInRow(id)) absentDeferred.push(id);
			else absentAsked.add(id, before);
		}
		// Most companies are unchanged: the few new entries are what a run has to look at.
		// A new store holds nothing: asking it would only add entries step 3 clears again.
		this.previousOfChanged = new Map();
		const markEntry = mark ? rowEntry(mark) : undefined;
		// A worker with few companies asked (its blocks mostly held) asks step 2's questions of every one of
		// them in step 1's call: one call on the whole row fewer, for three values more a company asked.
		const folded =
			!this.notebook &&
			!storeIsNew &&
			asked.ids.length <= current.size * FOLDED_QUESTIONS_MAX_SHARE;
		const firstNew = storeIsNew
			? new Set<string>()
			: await this.record([
					...(markEntry ? [markEntry] : []),
					...asked.entries,
					...absentAsked.entries,
					...(folded ? foldedQuestions(asked, absentUnsaved) : []),
				]).catch(async (error: unknown) => {
					await this.undoRecorded();
					throw error;
				});
		for (const entry of firstNew) this.recordedNew.push(entry);
		const rowAsMarked = markEntry !== undefined && !firstNew.has(markEntry);
		this.rowAsMarked = rowAsMarked;
		this.rowAsSaved = rowAsMarked && asked.ids.length === 0;
		/** Whether the row was emptied by a failed run that found it as the static data's mark says. */
		let emptiedAsMarked = false;
		if (markEntry && !rowAsMarked) {
			// Another run wrote the row since (a worker, a run whose static data was lost): all is asked.
			const [from, absentFrom] = [asked.entries.length, absentAsked.entries.length];
			for (const id of deferred) asked.add(id, current.get(id)!);
			for (const id of absentDeferred) absentAsked.add(id, saved(id)!);
			const emptied = rowEmptiedEntry(mark!);
			const rest = [
				...asked.entries.slice(from),
				...absentAsked.entries.slice(absentFrom),
				emptied,
			];
			const restNew = await this.record(rest).catch(async (error: unknown) => {
				await this.undoRecorded();
				throw error;
			});
			emptiedAsMarked = !restNew.has(emptied);
			for (const entry of restNew) {
				if (entry !== emptied) firstNew.add(entry);
				this.recordedNew.push(entry);
			}
			deferred.length = 0;
			absentDeferred.length = 0;
			// Nothing held, not even the mark: the row may have been empty (a crash after the clear), or held
			// the emptied entry alone; it holds that entry now either way. A count of recorded + 1 tells that
			// only below the capacity: a row trimmed to it held more.
			const recorded = 1 + asked.entries.length + absentAsked.entries.length;
			if (firstNew.size === recorded && recorded + 1 < this.options.maxEntries) {
				const held = await this.call(
					async () => await this.store.getProcessedDataCount('node', this.options),
				).catch(async (error: unknown) => {
					await this.undoRecorded();
					throw error;
				});
				storeIsNew = held === recorded + 1;
			}
		}
		/**
		 * Whether the static data is the memory of a row found empty: only where the row was emptied by a
		 * failed run that found it as the static data's mark says (and still held it before its clear). Else
		 * the row was emptied since (a run that died between its clear and its write, a write and its
		 * write-back both failing, a failed run's undo), and a worker or a run whose save was lost may have
		 * reported from it meanwhile: every company starts a new baseline, never a change reported again.
		 * Static data without a mark cannot tell (an earlier version saved none where a worker wrote the
		 * row, or none at all): a first run on the store after static data alone is a new baseline too.
		 */
		const staticDataIsMemory = emptiedAsMarked;
		const isNew = (entry: string) => storeIsNew || firstNew.has(entry);
		/** The companies named now whose entries were not all held, with what was. */
		const changed = new Map<string, Held>();
		/**
		 * Names and addresses step 1 found not held: step 2 asks them in the forms earlier versions wrote too
		 * (earlierEntries: a row they wrote holds one); held, so is the field.
		 */
		const asCame: Array<{ entry: string; held: Held; field: TextField }> = [];
		// Not registered: no name or address, so none asked. A new store holds no form and is asked nothing:
		// made for every company of a first run, they cost it 0.4-0.6 s at 100,000 companies.
		const askAsCame = (id: string, snapshot: Omit<CompanySnapshot, 'd'>, held: Held) => {
			if (storeIsNew) return;
			if (!held.name)
				for (const name of earlierEntries(id, 'name', snapshot.n))
					asCame.push({ entry: name, held, field: 'name' });
			if (!held.address)
				for (const address of earlierEntries(id, 'address', snapshot.a))
					asCame.push({ entry: address, held, field: 'address' });
		};
		/** A changed company whose previous snapshot the static data holds, the row being as marked. */
		const fromNotebook = (id: string) => rowAsMarked && asInRow(id) !== undefined;
		asked.walk(isNew, (id, now, held) => {
			if (allHeld(held)) return;
			changed.set(id, held);
			// Its previous snapshot is the static data's, compared as `sameText` does: no form to ask.
			if (!fromNotebook(id)) askAsCame(id, now, held);
		});
		const carriedWhole: string[] = [...absentDeferred];
		/** Companies not named now whose details the row does not hold as the static data says: their status asked then, and whether it was held. */
		const statusOnly = new Map<string, { asked?: CompanySnapshot['s']; held: boolean }>();
		/** What step 1 found held of the companies in `statusOnly` it asked. */
		const absentHeld = new Map<string, Held>();
		absentAsked.walk(isNew, (id, before, held) => {
			if (allHeld(held)) return void carriedWhole.push(id);
			statusOnly.set(id, { asked: before.s, held: held.status });
			absentHeld.set(id, held);
			askAsCame(id, before, held);
		});
		for (const id of absentUnsaved) statusOnly.set(id, { held: false });

		// 2. For the rest: the statuses that may have been, whether only the status was known, and the
		// static data's name and address where they are not the current ones.
		const questions: string[] = [];
		/** The static data's name or address, in this version's form and the earlier ones' (their rows hold those). */
		const askOld = (id: string, field: TextField, text: string | undefined) => {
			questions.push(entry(id, field, foldedOf(text)), ...earlierEntries(id, field, text));
		};
		if (!storeIsNew && !folded) {
			for (const [id, held] of changed) {
				if (fromNotebook(id)) continue;
				const now = current.get(id)!;
				const before = saved(id);
				for (const status of probed(now.s, held.status)) questions.push(statusEntry(id, status));
				questions.push(detailsUnknownEntry(id));
				if (before && before.s !== 'N') {
					if (now.s === 'N' || !sameText(before.n, now.n)) askOld(id, 'name', before.n);
					if (now.s === 'N' || !sameText(before.a, now.a)) askOld(id, 'address', before.a);
				}
			}
			for (const [id, { asked: askedStatus, held }] of statusOnly)
				for (const status of probed(askedStatus, held)) questions.push(statusEntry(id, status));
			for (const { entry: asItCame } of asCame) questions.push(asItCame);
		}
		const secondNew = await this.record(questions).catch(async (error: unknown) => {
			await this.undoRecorded();
			throw error;
		});
		// One by one: spread into push, hundreds of thousands of entries overflow the call stack.
		for (const entry of secondNew) this.recordedNew.push(entry);
		// Every entry step 3 would write was held (unchanged companies hold their three: the status entry is
		// written first, so n8n's trimming never leaves it without the others), and the row holds no more.
		this.rowIsCurrent =
			!storeIsNew && blockNew.size === 0 && firstNew.size === 0 && secondNew.size === 0;
		// All held: the row holds what step 3 would write, unless it holds more (companies no longer named).
		if (this.rowIsCurrent && this.heldBefore < 0) this.heldBefore = await count();
		// Only entries asked in step 2 (folded: in step 1, as the row was before it) are looked up here.
		const questionsNew = folded ? firstNew : secondNew;
		const answers = { has: (entry: string) => !storeIsNew && !questionsNew.has(entry) };
		// A field held as it came is held: a company whose every field is held so is unchanged.
		for (const { entry: asItCame, held, field } of asCame)
			if (answers.has(asItCame)) held[field] = true;
		for (const [id, held] of changed) if (allHeld(held)) changed.delete(id);
		for (const [id, held] of absentHeld) {
			if (!allHeld(held)) continue;
			statusOnly.delete(id);
			carriedWhole.push(id);
		}
		/** The status step 2 found of a company, given the one step 1 asked and whether it was held. */
		const statusOf = (id: string, asked: CompanySnapshot['s'] | undefined, wasHeld: boolean) => {
			const held = probed(asked, wasHeld).filter((status) => answers.has(statusEntry(id, status)));
			// None: unknown. More than one: entries of a run that stopped half-way; not to be trusted.
			return held.length === 1 ? held[0] : undefined;
		};
		// A new store: every company named is, and `current` says which (a copy was a 100,000-id Set).
		this.changed = storeIsNew ? current : new Set(changed.keys());

		const known = new Map<string, Recollection>();
		for (const [id, held] of changed) {
			const now = current.get(id)!;
			const before = saved(id);
			if (before && fromNotebook(id)) {
				// The row holds this snapshot's entries: the static data says all the row would, and more.
				known.set(id, { previous: before });
				this.previousOfChanged.set(id, entriesOf(id, before));
				continue;
			}
			const status = storeIsNew ? undefined : statusOf(id, now.s, held.status);
			if (status === undefined) {
				// Unknown to the store. Only where the store holds nothing and the static data vouches for it.
				if (storeIsNew && before && staticDataIsMemory) known.set(id, { previous: before });
				continue;
			}
			const detailsUnknown = answers.has(detailsUnknownEntry(id));
			const registeredNow = now.s !== 'N';
			const nameChanged = !detailsUnknown && status !== 'N' && !(registeredNow && held.name);
			const addressChanged = !detailsUnknown && status !== 'N' && !(registeredNow && held.address);
			// The static data's old value where the store confirms it was the last one (asked in step 2
			// unless it is the current one, which step 1 found missing).
			const old = (field: 'n' | 'a', entryField: TextField) => {
				if (!before || before.s === 'N' || (registeredNow && sameText(before[field], now[field])))
					return undefined;
				const forms = [
					entry(id, entryField, foldedOf(before[field])),
					...earlierEntries(id, entryField, before[field]),
				];
				return forms.some(answers.has) ? before[field] : undefined;
			};
			const oldName = nameChanged ? old('n', 'name') : now.n;
			const oldAddress = addressChanged ? old('a', 'address') : now.a;
			const previous: PreviousSnapshot = {
				s: status,
				// Not registered: no name or address, as the static data's snapshot has none.
				...(status !== 'N' ? { n: oldName, a: oldAddress } : {}),
				...(before ? { d: before.d } : {}),
			};
			known.set(id, {
				previous,
				detailsChanged: { officialName: nameChanged, registeredAddress: addressChanged },
			});
			const detailsKnown =
				!detailsUnknown &&
				(!nameChanged || oldName !== undefined) &&
				(!addressChanged || oldAddress !== undefined);
			this.previousOfChanged.set(
				id,
				// Not registered: its status entry alone, whatever the details.
				status === 'N' || detailsKnown
					? entriesOf(id, { s: status, n: oldName, a: oldAddress })
					: [statusEntry(id, status), detailsUnknownEntry(id)],
			);
		}

		this.carried = [];
		for (const id of carriedWhole) pushEntriesOf(this.carried, id, saved(id)!);
		for (const [id, { asked: askedStatus, held }] of statusOnly) {
			const status = storeIsNew ? undefined : statusOf(id, askedStatus, held);
			if (status === 'N') this.carried.push(statusEntry(id, 'N'));
			else if (status !== undefined)
				this.carried.push(statusEntry(id, status), detailsUnknownEntry(id));
		}
		this.notAsSaved = [...statusOnly.keys()];
		// An unchanged company is compared with itself (a change is never shown against it): made when asked for.
		const changedIds = this.changed;
		return {
			get: (id) => {
				if (changedIds.has(id)) return known.get(id);
				const now = current.get(id);
				return now && { previous: now };
			},
		};
	}

	async remember(
		current: ReadonlyMap<string, CompanySnapshot>,
		unchecked: readonly string[],
	): Promise<void> {
		// `current` is what recall was given. Its entries are made only when the row is written.
		const mark = this.notebook?.rowMark;
		// Blocks only where recall made them, where no mark vouched for a row that held something (a worker's
		// run; a main process's after another wrote its row): a run the mark vouches for asks none, and
		// writing them cost a main process 0.15-0.3 s a run at 100,000 companies. A worker after it asks
		// every company once; a marked run after a row with blocks writes it anew once.
		const blocks = this.blocks;
		const count = this.carried.length + entriesCount(current) + (blocks?.texts.length ?? 0);
		// Nothing changed and nothing is to be dropped: the row stays as it is (a quiet run writes nothing).
		if (this.rowIsCurrent && count === this.heldBefore) {
			this.notebook?.markRow(this.rowAsSaved ? mark : undefined);
		} else {
			// The mark's entry too, if any (below): one place more than `count`.
			const row = new RowEntries(count + 1);
			for (const carried of this.carried) row.push(carried);
			if (blocks) pushRowOf(row, blocks);
			else current.forEach((snapshot, id) => pushEntriesOf(row, id, snapshot));
			// 3. Written anew: entries of companies no longer named, and old values, go with the old row.
			await this.call(
				async () => await this.store.clearAllProcessedItems('node', this.options),
			).catch(async (error: unknown) => {
				await this.undoRecorded();
				throw error;
			});
			// The row's mark last: n8n's trimming drops the oldest first. A row too long to hold all is not marked.
			const next =
				this.notebook && count < this.options.maxEntries
					? { token: randomUUID(), entries: count, notAsSaved: this.notAsSaved }
					: undefined;
			const entries = row.values;
			// Without a mark the last place goes (shortened in place, not copied).
			if (next) row.push(rowEntry(next));
			else entries.length = count;
			await this.write(entries).catch(async (error: unknown) => {
				// The row is gone: the last run's entries, as recall learned them, are written back.
				await this.write(this.previousEntries(current)).catch(() => undefined);
				throw error;
			});
			this.notebook?.markRow(next);
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
	 * Where n8n would search the row too long for them (UNDO_MAX_SEARCHED_ENTRIES), clears it instead: a
	 * worker then starts a new baseline (this run's changes lost, none false); a main process whose row held
	 * its static data's mark writes the emptied entry, and falls back to its static data (which this run did
	 * not save: its changes are reported next run), else starts a new baseline. Best effort: the run fails
	 * with its own error either way.
	 */
	private async undoRecorded(): Promise<void> {
		const values = this.recordedNew.length;
		if (values === 0) return;
		const row = Math.min(this.rowLength + values, this.options.maxEntries);
		if (values * row > UNDO_MAX_SEARCHED_ENTRIES) {
			// The row held the mark at step 1; asked again, as another run (a worker) may have written it
			// since. Every write clears first: a mark still held means no run wrote the row since.
			const mark = this.rowAsMarked ? this.notebook?.rowMark : undefined;
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

	/** Records entries; returns those the store did not hold before (the few, in a run where little changed). */
	private async record(entries: string[]): Promise<Set<string>> {
		if (entries.length === 0) return new Set();
		const output = await this.call(
			async () => await this.store.checkProcessedAndRecord(entries, 'node', this.options),
		);
		return new Set(output.new.map(String));
	}

	/** Records entries into an empty row: what the store answers is all of them, and not looked at. */
	private async write(entries: string[]): Promise<void> {
		if (entries.length === 0) return;
		await this.call(
			async () => await this.store.checkProcessedAndRecord(entries, 'node', this.options),
		);
	}

	/**
	 * n8n reads and rewrites the store's row per call: two runs whose first calls meet at the same moment
	 * insert it twice, and one fails. That call is made once more, and then finds the row.
	 */
	private async call<T>(call: () => Promise<T>): Promise<T> {
		return await call().catch(call);
	}
}

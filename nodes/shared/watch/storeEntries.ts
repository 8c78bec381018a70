import { canonicalText, caseFolded, sameText, type CompanySnapshot } from './snapshot';

/**
 * The entries the watch writes into n8n's processed-items store (processedItemsMemory.ts says how a run
 * uses them): three a registered company, its status, its name and its address (one not registered: its
 * status), each `[id, field, value]` as JSON.
 *
 * Names and addresses are written in their canonical form, case-folded (snapshot.ts: the same text in
 * another form or another letter case is no change, as `sameText` compares); the version before wrote the
 * canonical form with its case, earlier ones the text as it came. Step 2 asks a name or address that step 1
 * found not held in those forms too, where they differ: held, so is the field, and a company whose registry
 * keeps sending one text reports nothing on the first run after the upgrade (its row is then written anew;
 * a worker's blocks are not held then, so it asks every company once). Left: a worker's first run after the
 * upgrade on a registry that changed only the letter case that day reports a detailsChanged (the row
 * holds the old case, which it cannot ask).
 */

export const STATUSES: ReadonlyArray<CompanySnapshot['s']> = ['A', 'I', 'N'];

/**
 * The one status of `statuses` whose entry the row holds. None: unknown. More than one: not to be trusted
 * (a run that stopped half-way, or a killed run's questions, which n8n recorded).
 */
export function heldAlone(
	isHeld: (status: CompanySnapshot['s']) => boolean,
	statuses: ReadonlyArray<CompanySnapshot['s']> = STATUSES,
): CompanySnapshot['s'] | undefined {
	const held = statuses.filter(isHeld);
	return held.length === 1 ? held[0] : undefined;
}

/**
 * One entry: `[id, field, value]` as JSON, so that no company id, name or address can pose as another
 * entry. The forms earlier versions wrote too (after a whole-record entry, `[id,"company",...]`, no
 * longer written): a row they wrote holds every entry asked here. Made by hand, as JSON.stringify would:
 * it cost about a fifth of the package's time in a run at 100,000 companies. Joined, not templates: a template
 * makes a rope of pieces, which n8n's hashing copies flat again (twice the memory, kept until n8n answers).
 */
export function pushEntry(
	parts: string[],
	id: string,
	field: string,
	value: string | undefined,
): void {
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

export function entry(id: string, field: string, value: string | undefined): string {
	const parts: string[] = [];
	pushEntry(parts, id, field, value);
	return parts.join('');
}
export const statusEntry = (id: string, status: CompanySnapshot['s']) =>
	entry(id, 'status', status);
/** Whether two snapshots say the same of a company (its last check's day aside), in the canonical form. */
export const sameSnapshot = (
	before: Omit<CompanySnapshot, 'd'>,
	after: Omit<CompanySnapshot, 'd'>,
) => before.s === after.s && sameText(before.n, after.n) && sameText(before.a, after.a);

export type TextField = 'name' | 'address';
/**
 * A name or address in the form this version writes: canonical and case-folded, the form `sameText`
 * compares (snapshot.ts says why): a registry that changes only the letter case changes no entry.
 */
export const foldedOf = (text: string | undefined) =>
	text === undefined ? undefined : caseFolded(text);
const nameEntry = (id: string, name: string | undefined) => entry(id, 'name', foldedOf(name));
const addressEntry = (id: string, address: string | undefined) =>
	entry(id, 'address', foldedOf(address));
/**
 * The entries earlier versions wrote of a name or address, where they are not this version's: the
 * canonical form with its letter case (the version before), and the text as it came (the ones before
 * it). A row they wrote holds one of them, and a company whose registry sends that text is unchanged.
 */
export function earlierEntries(id: string, field: TextField, text: string | undefined): string[] {
	if (text === undefined) return [];
	const folded = caseFolded(text);
	const entries: string[] = [];
	// This version's form is asked apart: asked again here, step 2 would find it held (step 1 recorded it).
	for (const form of new Set([canonicalText(text), text]))
		if (form !== folded) entries.push(entry(id, field, form));
	return entries;
}
/** Said of a company that could not be checked where only its status was known: its name and address are not. */
export const detailsUnknownEntry = (id: string) => entry(id, 'details', 'unknown');

/** Where entries are appended: a list, or the row step 3 writes (RowEntries). */
export interface Entries {
	push(entry: string): void;
}

/**
 * The row step 3 writes, made at its size (known before: three entries a registered company, one not, a
 * block per 10) and filled by place. Grown by push, 300,000 entries leave some 6 MB of copies of the list
 * a run (each larger than V8's regular objects, so straight into the old space the peak is made of).
 */
export class RowEntries implements Entries {
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
export function pushEntriesOf(
	entries: Entries,
	id: string,
	snapshot: Omit<CompanySnapshot, 'd'>,
): void {
	entries.push(statusEntry(id, snapshot.s));
	// Not registered: the status says all.
	if (snapshot.s === 'N') return;
	entries.push(nameEntry(id, snapshot.n));
	entries.push(addressEntry(id, snapshot.a));
}

/** How many entries `pushEntriesOf` makes for these companies. */
export function entriesCount(companies: ReadonlyMap<string, CompanySnapshot>): number {
	let count = 0;
	for (const snapshot of companies.values()) count += snapshot.s === 'N' ? 1 : 3;
	return count;
}

export function entriesOf(id: string, snapshot: Omit<CompanySnapshot, 'd'>): string[] {
	const entries: string[] = [];
	pushEntriesOf(entries, id, snapshot);
	return entries;
}

import type { CompanySnapshot } from './snapshot';
import { foldedOf, pushEntry, type Entries } from './storeEntries';

/**
 * The block entries a worker's row holds: every 10 companies of the list one entry, their entries in one
 * text, written before them. Why: a worker has no static data, and asking three values a company was
 * 300,000 hashes a run at 100,000 companies; with 1% of them changed about one block in ten is not held,
 * so it asks 10,000 blocks and some 30,000 entries (a run that writes: 310,000 values, not 300,000). A
 * block is written only with its companies' entries, and every run that finds a change (or records
 * anything new) writes the row anew: a block the row holds is the companies' last state, never an older
 * one. Its texts are made from the snapshots: a quiet run makes no entries.
 */

/**
 * Companies a block entry stands for: a worker asks one value per 10 companies, and asks the entries of
 * only the 10 whose block the row does not hold (with 1% of the companies changed, about 1 block in 10).
 */
export const BLOCK_SIZE = 10;

/**
 * The blocks of the companies named now: per block its entry, its companies, and where their entries lie
 * in it (step 3 writes each block before them; the entries are cut out of the block, not made again).
 */
export interface Blocks {
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
export function cutEntries(entries: Entries, text: string, bounds: readonly number[]): void {
	for (let at = 0; at < bounds.length; at += 2)
		entries.push(text.slice(bounds[at], bounds[at + 1]));
}

/**
 * A block entry is its companies' entries in one JSON array, and comes before them: a block the row
 * holds says its companies' entries were written with it, and n8n, dropping the oldest first, kept them.
 */
export function blocksOf(companies: ReadonlyMap<string, CompanySnapshot>): Blocks {
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
export function pushRowOf(entries: Entries, blocks: Blocks): void {
	for (const [index, text] of blocks.texts.entries()) {
		entries.push(text);
		cutEntries(entries, text, blocks.bounds[index]);
	}
}

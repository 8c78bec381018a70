import type { CompanySnapshot } from './snapshot';
import { cutEntries, type Blocks } from './storeBlocks';
import {
	detailsUnknownEntry,
	earlierEntries,
	pushEntriesOf,
	statusEntry,
	STATUSES,
} from './storeEntries';

/**
 * What a run asks the store of its companies (processedItemsMemory.ts says the steps): in step 1 their
 * entries, which say whether the store held each of status, name and address; in step 2, of the few not
 * held, the statuses they may have had. Step 2 asks the status again where step 1 found it: n8n may have
 * trimmed it since (step 1 records too), and with it what step 2 would find. A company whose status
 * entry was dropped is unknown: a new baseline, never a false change.
 */

/**
 * The share of the companies named that a worker may ask in step 1 and still ask step 2's questions in
 * the same call: each company asked adds three values (an MD5 hash each, about 3.5 µs), and a call of its
 * own costs reading, a Set of and writing the whole row (about 1.2 µs an entry, three entries a company),
 * so folding pays below about a third; a quarter leaves room, and bounds what a failed run removes again
 * (n8n's removeProcessed searches the row once per value). With 1% of the companies changed about one
 * block in ten is not held.
 */
export const FOLDED_QUESTIONS_MAX_SHARE = 0.25;

/** What step 1 learned of a company: whether the store held its status, name and address entries. */
export interface Held {
	status: boolean;
	name: boolean;
	address: boolean;
}

/**
 * Companies asked in step 1, with their entries in one list (one call). `asking`: false where the store is
 * new and nothing is asked (every company is new to it): no entries are made.
 */
export class Asked {
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

export const allHeld = (held: Held) => held.status && held.name && held.address;

/**
 * Step 2's questions asked in step 1's call (a worker's, `folded` in recall): of each company asked, the
 * statuses other than its current one (the current one is among its entries), whether only its status
 * was known, and its name and address in the forms earlier versions wrote (earlierEntries); of each
 * company not named and unknown to the static data, every status. n8n answers a call from the row as it
 * was before it, so each is answered as step 2 would be, and every question step 2 could ask is asked:
 * the changed companies are among those asked.
 */
export function foldedQuestions(asked: Asked, absentUnsaved: readonly string[]): string[] {
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
 * The statuses other than its own of each company asked from `from` on (companies not named now, asked from
 * the static data): asked in the call that asks its entries. n8n records every value asked, so a run killed
 * after that call leaves every status held, which reads as unknown, never as the static data's status
 * alone: asked in step 2, a killed run's step 1 left the static data's entries alone held, and a later run
 * as stale took them as the row's (a false change).
 */
export function otherStatuses(asked: Asked, from = 0): string[] {
	const questions: string[] = [];
	for (let index = from; index < asked.ids.length; index++)
		for (const status of STATUSES)
			if (status !== asked.snapshots[index].s)
				questions.push(statusEntry(asked.ids[index], status));
	return questions;
}

/**
 * The statuses step 2 asks of a company, given the one step 1 asked: all if that one was held (n8n may have
 * trimmed it since, with the entries after it; and a row holding two is not to be trusted), else the others
 * (step 1 recorded it: asked again, it would be held).
 */
export const probed = (asked: CompanySnapshot['s'] | undefined, held: boolean) =>
	held ? STATUSES : STATUSES.filter((status) => status !== asked);

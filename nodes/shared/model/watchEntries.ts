import type { DeduplicationHelperFunctions, ICheckProcessedOptions } from 'n8n-workflow';

import type { CompanyRecord } from './companyRecord';
import type { LookupKey } from './lookupKey';
import {
	compareSnapshots,
	dayNumber,
	snapshotOf,
	watchKey,
	type CompanySnapshot,
	type FoundChange,
	type PreviousSnapshot,
	type WatchState,
} from './watchState';

/**
 * The watch's memory in n8n's processed-items store (the deduplication helpers, kept in n8n's database),
 * beside the static data. Why: a queue-mode worker of n8n 2.41.1 starts every execution with empty static
 * data, and overlapping runs overwrite each other's static data (last writer wins), so a change would be
 * missed or reported twice. The store is read and written per call, by any process.
 *
 * It keeps only whether a value was seen (n8n stores a hash of it), so a company is remembered as one
 * entry per field: its last status (one of three, so the previous one can always be asked for), its
 * official name and its address. Each run: (1) records the current entries and learns which were known,
 * (2) asks for the other two statuses, (3) removes them again, with the names and addresses the static
 * data knows to be old. The store decides whether something changed; the static data, where n8n loaded
 * it, adds the previous name, address and last check (in queue mode they are not known: null).
 */
export type ProcessedItemsStore = Pick<DeduplicationHelperFunctions, 'checkProcessedAndRecord' | 'removeProcessed'>;

/**
 * About three entries a company, and two more a company while a run asks for the other statuses: room for
 * 100,000 companies. Beyond it n8n drops the oldest entries, and those companies start a new baseline.
 */
const STORE_OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: 500_000 };

const STATUSES: ReadonlyArray<CompanySnapshot['s']> = ['A', 'I', 'N'];

type Field = 'status' | 'name' | 'address';

/** One entry: JSON, so that no company id, name or address can pose as another entry. */
const entry = (id: string, field: Field, value: string | null) => JSON.stringify([id, field, value]);

function entriesOf(id: string, snapshot: CompanySnapshot): string[] {
	const status = entry(id, 'status', snapshot.s);
	if (snapshot.s === 'N') return [status];
	return [status, entry(id, 'name', snapshot.n ?? null), entry(id, 'address', snapshot.a ?? null)];
}

/** The entries of a snapshot that the current one no longer has (known only from the static data). */
function outdatedEntries(id: string, saved: CompanySnapshot | undefined, current: CompanySnapshot): string[] {
	if (!saved || saved.s === 'N') return [];
	const now = new Set(entriesOf(id, current));
	return entriesOf(id, saved).filter((old) => !now.has(old));
}

interface Lookup {
	key: LookupKey;
	record: CompanyRecord;
	itemIndex: number;
}

/**
 * Compares each looked-up company with what the store remembers (or, for a company the store does not
 * know yet, with the static data: state saved before this memory existed), records the current values in
 * both, and returns the changes (and first sightings, when asked for). Several rows for one company count once.
 */
export async function detectChangesInStore(
	store: ProcessedItemsStore,
	state: WatchState,
	lookups: readonly Lookup[],
	options: { now: Date; reportFirstSightings: boolean },
): Promise<FoundChange[]> {
	const companies = (state.companies ??= {});
	const today = dayNumber(options.now);
	const watched = new Map<string, Lookup & { current: CompanySnapshot; saved?: CompanySnapshot }>();
	for (const lookup of lookups) {
		const id = watchKey(lookup.key);
		if (!watched.has(id)) watched.set(id, { ...lookup, current: snapshotOf(lookup.record, today), saved: companies[id] });
	}
	const seen = [...watched];

	const known = new Set((await recordEntries(store, seen.flatMap(([id, { current }]) => entriesOf(id, current)))).map(String));
	const otherStatuses = seen.flatMap(([id, { current }]) => STATUSES.filter((status) => status !== current.s).map((status) => entry(id, 'status', status)));
	const formerly = new Set((await recordEntries(store, otherStatuses)).map(String));
	await removeEntries(store, [...otherStatuses, ...seen.flatMap(([id, { saved, current }]) => outdatedEntries(id, saved, current))]);

	const found: FoundChange[] = [];
	for (const [id, { key, record, itemIndex, current: now, saved }] of seen) {
		companies[id] = now;
		const previousStatus = known.has(entry(id, 'status', now.s)) ? now.s : STATUSES.find((status) => formerly.has(entry(id, 'status', status)));
		if (previousStatus === undefined) {
			// Not in the store: compared with the static data where it has the company, else first seen.
			if (saved) {
				const change = compareSnapshots(saved, now);
				if (change) found.push({ key, record, change, previous: saved, itemIndex });
			} else if (options.reportFirstSightings) {
				found.push({ key, record, itemIndex, change: { event: 'firstSeen', changedFields: [], changes: {} } });
			}
			continue;
		}
		// A name or address whose entry was not known has changed; its old value is the static data's, where
		// that differs (else not known: null).
		const nameChanged = !known.has(entry(id, 'name', now.n ?? null));
		const addressChanged = !known.has(entry(id, 'address', now.a ?? null));
		const savedValue = (field: 'n' | 'a') => (saved && saved[field] !== now[field] ? saved[field] : undefined);
		const previous: PreviousSnapshot = {
			s: previousStatus,
			n: nameChanged ? savedValue('n') : now.n,
			a: addressChanged ? savedValue('a') : now.a,
			...(saved ? { d: saved.d } : {}),
		};
		const change = compareSnapshots(previous, now, { officialName: nameChanged, registeredAddress: addressChanged });
		if (change) found.push({ key, record, change, previous, itemIndex });
	}
	return found;
}

/** Forgets companies in the store too, so that one coming back is new again (only the static data lists them). */
export async function forgetInStore(store: ProcessedItemsStore, forgotten: ReadonlyArray<[string, CompanySnapshot]>): Promise<void> {
	const entries = forgotten.flatMap(([id, snapshot]) => [...STATUSES.map((status) => entry(id, 'status', status)), ...entriesOf(id, snapshot).slice(1)]);
	await removeEntries(store, entries);
}

/**
 * Records entries, returning those that were already there. n8n reads and rewrites the store's row per
 * call: two runs whose first calls meet at the same moment insert it twice, and one fails. That call is
 * made once more, and then finds the row.
 */
async function recordEntries(store: ProcessedItemsStore, entries: string[]): Promise<Array<string | number>> {
	if (entries.length === 0) return [];
	const call = async () => (await store.checkProcessedAndRecord(entries, 'node', STORE_OPTIONS)).processed;
	return await call().catch(call);
}

async function removeEntries(store: ProcessedItemsStore, entries: string[]): Promise<void> {
	if (entries.length === 0) return;
	const call = async () => await store.removeProcessed(entries, 'node', STORE_OPTIONS);
	await call().catch(call);
}

import type { CompanyRecord } from '../model/companyRecord';
import type { LookupKey } from '../model/lookupKey';
import type { WatchMemory } from './memory';
import {
	FIRST_SEEN,
	compareSnapshots,
	dayNumber,
	snapshotOf,
	watchKey,
	type CompanySnapshot,
	type FoundChange,
} from './snapshot';

export interface CheckedCompany {
	key: LookupKey;
	record: CompanyRecord;
	/** The input row (or list entry) it was checked for. */
	itemIndex: number;
}

/**
 * The one change detector of Watch for Changes and the trigger: reads the memory once, compares each
 * checked company with it, writes the memory once, and returns the changes (and first sightings, when
 * asked for). Several rows for one company count once. A company that could not be checked is no change:
 * the memory keeps what it knew of it, so a change made meanwhile is reported when it can be checked again.
 */
export async function detectChanges(
	memory: WatchMemory,
	checked: readonly CheckedCompany[],
	unchecked: readonly LookupKey[],
	options: { now: Date; reportFirstSightings: boolean },
): Promise<FoundChange[]> {
	const today = dayNumber(options.now);
	const current = new Map<string, CompanySnapshot>();
	// Side by side with `current`, in its order: the comparison then looks nothing up again. Made at their
	// size, filled by place: grown by push, a 100,000-company list's arrays leave some 2 MB of copies each.
	const companies = new Array<CheckedCompany>(checked.length);
	const ids = new Array<string>(checked.length);
	const snapshots = new Array<CompanySnapshot>(checked.length);
	let count = 0;
	for (const company of checked) {
		const id = watchKey(company.key);
		if (current.has(id)) continue;
		const snapshot = snapshotOf(company.record, today);
		current.set(id, snapshot);
		companies[count] = company;
		ids[count] = id;
		snapshots[count] = snapshot;
		count += 1;
	}
	const failed = [...new Set(unchecked.map(watchKey))].filter((id) => !current.has(id));

	const known = await memory.recall(current, failed);
	const found: FoundChange[] = [];
	for (let index = 0; index < count; index++) {
		const { key, record, itemIndex } = companies[index];
		const recollection = known.get(ids[index]);
		if (!recollection) {
			if (options.reportFirstSightings) found.push({ key, record, itemIndex, change: FIRST_SEEN });
			continue;
		}
		const change = compareSnapshots(
			recollection.previous,
			snapshots[index],
			recollection.detailsChanged,
		);
		if (change) found.push({ key, record, change, previous: recollection.previous, itemIndex });
	}
	await memory.remember(current, failed);
	return found;
}

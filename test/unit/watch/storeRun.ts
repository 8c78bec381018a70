// Apart from storeFixtures: loads the detector and both memories, which some of the fixtures' users do not.
import type { LookupKey } from '../../../nodes/shared/model/lookupKey';
import { detectChanges, type CheckedCompany } from '../../../nodes/shared/watch/detector';
import { StaticDataMemory } from '../../../nodes/shared/watch/memory';
import { ProcessedItemsMemory } from '../../../nodes/shared/watch/processedItemsMemory';
import type { ProcessedItemsStore } from '../../../nodes/shared/watch/storeRow';

/**
 * One run of the watch on the store's memory, on day `day` of 2026: a main process loads a copy of the
 * static data `saved` (`data`: what it would save), a queue-mode worker (`saved` undefined) none.
 */
export async function runOnStore(
	helpers: ProcessedItemsStore,
	saved: Record<string, unknown> | undefined,
	checked: CheckedCompany[],
	unchecked: LookupKey[],
	day: number,
) {
	const data = saved && (JSON.parse(JSON.stringify(saved)) as Record<string, unknown>);
	const found = await detectChanges(
		new ProcessedItemsMemory(
			helpers,
			data && new StaticDataMemory(data, { warn: () => undefined }, () => true),
		),
		checked,
		unchecked,
		{ now: new Date(Date.UTC(2026, 0, day)), reportFirstSightings: false },
	);
	return { found, data: data ?? {} };
}

import type { CompanyRecord } from '../../../nodes/shared/model/companyRecord';
import type { LookupKey } from '../../../nodes/shared/model/lookupKey';
import type { Clock } from '../../../nodes/shared/transport/wait';
import { detectChanges } from '../../../nodes/shared/watch/detector';
import type { WatchMemory } from '../../../nodes/shared/watch/memory';
import { ProcessedItemsMemory } from '../../../nodes/shared/watch/processedItemsMemory';
import type { ProcessedItemsStore } from '../../../nodes/shared/watch/storeRow';
import { StoreTurn } from '../../../nodes/shared/watch/storeTurns';
import { company } from './storeFixtures';

// A watch of three companies run by a queue-mode worker in its turn over the store (storeTurns.ts): the
// stories of storeTurns.test and its red team.

const keys: LookupKey[] = [0, 1, 2].map((index) => ({
	countryCode: 'de',
	companyId: `HRB${index}`,
}));

/** The three companies as looked up: the first as `record`, the others Active. */
export const checked = (record: CompanyRecord) =>
	keys.map((key, itemIndex) => ({
		key,
		record: itemIndex === 0 ? record : company('Active'),
		itemIndex,
	}));

export interface WorkerRunOptions {
	/** Holds the run between its recall and its remember. */
	pause?: { recalled: () => void; proceed: Promise<void> };
	/** The row's capacity (the memory's and the lease's), standing for 500,000. */
	capacity?: number;
	/** The execution's cancel signal. */
	signal?: AbortSignal;
}

/** One worker's run (no static data) in its turn: its events, or undefined where it failed. */
export async function workerRun(
	store: ProcessedItemsStore,
	clock: Clock,
	record: CompanyRecord,
	{ pause, capacity, signal }: WorkerRunOptions = {},
): Promise<string[] | undefined> {
	const turn = new StoreTurn(store, clock, capacity);
	const inner = new ProcessedItemsMemory(turn, undefined, capacity);
	const memory: WatchMemory = {
		recall: async (current, unchecked) => {
			const recollections = await inner.recall(current, unchecked);
			pause?.recalled();
			await pause?.proceed;
			return recollections;
		},
		remember: async (current, unchecked) => await inner.remember(current, unchecked),
	};
	try {
		const found = await turn.during(
			async () =>
				await detectChanges(memory, checked(record), [], {
					now: new Date(Date.UTC(2026, 10, 27)),
					reportFirstSightings: false,
				}),
			signal,
		);
		return found.map((change) => change.change.event);
	} catch {
		return undefined;
	}
}

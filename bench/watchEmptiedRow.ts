// A worker's run on a row holding only the undo's 'row emptied' entry, beside one on an empty row (review
// minor b, issue 22): `npx tsx bench/watchEmptiedRow.ts [companies]` (10,000 by default). A worker has no
// token to ask the entry with, so the row counts one entry it cannot place: it asks every company's
// entries, then step 2's questions of each. Prints each run's store calls (values a record) and its CPU.
import { ProcessedItemsStore as HarnessStore } from '../harness/processedItems';
import { rowEmptiedEntry } from '../nodes/shared/watch/storeRow';
import { company, helpersOf, STORE_CONTEXT } from '../test/unit/watch/storeFixtures';
import { runOnStore } from '../test/unit/watch/storeRun';

async function main(): Promise<void> {
	const companies = Number(process.argv[2] ?? 10_000);
	const checked = Array.from({ length: companies }, (_, index) => ({
		key: { countryCode: 'de', companyId: `HRB${index}` },
		record: company('Active'),
		itemIndex: index,
	}));
	for (const emptied of [false, true]) {
		const store = new HarnessStore();
		const calls: string[] = [];
		if (emptied)
			await store.checkProcessedAndRecord(
				[rowEmptiedEntry({ token: 'a failed run', entries: 0, notAsSaved: [] })],
				'node',
				STORE_CONTEXT,
				{ mode: 'entries', maxEntries: 500_000 },
			);
		const before = process.cpuUsage();
		const { found } = await runOnStore(helpersOf(store, { calls }), undefined, checked, [], 2);
		const cpu = process.cpuUsage(before);
		console.log(
			`${emptied ? "row holding the 'row emptied' entry alone" : 'empty row'}: ${calls.join(', ')}; events=${found.length} cpu_ms=${Math.round((cpu.user + cpu.system) / 1000)}`,
		);
	}
}

void main();

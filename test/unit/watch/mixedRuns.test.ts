import { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import type { CompanyRecord } from '../../../nodes/shared/model/companyRecord';
import type { LookupKey } from '../../../nodes/shared/model/lookupKey';
import { detectChanges } from '../../../nodes/shared/watch/detector';
import { StaticDataMemory } from '../../../nodes/shared/watch/memory';
import { ProcessedItemsMemory } from '../../../nodes/shared/watch/processedItemsMemory';
import { company, helpersOf } from './storeFixtures';
import { runOnStore } from './storeRun';

// Runs of one watch that do not all see the same static data: a queue-mode worker (none) after a
// main-process run, a main process whose static-data save was lost, overlapping executions. The
// processed-items store's row decides; the static data only adds what the row cannot say.

const keys: LookupKey[] = [0, 1, 2].map((index) => ({
	countryCode: 'de',
	companyId: `HRB${index}`,
}));

function watch(store: HarnessStore) {
	let saved: Record<string, unknown> = {};
	let day = 0;
	/** `staticData`: 'loaded' (a main process), 'none' (a queue-mode worker) or 'lost' (loaded, save lost). */
	return async (records: CompanyRecord[], staticData: 'loaded' | 'none' | 'lost') => {
		day += 1;
		const { found, data } = await runOnStore(
			helpersOf(store),
			staticData === 'none' ? undefined : saved,
			keys.map((key, itemIndex) => ({ key, record: records[itemIndex], itemIndex })),
			[],
			day,
		);
		if (staticData === 'loaded') saved = data;
		return found.map((change) => `${change.itemIndex}:${change.change.event}`);
	};
}

describe('runs that do not all see the static data', () => {
	it('a queue-mode worker after a main-process run reports a status change', async () => {
		const store = new HarnessStore();
		const run = watch(store);
		expect(await run([company('Active'), company('Active'), company('Active')], 'loaded')).toEqual(
			[],
		);
		expect(
			await run([company('Inactive'), company('Active'), company('Active')], 'loaded'),
		).toEqual(['0:turnedInactive']);
		// The same workflow's next execution runs on a worker (no static data).
		expect(
			await run([company('Inactive'), company('Inactive'), company('Active')], 'none'),
		).toEqual(['1:turnedInactive']);
	});

	it('a main process whose static-data save was lost reports a status change', async () => {
		const store = new HarnessStore();
		const run = watch(store);
		await run([company('Active'), company('Active'), company('Active')], 'loaded');
		await run([company('Inactive'), company('Active'), company('Active')], 'loaded');
		// This run's save is lost: the static data is older than the row.
		expect(await run([company('Active'), company('Active'), company('Active')], 'lost')).toEqual([
			'0:turnedActive',
		]);
		expect(
			await run([company('Active'), company('Inactive'), company('Active')], 'loaded'),
		).toEqual(['1:turnedInactive']);
	});
});

describe('two overlapping executions, their static data saved in the other order', () => {
	it("a name change after them is reported: the static data is the first's, the row the second's", async () => {
		const store = new HarnessStore();
		let saved: Record<string, unknown> = {};
		const execute = async (records: CompanyRecord[], day: number) => {
			const data = JSON.parse(JSON.stringify(saved)) as Record<string, unknown>;
			const notebook = new StaticDataMemory(data, { warn: () => undefined }, () => true);
			const found = await detectChanges(
				new ProcessedItemsMemory(helpersOf(store), notebook),
				keys.map((key, itemIndex) => ({ key, record: records[itemIndex], itemIndex })),
				[],
				{ now: new Date(Date.UTC(2026, 0, day)), reportFirstSightings: false },
			);
			return { data, events: found.map((change) => `${change.itemIndex}:${change.change.event}`) };
		};
		saved = (await execute([company('Active'), company('Active'), company('Active')], 1)).data;
		saved = (await execute([company('Inactive'), company('Active'), company('Active')], 2)).data;
		// A and B at once, from the same static data; n8n saves B's first and A's last.
		const [a, b] = await Promise.all([
			execute([company('Inactive'), company('Inactive'), company('Active')], 3),
			execute([company('Inactive'), company('Inactive'), company('Active')], 3),
		]);
		// The change is reported once between them.
		expect([...a.events, ...b.events]).toEqual(['1:turnedInactive']);
		saved = b.data;
		saved = a.data;
		const next = await execute(
			[company('Inactive'), company('Inactive'), company('Active', 'Alpha AG')],
			4,
		);
		expect(next.events).toEqual(['2:detailsChanged']);
	});
});

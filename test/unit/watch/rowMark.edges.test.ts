import { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import type { CompanyRecord } from '../../../nodes/shared/model/companyRecord';
import type { LookupKey } from '../../../nodes/shared/model/lookupKey';
import { company, helpersOf, STORE_CONTEXT, type StoreMethod } from './storeFixtures';
import { runOnStore } from './storeRun';

// Main-process runs (the static data loaded, its row's mark) after other runs wrote the row, case by
// case: a worker's row, a lost save, an emptied row, companies not named, and store calls that fail.

const keys: LookupKey[] = [0, 1, 2].map((index) => ({
	countryCode: 'de',
	companyId: `HRB${index}`,
}));

function watch(store = new HarnessStore()) {
	const calls: string[] = [];
	const removed: string[][] = [];
	/** A store call of the next run that fails, with the one more try it is given. */
	let failing: { method: StoreMethod; from: number; made: number } | undefined;
	const failed = (method: StoreMethod) => {
		if (failing?.method !== method) return false;
		failing.made += 1;
		return failing.made >= failing.from && failing.made <= failing.from + 1;
	};
	const helpers = helpersOf(store, {
		calls,
		withRemove: true,
		removed,
		fails: (method) => (failed(method) ? new Error('deadlock detected') : undefined),
	});
	let saved: Record<string, unknown> = {};
	let day = 0;
	/**
	 * `records[i]` undefined: company i is not named (the static data keeps it). `staticData`: 'loaded' (a
	 * main process), 'none' (a queue-mode worker), 'lost' (loaded, its save lost). `unchecked`: named,
	 * their lookups failed.
	 */
	const run = async (
		records: Array<CompanyRecord | undefined>,
		staticData: 'loaded' | 'none' | 'lost' = 'loaded',
		unchecked: number[] = [],
	) => {
		day += 1;
		calls.length = 0;
		const { found, data } = await runOnStore(
			helpers,
			staticData === 'none' ? undefined : saved,
			records.flatMap((record, itemIndex) =>
				record && !unchecked.includes(itemIndex)
					? [{ key: keys[itemIndex], record, itemIndex }]
					: [],
			),
			unchecked.map((index) => keys[index]),
			day,
		).finally(() => (failing = undefined));
		if (staticData === 'loaded') saved = data;
		return {
			events: found.map((change) => `${change.itemIndex}:${change.change.event}`),
			changes: found.map((change) => change.change.changes),
			calls: [...calls],
		};
	};
	return {
		run,
		removed,
		store,
		fail: (method: StoreMethod, from: number) => (failing = { method, from, made: 0 }),
	};
}

const A = company('Active');
const I = company('Inactive');
const moved = (record: CompanyRecord, officialName: string, registeredAddress: string) =>
	({ ...record, officialName, registeredAddress }) as CompanyRecord;

describe('a main-process run whose row another run wrote', () => {
	it("a run whose save was lost wrote the row: its mark is not the static data's, and a change back is reported", async () => {
		const { run } = watch();
		await run([A, A, A]);
		expect((await run([I, A, A], 'lost')).events).toEqual(['0:turnedInactive']);
		expect((await run([A, A, A])).events).toEqual(['0:turnedActive']);
	});

	it("a worker's row confirms the static data's old name and address: reported with them", async () => {
		const { run } = watch();
		await run([A, A, A]);
		expect((await run([A, A, I], 'none')).events).toEqual(['2:turnedInactive']);
		const found = await run([A, moved(A, 'Alpha AG', 'Ring 2'), I]);
		expect(found.events).toEqual(['1:detailsChanged']);
		expect(found.changes).toEqual([
			{
				officialName: { previous: 'Alpha GmbH', current: 'Alpha AG' },
				registeredAddress: { previous: 'Hauptstr. 1', current: 'Ring 2' },
			},
		]);
	});

	it('failing at the write after the clear, the row written back keeps the old name and address: reported again by the next run', async () => {
		const { run, fail } = watch();
		await run([A, A, A]);
		await run([A, A, I], 'none');
		const changed = [A, moved(A, 'Alpha AG', 'Ring 2'), I];
		// Step 1 (the mark and the companies not as saved), the rest of step 1, step 2, then the write.
		fail('checkProcessedAndRecord', 4);
		await expect(run(changed)).rejects.toThrow('deadlock detected');
		const found = await run(changed);
		expect(found.events).toEqual(['1:detailsChanged']);
		expect(found.changes[0]).toEqual({
			officialName: { previous: 'Alpha GmbH', current: 'Alpha AG' },
			registeredAddress: { previous: 'Hauptstr. 1', current: 'Ring 2' },
		});
	});

	it('failing at the rest of step 1, the run fails with its own error and the next run reports the change', async () => {
		const { run, fail } = watch();
		await run([A, A, A]);
		await run([A, A, A], 'none');
		fail('checkProcessedAndRecord', 2);
		await expect(run([A, I, A])).rejects.toThrow('deadlock detected');
		expect((await run([A, I, A])).events).toEqual(['1:turnedInactive']);
	});

	it('a company not named, asked in full and held, is carried whole: its rename is reported when named again', async () => {
		const { run } = watch();
		await run([A, A, A]);
		await run([A, A, A], 'none');
		expect((await run([A, A, undefined])).events).toEqual([]);
		expect((await run([A, A, company('Active', 'Alpha AG')])).events).toEqual(['2:detailsChanged']);
	});

	it('a company not named whose row holds another status than the static data is asked again while not named: its change is not reported twice', async () => {
		const { run } = watch();
		await run([A, A, A]);
		expect((await run([A, A, I], 'none')).events).toEqual(['2:turnedInactive']);
		// Not named: the row's status is kept, the static data's snapshot (Active) is not the row's.
		expect((await run([A, A, undefined])).events).toEqual([]);
		expect((await run([A, A, undefined])).events).toEqual([]);
		expect((await run([A, A, I])).events).toEqual([]);
	});
});

describe('a company not named whose registration a worker saw change', () => {
	const NOT_REGISTERED = { isRegistered: false } as CompanyRecord;

	it('deregistered meanwhile (the static data: Active): the row keeps it not registered', async () => {
		const { run } = watch();
		await run([A, A]);
		expect((await run([A, NOT_REGISTERED], 'none')).events).toEqual(['1:deregistered']);
		await run([A, undefined]);
		expect((await run([A, A], 'none')).events).toEqual(['1:reregistered']);
	});

	it('reregistered meanwhile (the static data: not registered): its statuses are asked, the row keeps Active, and its turn inactive is reported', async () => {
		const { run } = watch();
		await run([NOT_REGISTERED, A]);
		expect((await run([A, A], 'none')).events).toEqual(['0:reregistered']);
		// Step 1: the mark, not held, with its patch (nothing changed: the patch's marker alone); the rest of
		// step 1 (its status entry, not registered, and in the same call its two other statuses, the other
		// company's three, whether the row holds patches and whether a failed run emptied the row as
		// marked); step 2: its three statuses again (step 1 found Active alone: still held?).
		expect((await run([undefined, A])).calls).toEqual([
			'record 2',
			'record 8',
			'record 3',
			'clear',
			'record 6',
		]);
		expect((await run([I, A], 'none')).events).toEqual(['0:turnedInactive']);
	});
});

describe('a main-process run on an emptied row (a crash between the clear and the write)', () => {
	// Not the static data: a worker may have reported from the row before it was emptied (emptiedRow.test.ts).
	it('with a company not named: all new, counted, a new baseline; the next change is reported', async () => {
		const { run, store } = watch();
		await run([A, A, A]);
		await store.clearAllProcessedItems('node', STORE_CONTEXT);
		expect((await run([I, A, undefined])).events).toEqual([]);
		expect((await run([A, A, A])).events).toEqual(['0:turnedActive']);
	});

	it('the count failing: the run fails with its own error, and leaves the row empty', async () => {
		const { run, store, fail } = watch();
		await run([A, A, A]);
		await store.clearAllProcessedItems('node', STORE_CONTEXT);
		fail('getProcessedDataCount', 1);
		await expect(run([I, A, A])).rejects.toThrow('deadlock detected');
		expect(store.entriesOf('w', 'n')).toBe(0);
		expect((await run([I, A, A])).events).toEqual([]);
	});
});

describe('quiet main-process runs', () => {
	it("each keeps the mark and appends its patch's marker: the next asks the mark and the markers", async () => {
		const { run } = watch();
		await run([A, A, A]);
		// The first run, unmarked, wrote no block entry (a main process's first run writes none): the row
		// is as the mark says from the first marked run on. The mark and this run's marker; then the last
		// run's marker too (held).
		expect((await run([A, A, A])).calls).toEqual(['record 2']);
		expect((await run([A, A, A])).calls).toEqual(['record 3']);
		expect((await run([A, A, A])).calls).toEqual(['record 3']);
		expect((await run([A, A, A])).calls).toEqual(['record 3']);
	});
});

describe('a marked main-process run that finds a change', () => {
	it('writes the row anew though it would hold as many entries: its old status goes, and a change back is reported', async () => {
		const { run } = watch();
		await run([A, A, A]);
		await run([A, A, A]);
		// As many entries as the row held (status for status), the changed company's new status recorded
		// (with the mark, the markers of the last patch and the next, and whether the row holds patches: a
		// patch would pass a tenth of a row this short).
		expect(await run([I, A, A])).toEqual({
			events: ['0:turnedInactive'],
			changes: [{ status: { previous: 'Active', current: 'Inactive' } }],
			calls: ['record 7', 'clear', 'record 10'],
		});
		expect((await run([A, A, A])).events).toEqual(['0:turnedActive']);
	});

	it('a quiet run with a company not checked that the static data lacks leaves the row as it is: its turn inactive is reported', async () => {
		const { run } = watch();
		await run([A, A]);
		// A worker wrote the row with company 2; the static data never held it.
		await run([A, A, A], 'none');
		await run([A, A, A], 'loaded', [2]);
		// Marked, company 2 not checked again: the row holds its status alone, as the mark says; the run
		// appends its patch (its marker alone) and asks nothing of company 2.
		expect((await run([A, A, A], 'loaded', [2])).calls).toEqual(['record 2']);
		expect((await run([A, A, I])).events).toEqual(['2:turnedInactive']);
	});
});

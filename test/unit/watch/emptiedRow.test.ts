import { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import type { CompanyRecord } from '../../../nodes/shared/model/companyRecord';
import type { LookupKey } from '../../../nodes/shared/model/lookupKey';
import { detectChanges } from '../../../nodes/shared/watch/detector';
import { StaticDataMemory } from '../../../nodes/shared/watch/memory';
import { ProcessedItemsMemory } from '../../../nodes/shared/watch/processedItemsMemory';
import { company, helpersOf, STORE_CONTEXT, type StoreMethod } from './storeFixtures';
import { runOnStore } from './storeRun';

// The store's row found empty by a main process whose static data a run with the store saved (issue 22,
// "no false alert, ever"): the static data cannot say whether other runs reported since (a queue-mode
// worker, a run whose save was lost), so it is not the memory; every company starts a new baseline. The
// row is emptied by a run that dies between its clear and its write, or whose write and write-back both
// fail, or by the undo of a failed run past its bound. Found by overlap.redteam with the memory's own
// capacity (seed 195: a worker whose write failed after its clear on a trimmed row had nothing to write
// back); here with room enough, the row emptied by a failing store.

const keys: LookupKey[] = [0, 1].map((index) => ({ countryCode: 'de', companyId: `HRB${index}` }));
const named = (records: CompanyRecord[]) =>
	keys.map((key, itemIndex) => ({ key, record: records[itemIndex], itemIndex }));
const events = (found: Awaited<ReturnType<typeof runOnStore>>['found']) =>
	found.map((change) => `${change.itemIndex}:${change.change.event}`);

/** A store whose calls fail from the moment `failFrom` is called, once `after` more have passed (by method). */
function failingStore() {
	const store = new HarnessStore();
	let failing: ((method: StoreMethod) => boolean) | undefined;
	const helpers = helpersOf(store, {
		withRemove: true,
		fails: (method) => (failing?.(method) ? new Error('connection lost') : undefined),
	});
	return {
		store,
		helpers,
		/** Every call after the first clear fails (the database went away right after it). */
		failAfterClear: () => {
			let cleared = false;
			failing = (method) => {
				if (cleared) return true;
				if (method === 'clearAllProcessedItems') cleared = true;
				return false;
			};
		},
		heal: () => (failing = undefined),
	};
}

describe("a row emptied since the main process's static data was saved", () => {
	it('a worker reported a change, the next run emptied the row (its write and write-back failed): the main process reports nothing, not the change again', async () => {
		const { store, helpers, failAfterClear, heal } = failingStore();
		const { data: saved } = await runOnStore(
			helpers,
			{},
			named([company('Active'), company('Active')]),
			[],
			1,
		);
		// A queue-mode worker (no static data) reports the change.
		const onWorker = await runOnStore(
			helpers,
			undefined,
			named([company('Inactive'), company('Active')]),
			[],
			2,
		);
		expect(events(onWorker.found)).toEqual(['0:turnedInactive']);
		// The next worker run finds a change, clears the row and cannot write it again.
		failAfterClear();
		await expect(
			runOnStore(helpers, undefined, named([company('Inactive'), company('Inactive')]), [], 3),
		).rejects.toThrow('connection lost');
		heal();
		expect(store.entriesOf('w', 'n')).toBe(0);
		// The main process loads the static data of day 1: older than the worker's report.
		const onMain = await runOnStore(
			helpers,
			saved,
			named([company('Inactive'), company('Inactive')]),
			[],
			4,
		);
		expect(events(onMain.found)).toEqual([]);
		// A new baseline: the next change is reported once.
		const after = await runOnStore(
			helpers,
			onMain.data,
			named([company('Active'), company('Inactive')]),
			[],
			5,
		);
		expect(events(after.found)).toEqual(['0:turnedActive']);
	});

	it("a main process's run whose save was lost reported a change, a worker's run emptied the row: the static data is not taken as the memory", async () => {
		const { store, helpers, failAfterClear, heal } = failingStore();
		const { data: saved } = await runOnStore(
			helpers,
			{},
			named([company('Active'), company('Active')]),
			[],
			1,
		);
		// Reported, and its static data never saved (a later node failed the execution).
		const lost = await runOnStore(
			helpers,
			saved,
			named([company('Inactive'), company('Active')]),
			[],
			2,
		);
		expect(events(lost.found)).toEqual(['0:turnedInactive']);
		failAfterClear();
		await expect(
			runOnStore(helpers, saved, named([company('Inactive'), company('Inactive')]), [], 3),
		).rejects.toThrow('connection lost');
		heal();
		expect(store.entriesOf('w', 'n')).toBe(0);
		const onMain = await runOnStore(
			helpers,
			saved,
			named([company('Inactive'), company('Inactive')]),
			[],
			4,
		);
		expect(events(onMain.found)).toEqual([]);
	});

	it('a row too long to mark: the static data still says a run with the store saved it, and the row emptied since is a new baseline', async () => {
		const store = new HarnessStore();
		const run = async (saved: Record<string, unknown>, records: CompanyRecord[], day: number) => {
			const data = JSON.parse(JSON.stringify(saved)) as Record<string, unknown>;
			const found = await detectChanges(
				// Room for 5 entries: two companies' six and their block do not fit, so no mark.
				new ProcessedItemsMemory(
					helpersOf(store),
					new StaticDataMemory(data, { warn: () => undefined }, () => true),
					5,
				),
				named(records),
				[],
				{ now: new Date(Date.UTC(2026, 0, day)), reportFirstSightings: false },
			);
			return { found, data };
		};
		const first = await run({}, [company('Active'), company('Active')], 1);
		expect(first.data.storeRow).toEqual({});
		await store.clearAllProcessedItems('node', STORE_CONTEXT);
		const next = await run(first.data, [company('Inactive'), company('Active')], 2);
		expect(events(next.found)).toEqual([]);
	});

	// The mark is one entry past the companies': a row of exactly the capacity has no room for it (n8n
	// would trim the first company's status entry, and the mark would vouch for a row that lost it).
	it.each([
		[6, false],
		[7, true],
	])('a row of six entries with room for %i is marked: %s', async (capacity, marked) => {
		const data: Record<string, unknown> = {};
		await detectChanges(
			new ProcessedItemsMemory(
				helpersOf(new HarnessStore()),
				new StaticDataMemory(data, { warn: () => undefined }, () => true),
				capacity,
			),
			named([company('Active'), company('Active')]),
			[],
			{ now: new Date(Date.UTC(2026, 0, 1)), reportFirstSightings: false },
		);
		if (marked) expect(data.storeRow).toHaveProperty('token');
		else expect(data.storeRow).toEqual({});
	});

	it('static data no run with the store saved (a watch kept in static data alone before): the memory of the empty row', async () => {
		const data: Record<string, unknown> = {};
		await detectChanges(
			new StaticDataMemory(data, { warn: () => undefined }, () => true),
			named([company('Active'), company('Active')]),
			[],
			{ now: new Date(Date.UTC(2026, 0, 1)), reportFirstSightings: false },
		);
		expect(Object.keys(data)).toEqual(['companies']);
		const { helpers } = failingStore();
		const next = await runOnStore(
			helpers,
			data,
			named([company('Inactive'), company('Active')]),
			[],
			2,
		);
		expect(events(next.found)).toEqual(['0:turnedInactive']);
		// This run wrote the row, and marked it.
		expect(next.data.storeRow).toHaveProperty('token');
	});

	// All the main process asked new, not even its mark held, but the row holds more: not an emptied row.
	// A worker's row holds the company's old status, name and address: asked, its old status is found.
	it('a row a worker wrote holding only the old entries of a company changed in status, name and address at once: its change is reported', async () => {
		const store = new HarnessStore();
		const helpers = helpersOf(store);
		const one = (record: CompanyRecord) => [{ key: keys[0], record, itemIndex: 0 }];
		const { data: saved } = await runOnStore(helpers, {}, one(company('Active')), [], 1);
		await runOnStore(helpers, undefined, one(company('Active')), [], 2);
		const moved = {
			...company('Inactive', 'Beta AG'),
			registeredAddress: 'Ring 2',
		} as CompanyRecord;
		const next = await runOnStore(helpers, saved, one(moved), [], 3);
		expect(next.found.map((change) => change.change.event)).toEqual(['turnedInactive']);
	});

	it('a run without the store (n8n offered none) saves no storeRow: a row found empty later is then not taken as emptied since', async () => {
		const { helpers } = failingStore();
		const { data: saved } = await runOnStore(
			helpers,
			{},
			named([company('Active'), company('Active')]),
			[],
			1,
		);
		expect(saved).toHaveProperty('storeRow');
		await detectChanges(
			new StaticDataMemory(saved, { warn: () => undefined }, () => true),
			named([company('Inactive'), company('Active')]),
			[],
			{ now: new Date(Date.UTC(2026, 0, 2)), reportFirstSightings: false },
		);
		expect(Object.keys(saved)).toEqual(['companies']);
	});
});

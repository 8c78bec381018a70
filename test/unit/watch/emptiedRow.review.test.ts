import { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import type { CompanyRecord } from '../../../nodes/shared/model/companyRecord';
import type { CheckedCompany } from '../../../nodes/shared/watch/detector';
import { StaticDataMemory } from '../../../nodes/shared/watch/memory';
import { ProcessedItemsMemory } from '../../../nodes/shared/watch/processedItemsMemory';
import { snapshotOf, watchKey, type CompanySnapshot } from '../../../nodes/shared/watch/snapshot';
import { company, helpersOf, type StoreMethod } from './storeFixtures';
import { runOnStore } from './storeRun';

// Review of capgap (session 42): two cases where the static data is still taken as the memory of a row
// found empty (or emptied) although a worker reported from the row since it was saved: a change reported
// twice, issue 22's "no false alert, ever".

const events = (found: Awaited<ReturnType<typeof runOnStore>>['found']) =>
	found.map((change) => `${change.itemIndex}:${change.change.event}`);

/** A store whose calls fail from the moment `failAfterClear` is called, once the first clear went through. */
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

describe('review: static data saved by the version before (e5f6aea) with the store in use, no storeRow', () => {
	// e5f6aea saved `storeRow` only with a mark (memory.ts: `if (this.nextRowMark) ... else delete`): a
	// main process's quiet run on a row a worker wrote (markRow(undefined)), or any run on a row too long to
	// mark (over 161,290 companies), left static data with the companies and no storeRow. After the upgrade
	// `savedWithStore` is false for it, and it is taken as the memory of an emptied row as before capgap.
	it('a worker reports a change after the upgrade, the next worker empties the row: the main process does not report it again', async () => {
		const { store, helpers, failAfterClear, heal } = failingStore();
		const keys = [0, 1].map((index) => ({ countryCode: 'de', companyId: `HRB${index}` }));
		const named = (records: CompanyRecord[]) =>
			keys.map((key, itemIndex) => ({ key, record: records[itemIndex], itemIndex }));
		// Before the upgrade: workers wrote the row; a main process's quiet run saved the companies and,
		// as e5f6aea did on that path, no storeRow.
		await runOnStore(helpers, undefined, named([company('Active'), company('Active')]), [], 1);
		const { data } = await runOnStore(
			helpers,
			{},
			named([company('Active'), company('Active')]),
			[],
			2,
		);
		// Quiet, on a row a worker wrote: no mark (this version saves `storeRow: {}`; e5f6aea saved none).
		expect(data.storeRow).toEqual({});
		const savedByE5f6aea = { companies: data.companies };
		// After the upgrade: a worker reports the change.
		const onWorker = await runOnStore(
			helpers,
			undefined,
			named([company('Inactive'), company('Active')]),
			[],
			3,
		);
		expect(events(onWorker.found)).toEqual(['0:turnedInactive']);
		// The next worker finds another change, clears the row, and cannot write it again.
		failAfterClear();
		await expect(
			runOnStore(helpers, undefined, named([company('Inactive'), company('Inactive')]), [], 4),
		).rejects.toThrow('connection lost');
		heal();
		expect(store.entriesOf('w', 'n')).toBe(0);
		const onMain = await runOnStore(
			helpers,
			savedByE5f6aea,
			named([company('Inactive'), company('Inactive')]),
			[],
			5,
		);
		// Fails on 424bf78: ['0:turnedInactive', '1:turnedInactive'] (company 0's change reported twice).
		expect(events(onMain.found)).not.toContain('0:turnedInactive');
	});
});

describe("review: the undo's 'row emptied' entry when a worker wrote the row during the failed run", () => {
	// undoRecorded writes rowEmptiedEntry where the row held the mark at step 1 (rowAsMarked): "no other run
	// wrote the row since the one that saved that static data". A worker that ran between this run's step 1
	// and its failure reported a change and wrote the row; the undo's clear takes that row, and the entry
	// vouches for the old static data: the next main process reports the worker's change again.
	const COMPANIES = 6_000;
	// Enough changed companies that the undo clears the row (UNDO_MAX_SEARCHED_ENTRIES), as in undoBound.test.
	const CHANGED_ON_MAIN = 3_000;
	const LAST = COMPANIES - 1;
	const checked = (inactive: (index: number) => boolean): CheckedCompany[] =>
		Array.from({ length: COMPANIES }, (_, index) => ({
			key: { countryCode: 'de', companyId: `HRB${index}` },
			record: company(inactive(index) ? 'Inactive' : 'Active'),
			itemIndex: index,
		}));

	it('the next main process does not report the change the worker reported', async () => {
		const store = new HarnessStore();
		let clears = 0;
		let failing = false;
		const helpers = helpersOf(store, {
			withRemove: true,
			fails: (method: StoreMethod) => {
				if (!failing || method !== 'clearAllProcessedItems') return undefined;
				clears += 1;
				return clears <= 2 ? new Error('deadlock detected') : undefined;
			},
		});
		const { data } = await runOnStore(
			helpers,
			{},
			checked(() => false),
			[],
			1,
		);
		// The main process's run: its recall finds the row as marked, and 3,000 companies changed.
		const onMainNow = checked((index) => index < CHANGED_ON_MAIN);
		const current = new Map<string, CompanySnapshot>();
		const day = Date.UTC(2026, 0, 2) / 86_400_000;
		for (const { key, record } of onMainNow) current.set(watchKey(key), snapshotOf(record, day));
		const staticData = JSON.parse(JSON.stringify(data)) as Record<string, unknown>;
		const memory = new ProcessedItemsMemory(
			helpers,
			new StaticDataMemory(staticData, { warn: () => undefined }, () => true),
		);
		await memory.recall(current, []);
		// Meanwhile a worker's run: the last company turned inactive too; reported, and the row written.
		const worker = await runOnStore(
			helpers,
			undefined,
			checked((index) => index < CHANGED_ON_MAIN || index === LAST),
			[],
			2,
		);
		expect(events(worker.found)).toEqual([`${LAST}:turnedInactive`]);
		// The main process's clear fails (and its retry): the undo clears the row, and writes 'row emptied'.
		failing = true;
		await expect(memory.remember(current, [])).rejects.toThrow('deadlock detected');
		failing = false;
		const next = await runOnStore(
			helpers,
			data,
			checked((index) => index < CHANGED_ON_MAIN || index === LAST),
			[],
			3,
		);
		// Fails on 424bf78: the worker's change is reported again from the static data of day 1.
		expect(events(next.found).filter((event) => event.startsWith(`${LAST}:`))).toEqual([]);
	});
});

import { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import type { CompanyRecord } from '../../../nodes/shared/model/companyRecord';
import type { LookupKey } from '../../../nodes/shared/model/lookupKey';
import { detectChanges, type CheckedCompany } from '../../../nodes/shared/watch/detector';
import { StaticDataMemory } from '../../../nodes/shared/watch/memory';
import { ProcessedItemsMemory } from '../../../nodes/shared/watch/processedItemsMemory';
import { snapshotOf, watchKey, type CompanySnapshot } from '../../../nodes/shared/watch/snapshot';
import type { ProcessedItemsStore } from '../../../nodes/shared/watch/storeRow';
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

	// Strict (review of capgap): static data without a mark cannot tell a watch kept in static data alone from
	// one an earlier version (e5f6aea) saved, with the store in use, on a row a worker wrote: never the memory.
	it('static data no run with the store saved (a watch kept in static data alone before): a new baseline on the empty row, without an event', async () => {
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
		expect(events(next.found)).toEqual([]);
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

	it("a run without the store (n8n offered none) saves no storeRow: the row's mark, untrue once that run left the row behind, is dropped", async () => {
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

describe('static data saved by the version before (e5f6aea) with the store in use, no storeRow (found in review)', () => {
	// e5f6aea saved `storeRow` only with a mark (memory.ts: `if (this.nextRowMark) ... else delete`): a
	// main process's quiet run on a row a worker wrote (markRow(undefined)), or any run on a row too long to
	// mark (over 161,290 companies), left static data with the companies and no storeRow. After the upgrade
	// It was taken as the memory of an emptied row (as a watch kept in static data alone); no longer: static
	// data without a mark is never the memory of an empty row.
	it('a worker reports a change after the upgrade, the next worker empties the row: the main process does not report it again', async () => {
		const { store, helpers, failAfterClear, heal } = failingStore();
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
		// Failed on 424bf78: ['0:turnedInactive', '1:turnedInactive'] (company 0's change reported twice).
		expect(events(onMain.found)).not.toContain('0:turnedInactive');
	});
});

describe("the undo's 'row emptied' entry when a worker wrote the row during the failed run (found in review)", () => {
	// undoRecorded wrote rowEmptiedEntry where the row held the mark at step 1 (rowAsMarked). A worker that
	// ran between this run's step 1 and its failure reported a change and wrote the row; the undo's clear took
	// that row, and the entry vouched for the old static data: the next main process reported the worker's
	// change again. The undo now asks the mark again before its clear.
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
		// Failed on 424bf78: the worker's change was reported again from the static data of day 1.
		expect(events(next.found).filter((event) => event.startsWith(`${LAST}:`))).toEqual([]);
	});
	// The entry names the mark's token: it vouches for that static data alone. Older static data with its own
	// mark (a workflow restored from a backup) finds the row emptied but not as its mark says.
	it("static data older than the undo's (restored from a backup) is not the memory of the emptied row", async () => {
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
		const { data: backup } = await runOnStore(
			helpers,
			{},
			checked(() => false),
			[],
			1,
		);
		const reported = await runOnStore(
			helpers,
			backup,
			checked((index) => index === LAST),
			[],
			2,
		);
		expect(events(reported.found)).toEqual([`${LAST}:turnedInactive`]);
		// The next run changes 3,000 more and fails at its clear: its undo empties the row, as marked.
		const onMainNow = checked((index) => index < CHANGED_ON_MAIN || index === LAST);
		const current = new Map<string, CompanySnapshot>();
		const day = Date.UTC(2026, 0, 3) / 86_400_000;
		for (const { key, record } of onMainNow) current.set(watchKey(key), snapshotOf(record, day));
		const memory = new ProcessedItemsMemory(
			helpers,
			new StaticDataMemory(
				JSON.parse(JSON.stringify(reported.data)) as Record<string, unknown>,
				{ warn: () => undefined },
				() => true,
			),
		);
		await memory.recall(current, []);
		failing = true;
		await expect(memory.remember(current, [])).rejects.toThrow('deadlock detected');
		failing = false;
		expect(store.entriesOf('w', 'n')).toBe(1);
		// The workflow restored with the static data of day 1: the change of day 2 is not reported again.
		const restored = await runOnStore(helpers, backup, onMainNow, [], 4);
		expect(events(restored.found).filter((event) => event.startsWith(`${LAST}:`))).toEqual([]);
	});
	it('an undo that cannot ask the mark again writes no emptied entry: the next main process starts a new baseline', async () => {
		const store = new HarnessStore();
		let clears = 0;
		let records = 0;
		let failing = false;
		const helpers = helpersOf(store, {
			withRemove: true,
			fails: (method: StoreMethod) => {
				if (!failing) return undefined;
				// The clear (and its retry) fail, then the undo's ask of the mark (and its retry).
				if (method === 'clearAllProcessedItems') clears += 1;
				else if (method === 'checkProcessedAndRecord') records += 1;
				else return undefined;
				const count = method === 'clearAllProcessedItems' ? clears : records;
				return count <= 2 ? new Error('deadlock detected') : undefined;
			},
		});
		const { data } = await runOnStore(
			helpers,
			{},
			checked(() => false),
			[],
			1,
		);
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
		failing = true;
		await expect(memory.remember(current, [])).rejects.toThrow('deadlock detected');
		failing = false;
		// Cleared, with no entry vouching for the static data.
		expect(store.entriesOf('w', 'n')).toBe(0);
		const next = await runOnStore(helpers, data, onMainNow, [], 3);
		expect(events(next.found)).toEqual([]);
	});
});

// Review minor (a): the undo's 'row emptied' entry left in a row another run wrote afterwards. The undo asks
// the mark, clears, then writes the entry: a worker whose clear and write fall between the last two leaves
// its row with the entry after it. The entry is asked only by a run whose static data holds that mark, and
// vouches for the static data only where the row counts nothing but it and what that run recorded: the
// worker's entries are counted, so its row is read, and what it reported is not reported again. (A rule
// trusting the entry alone, without the count, reports the worker's change again from the old static data.)
describe("the undo's 'row emptied' entry left in a row a worker wrote afterwards (review minor a)", () => {
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
	const snapshots = (companies: CheckedCompany[], day: number) => {
		const current = new Map<string, CompanySnapshot>();
		for (const { key, record } of companies)
			current.set(watchKey(key), snapshotOf(record, Date.UTC(2026, 0, day) / 86_400_000));
		return current;
	};

	it("is read with the worker's row: the change the worker reported is not reported again", async () => {
		const store = new HarnessStore();
		let clears = 0;
		let failing = false;
		/** Run right after the undo's clear, before its emptied entry is written. */
		let afterClear: (() => Promise<void>) | undefined;
		const base = helpersOf(store, {
			withRemove: true,
			fails: (method: StoreMethod) => {
				if (!failing || method !== 'clearAllProcessedItems') return undefined;
				clears += 1;
				return clears <= 2 ? new Error('deadlock detected') : undefined;
			},
		});
		const helpers: ProcessedItemsStore = {
			...base,
			clearAllProcessedItems: async (...args) => {
				await base.clearAllProcessedItems(...args);
				const then = afterClear;
				afterClear = undefined;
				await then?.();
			},
		};
		const { data } = await runOnStore(
			helpers,
			{},
			checked(() => false),
			[],
			1,
		);
		// The main process's run: its row as marked, 3,000 companies changed.
		const onMain = snapshots(
			checked((index) => index < CHANGED_ON_MAIN),
			2,
		);
		const mainMemory = new ProcessedItemsMemory(
			helpers,
			new StaticDataMemory(
				JSON.parse(JSON.stringify(data)) as Record<string, unknown>,
				{ warn: () => undefined },
				() => true,
			),
		);
		await mainMemory.recall(onMain, []);
		// A worker's run meanwhile: the last company turned inactive, and the worker sees it.
		const onWorker = snapshots(
			checked((index) => index < CHANGED_ON_MAIN || index === LAST),
			2,
		);
		const workerMemory = new ProcessedItemsMemory(helpers);
		const lastId = watchKey({ countryCode: 'de', companyId: `HRB${LAST}` });
		expect((await workerMemory.recall(onWorker, [])).get(lastId)?.previous.s).toBe('A');
		// The main process's clear fails (and its retry): its undo asks the mark (held), clears the row,
		// and the worker's step 3 (clear, write) comes before the undo writes 'row emptied'.
		failing = true;
		afterClear = async () => {
			failing = false;
			await workerMemory.remember(onWorker, []);
		};
		await expect(mainMemory.remember(onMain, [])).rejects.toThrow('deadlock detected');
		// The worker's row (three entries a company, a block per 10) and, after it, the emptied entry.
		expect(store.entriesOf('w', 'n')).toBe(COMPANIES * 3 + COMPANIES / 10 + 1);
		// The next main process, with the static data of day 1 and its mark: the entry is held.
		const next = await runOnStore(
			helpers,
			data,
			checked((index) => index < CHANGED_ON_MAIN || index === LAST),
			[],
			3,
		);
		expect(events(next.found).filter((event) => event.startsWith(`${LAST}:`))).toEqual([]);
	});
});

describe('a row trimmed to exactly what the main process recorded and the emptied entry', () => {
	// Nothing held, not even the mark, and the row counts what was recorded + 1: empty before (or holding
	// the emptied entry alone) only if the row had room for more; trimmed to its capacity, it held more.
	/** The story with room for `capacity`: a main process's run, a worker's, and the main process again, everything moved. */
	const story = async (capacity: number) => {
		const store = new HarnessStore();
		const calls: string[] = [];
		const run = async (saved: Record<string, unknown> | undefined, records: CompanyRecord[]) => {
			const data = saved && (JSON.parse(JSON.stringify(saved)) as Record<string, unknown>);
			// Room for 8 (the first story): a main process's 2 companies (6 entries and the mark), a worker's (6 and a block).
			const found = await detectChanges(
				new ProcessedItemsMemory(
					helpersOf(store, { calls }),
					data && new StaticDataMemory(data, { warn: () => undefined }, () => true),
					capacity,
				),
				named(records),
				[],
				{ now: new Date(Date.UTC(2026, 0, 1)), reportFirstSightings: false },
			);
			return { found, data };
		};
		const { data: saved } = await run({}, [company('Active'), company('Active')]);
		expect(saved?.storeRow).toHaveProperty('token');
		await run(undefined, [company('Active'), company('Active')]);
		const moved = {
			...company('Inactive', 'Beta AG'),
			registeredAddress: 'Ring 2',
		} as CompanyRecord;
		calls.length = 0;
		await run(saved, [moved, moved]);
		return calls;
	};

	it('is not taken as empty: the old statuses are asked', async () => {
		// Step 1: the mark, the next patch's marker, whether the row holds patches and 6 entries (all new: 9
		// recorded), then the emptied entry; the row, trimmed to 8, is not counted as a sign of an empty one,
		// and step 2 asks the old statuses.
		expect((await story(8)).slice(0, 3)).toEqual([
			'record 9',
			'record 1',
			expect.stringMatching(/^record /),
		]);
	});

	// Room for exactly the 10 entries recorded: a count of 10 cannot tell an empty row from a trimmed one;
	// room for one more, it can (the row trimmed to 11 counts 11).
	it.each([
		[10, false],
		[11, true],
	])('with room for %i, counted: %s', async (capacity, counted) => {
		expect((await story(capacity))[2] === 'count').toBe(counted);
	});
});

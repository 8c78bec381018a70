import { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import type { CheckedCompany } from '../../../nodes/shared/watch/detector';
import { company, helpersOf, type StoreMethod } from './storeFixtures';
import { runOnStore } from './storeRun';

// A run that fails after step 1 takes back the entries it recorded. n8n's removeProcessed searches the
// whole row once per value: a worker whose folded step 1 recorded thousands of entries (questions of a
// quarter of its companies) would search a row of tens of thousands that many times (at 100,000 companies:
// minutes of synchronous work in the worker, its job lock lost). Past the bound the row is cleared instead.

const COMPANIES = 6_000;
// A quarter of the companies changed: a worker folds step 2's questions into step 1's call.
const CHANGED = 1_500;
// A main process whose row holds its mark asks no questions of them: its undo is their status entries alone.
const CHANGED_ON_MAIN = 3_000;

const checked = (changedCount: number): CheckedCompany[] =>
	Array.from({ length: COMPANIES }, (_, index) => ({
		key: { countryCode: 'de', companyId: `HRB${index}` },
		record: company(index < changedCount ? 'Inactive' : 'Active'),
		itemIndex: index,
	}));

/** The store, each removeProcessed's values kept, and the first clear (and its one retry) failing. */
function storeFailingAtClear() {
	const store = new HarnessStore();
	const removed: string[][] = [];
	const calls: string[] = [];
	let clears = 0;
	let failing = false;
	const helpers = helpersOf(store, {
		calls,
		withRemove: true,
		removed,
		fails: (method: StoreMethod) => {
			if (!failing || method !== 'clearAllProcessedItems') return undefined;
			clears += 1;
			return clears <= 2 ? new Error('deadlock detected') : undefined;
		},
	});
	return { store, helpers, removed, calls, failAtClear: () => (failing = true) };
}

const events = (found: Awaited<ReturnType<typeof runOnStore>>['found']) =>
	found.map((change) => change.change.event);

describe("a failed run's undo past its bound", () => {
	it('on a worker: the row is cleared, not searched value by value; the next runs start a new baseline and report nothing', async () => {
		const { store, helpers, removed, calls, failAtClear } = storeFailingAtClear();
		await runOnStore(helpers, undefined, checked(0), [], 1);
		failAtClear();
		await expect(runOnStore(helpers, undefined, checked(CHANGED), [], 2)).rejects.toThrow(
			'deadlock detected',
		);
		expect(removed).toEqual([]);
		expect(calls.slice(-3)).toEqual(['clear', 'clear', 'clear']);
		expect(store.entriesOf('w', 'n')).toBe(0);
		expect(events((await runOnStore(helpers, undefined, checked(CHANGED), [], 3)).found)).toEqual(
			[],
		);
		expect(events((await runOnStore(helpers, undefined, checked(CHANGED), [], 4)).found)).toEqual(
			[],
		);
	});

	it('on a main process: the row is cleared, and the next run reports the change from its static data', async () => {
		const { helpers, removed, failAtClear } = storeFailingAtClear();
		// A company the runs after do not name, kept in the static data: the emptied row holds none of its entries either.
		const kept = {
			key: { countryCode: 'de', companyId: 'HRB99999' },
			record: company('Active'),
			itemIndex: COMPANIES,
		};
		const { data } = await runOnStore(helpers, {}, [...checked(0), kept], [], 1);
		failAtClear();
		await expect(runOnStore(helpers, data, checked(CHANGED_ON_MAIN), [], 2)).rejects.toThrow(
			'deadlock detected',
		);
		expect(removed).toEqual([]);
		const next = await runOnStore(helpers, data, checked(CHANGED_ON_MAIN), [], 3);
		expect(events(next.found)).toEqual(Array<string>(CHANGED_ON_MAIN).fill('turnedInactive'));
		expect(
			events((await runOnStore(helpers, next.data, checked(CHANGED_ON_MAIN), [], 4)).found),
		).toEqual([]);
	});

	// The static data vouches for the emptied row only where the row held its mark: a worker that wrote the
	// row since may have reported from it (emptiedRow.test.ts).
	it('on a main process whose row a worker wrote since: the row is cleared, and the next run starts a new baseline', async () => {
		const { store, helpers, failAtClear } = storeFailingAtClear();
		const { data } = await runOnStore(helpers, {}, checked(0), [], 1);
		await runOnStore(helpers, undefined, checked(0), [], 2);
		failAtClear();
		await expect(runOnStore(helpers, data, checked(CHANGED_ON_MAIN), [], 3)).rejects.toThrow(
			'deadlock detected',
		);
		expect(store.entriesOf('w', 'n')).toBe(0);
		expect(
			events((await runOnStore(helpers, data, checked(CHANGED_ON_MAIN), [], 4)).found),
		).toEqual([]);
	});

	// Straddling the bound: a worker with a quarter of its companies changed and 100 named in no row (their
	// statuses asked), the row estimated as three entries a company named, a block per 10 and the values
	// recorded (whether the row holds patches among them). 2,800: 3,871 values × 12,850 entries, 0.5% under;
	// 2,840: 3,871 × 12,974, 0.4% over.
	it.each([
		[2_800, 700, false],
		[2_840, 700, true],
	])(
		'on a worker of %i companies, %i changed: the row cleared %s',
		async (companies, changed, cleared) => {
			const { store, helpers, removed, failAtClear } = storeFailingAtClear();
			const key = (index: number) => ({ countryCode: 'de', companyId: `HRB${index}` });
			const named = (changedCount: number): CheckedCompany[] =>
				Array.from({ length: companies }, (_, index) => ({
					key: key(index),
					record: company(index < changedCount ? 'Inactive' : 'Active'),
					itemIndex: index,
				}));
			const notNamed = Array.from({ length: 100 }, (_, index) => key(companies + index));
			await runOnStore(helpers, undefined, named(0), [], 1);
			const before = store.entriesOf('w', 'n');
			failAtClear();
			await expect(runOnStore(helpers, undefined, named(changed), notNamed, 2)).rejects.toThrow(
				'deadlock detected',
			);
			if (cleared) {
				expect(removed).toEqual([]);
				expect(store.entriesOf('w', 'n')).toBe(0);
			} else {
				expect(removed.map((values) => values.length)).toEqual([3_871]);
				// The row as the last run left it: the change is reported next run.
				expect(store.entriesOf('w', 'n')).toBe(before);
				const next = await runOnStore(helpers, undefined, named(changed), [], 3);
				expect(events(next.found)).toEqual(Array<string>(changed).fill('turnedInactive'));
			}
		},
	);
});

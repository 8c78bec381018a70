import { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import type { CompanyRecord } from '../../../nodes/shared/model/companyRecord';
import type { LookupKey } from '../../../nodes/shared/model/lookupKey';
import { company, helpersOf, notRegistered, STORE_CONTEXT } from './storeFixtures';
import { runOnStore } from './storeRun';

// Issue 22: a main-process run whose static data was saved by the run that wrote the store's row (the row
// still holds that run's mark) asks the store only what the static data cannot prove: the mark and the
// companies whose record differs from the static data's. Any other row is asked in full.

const keys: LookupKey[] = [0, 1, 2, 3].map((index) => ({
	countryCode: 'de',
	companyId: `HRB${index}`,
}));

/** The store's calls, and how many values each was given. */
function watch(store: HarnessStore) {
	const calls: string[] = [];
	const helpers = helpersOf(store, { calls });
	let saved: Record<string, unknown> = {};
	let day = 0;
	/** `staticData`: 'loaded' (a main process), 'none' (a queue-mode worker). */
	/** `unchecked`: the companies whose lookups failed (named, not in `records`). */
	const run = async (
		records: CompanyRecord[],
		staticData: 'loaded' | 'none' = 'loaded',
		unchecked: number[] = [],
	) => {
		day += 1;
		calls.length = 0;
		const { found, data } = await runOnStore(
			helpers,
			staticData === 'none' ? undefined : saved,
			records.flatMap((record, itemIndex) =>
				unchecked.includes(itemIndex) ? [] : [{ key: keys[itemIndex], record, itemIndex }],
			),
			unchecked.map((index) => keys[index]),
			day,
		);
		if (staticData === 'loaded') saved = data;
		return {
			events: found.map(
				(change) =>
					`${change.itemIndex}:${change.change.event}${change.previous?.d !== undefined ? ' (previous known)' : ''}`,
			),
			calls: [...calls],
		};
	};
	return { run, edit: (edit: (saved: Record<string, unknown>) => void) => edit(saved) };
}

/**
 * The row as the version before this one left it, the four companies Active: four entries a company (the
 * whole record first, then status, name and address) and its mark last; returns that mark.
 */
async function earlierVersionRow(store: HarnessStore) {
	await store.clearAllProcessedItems('node', STORE_CONTEXT);
	const row = keys.flatMap(({ companyId }) => {
		const id = JSON.stringify(`de/${companyId}`);
		return [
			`[${id},"company","A","Alpha GmbH","Hauptstr. 1"]`,
			`[${id},"status","A"]`,
			`[${id},"name","Alpha GmbH"]`,
			`[${id},"address","Hauptstr. 1"]`,
		];
	});
	const mark = { token: 'earlier', entries: 16, notAsSaved: [] };
	await store.checkProcessedAndRecord(
		[...row, JSON.stringify(['row written', mark.token, mark.entries, mark.notAsSaved])],
		'node',
		STORE_CONTEXT,
		{ mode: 'entries' },
	);
	return mark;
}

const NOT_REGISTERED = notRegistered();

const ACTIVE = [company('Active'), company('Active'), company('Active'), company('Active')];

describe("a main-process run and the store's row its static data marks", () => {
	it('a run after one change asks the mark and that company, and counts nothing', async () => {
		const { run } = watch(new HarnessStore());
		await run(ACTIVE);
		const changed = [company('Active'), company('Inactive'), company('Active'), company('Active')];
		expect(await run(changed)).toEqual({
			events: ['1:turnedInactive (previous known)'],
			// The mark, that no patch came after it (marker 1) and no reader asked whether the row holds
			// patches, and that company's three entries; the row written anew (three entries a company, and the
			// mark): a patch would pass a tenth of a row this short.
			calls: ['record 6', 'clear', 'record 13'],
		});
		// Quiet: the mark and this run's patch (its marker alone), nothing else written.
		expect(await run(changed)).toEqual({ events: [], calls: ['record 2'] });
	});

	it('after a queue-mode worker wrote the row, every company is asked, and the change the worker reported is not reported again', async () => {
		const { run } = watch(new HarnessStore());
		await run(ACTIVE);
		const renamed = [company('Active'), company('Active', 'Alpha AG'), company('Active')];
		expect((await run([...renamed, company('Active')], 'none')).events).toEqual([
			'1:detailsChanged',
		]);
		// The static data is the first run's: the row, no longer as marked, decides.
		const next = await run([...renamed, company('Inactive')]);
		expect(next.events).toEqual(['3:turnedInactive (previous known)']);
		// Some of the row held: no count; step 2 for the changed company; the row written anew.
		// The mark, marker 1, whether the row holds patches and the two companies unlike the static data, then
		// the other two and whether a failed run emptied the row as marked; step 2: the other two statuses and
		// whether the details are known.
		expect(next.calls).toEqual(['record 9', 'record 7', 'record 3', 'clear', 'record 13']);
	});

	it('a change of the address alone is asked, and reported with the old address', async () => {
		const { run } = watch(new HarnessStore());
		await run(ACTIVE);
		const moved = { ...company('Active'), registeredAddress: 'Ring 2' } as CompanyRecord;
		const found = await run([...ACTIVE.slice(0, 3), moved]);
		expect(found).toEqual({
			events: ['3:detailsChanged (previous known)'],
			calls: ['record 6', 'clear', 'record 13'],
		});
	});

	it('a company whose check failed is carried from the static data, unasked; its change is reported once it answers', async () => {
		const { run } = watch(new HarnessStore());
		await run(ACTIVE);
		// A quiet marked run, as the row is: the mark and its patch's marker are asked.
		await run(ACTIVE);
		// The mark, the last patch's marker (held) and this run's (not): nothing else asked or written.
		expect(await run(ACTIVE, 'loaded', [3])).toEqual({
			events: [],
			calls: ['record 3'],
		});
		const changed = [...ACTIVE.slice(0, 3), company('Inactive')];
		expect((await run(changed)).events).toEqual(['3:turnedInactive (previous known)']);
	});

	// The static data cannot tell whether a worker or a run whose save was lost reported from the row before
	// it was emptied (emptiedRow.test.ts): a change made meanwhile is lost, none is reported twice.
	it('a row emptied between the clear and the write (a crash): a new baseline, no event; the next change is reported', async () => {
		const store = new HarnessStore();
		const { run } = watch(store);
		await run(ACTIVE);
		await store.clearAllProcessedItems('node', STORE_CONTEXT);
		const changed = [company('Inactive'), company('Active'), company('Active'), company('Active')];
		expect((await run(changed)).events).toEqual([]);
		expect((await run(ACTIVE)).events).toEqual(['0:turnedActive (previous known)']);
	});

	it('a row holding other entries but none of these companies nor the mark: a new baseline, no event', async () => {
		const store = new HarnessStore();
		const { run } = watch(store);
		await run(ACTIVE);
		await store.clearAllProcessedItems('node', STORE_CONTEXT);
		await store.checkProcessedAndRecord(['another node version'], 'node', STORE_CONTEXT, {
			mode: 'entries',
		});
		const changed = [company('Inactive'), company('Active'), company('Active'), company('Active')];
		expect((await run(changed)).events).toEqual([]);
	});

	it.each<[string, unknown]>([
		['no token', { entries: 16, notAsSaved: [] }],
		['an empty token', { token: '', entries: 16, notAsSaved: [] }],
		['a count that is no count', { token: 'x', entries: -1, notAsSaved: [] }],
		['a list that is no list of ids', { token: 'x', entries: 16, notAsSaved: [1] }],
		['not an object', 'x'],
		['null', null],
		['a count that is no whole number', { token: 'x', entries: 1.5, notAsSaved: [] }],
	])(
		'a hand-edited mark (%s) proves nothing: the row is counted and asked as a worker asks it',
		async (_what, mark) => {
			const { run, edit } = watch(new HarnessStore());
			await run(ACTIVE);
			edit((saved) => (saved.storeRow = mark));
			// The first run wrote no block (a main process's first run writes none): its block is not held,
			// so its four companies' entries are asked, as a worker asks them after a marked run (and whether
			// the row holds patches).
			expect((await run(ACTIVE)).calls).toEqual([
				'count',
				'record 1',
				'record 13',
				'clear',
				'record 14',
			]);
		},
	);

	it('a company the row holds only the status of (a worker could not check it) is asked, not taken from the static data', async () => {
		const { run } = watch(new HarnessStore());
		await run(ACTIVE);
		const renamed = [...ACTIVE.slice(0, 3), company('Active', 'Alpha AG')];
		// A worker reports the new name, then cannot check the company: the row keeps only its status.
		expect((await run(renamed, 'none')).events).toEqual(['3:detailsChanged']);
		await run(renamed, 'none', [3]);
		// A main process (static data of the first run: the old name) cannot check it either, and marks the row.
		await run(renamed, 'loaded', [3]);
		// Checked again: the name the worker reported is no change. The mark (its list names that company) is
		// trusted: the mark, marker 1, whether the row holds patches and that company's three entries are
		// asked (no patch: the row holds its status alone, so it is written anew).
		const checked = await run(renamed);
		expect(checked.events).toEqual([]);
		expect(checked.calls[0]).toBe('record 6');
	});

	it('a row and a mark the version before wrote (four entries a company): trusted, the change reported, the row written in three', async () => {
		const store = new HarnessStore();
		const { run, edit } = watch(store);
		await run(ACTIVE);
		const mark = await earlierVersionRow(store);
		edit((saved) => (saved.storeRow = mark));
		const changed = [company('Active'), company('Inactive'), company('Active'), company('Active')];
		// The mark, marker 1 and whether the row holds patches (a mark without patches is asked as one with
		// none yet), and the changed company's three entries.
		expect(await run(changed)).toEqual({
			events: ['1:turnedInactive (previous known)'],
			calls: ['record 6', 'clear', 'record 13'],
		});
		// A worker then reads the row as written: the next change, and only it.
		const next = [company('Active'), company('Inactive'), company('Active', 'Alpha AG'), ACTIVE[3]];
		expect(await run(next, 'none')).toEqual({
			events: ['2:detailsChanged'],
			// Its block, not held (the row has none; a count says the row holds others); its entries (and
			// whether the row holds patches); step 2: its three statuses, whether its details are known, and
			// its new name in the case the version before kept (a row it wrote would hold that).
			calls: ['record 1', 'count', 'record 13', 'record 5', 'clear', 'record 13'],
		});
	});

	it("a quiet first run on the version before's row writes it anew in three entries a company", async () => {
		const store = new HarnessStore();
		const { run, edit } = watch(store);
		await run(ACTIVE);
		const mark = await earlierVersionRow(store);
		edit((saved) => (saved.storeRow = mark));
		expect(await run(ACTIVE)).toEqual({ events: [], calls: ['record 3', 'clear', 'record 13'] });
		expect(store.entriesOf('w', 'n')).toBe(13);
		// The mark and this run's patch (its marker alone).
		expect(await run(ACTIVE)).toEqual({ events: [], calls: ['record 2'] });
	});

	describe("a main process after a worker wrote the row: the static data's old values, where the row confirms them", () => {
		const checked = (records: CompanyRecord[]) =>
			records.map((record, itemIndex) => ({ key: keys[itemIndex], record, itemIndex }));
		const moved = (address: string) =>
			({ ...company('Active'), registeredAddress: address }) as CompanyRecord;
		const changesOf = (found: Awaited<ReturnType<typeof runOnStore>>['found']) =>
			found.map((change) => [change.itemIndex, change.change.changes]);

		it('confirmed: the old name and address shown', async () => {
			const helpers = helpersOf(new HarnessStore());
			const { data } = await runOnStore(helpers, {}, checked(ACTIVE), [], 1);
			// A worker sees the first company turn inactive (and writes the row without a mark).
			const turned = [company('Inactive'), ...ACTIVE.slice(1)];
			await runOnStore(helpers, undefined, checked(turned), [], 2);
			const { found } = await runOnStore(
				helpers,
				data,
				checked([company('Inactive'), company('Active', 'Alpha SE'), NOT_REGISTERED, ACTIVE[3]]),
				[],
				3,
			);
			expect(changesOf(found)).toEqual([
				[1, { officialName: { previous: 'Alpha GmbH', current: 'Alpha SE' } }],
				[2, { registration: { previous: true, current: false } }],
			]);
			// Day 1 of 2026, the static data's; the deregistered company's old name and address too.
			const before = { s: 'A', n: 'Alpha GmbH', a: 'Hauptstr. 1', d: 20_454 };
			expect(found.map((change) => change.previous)).toEqual([before, before]);
		});

		it("not confirmed (a worker saw another name and address since): the old values unknown, not the static data's", async () => {
			const helpers = helpersOf(new HarnessStore());
			const { data } = await runOnStore(helpers, {}, checked(ACTIVE), [], 1);
			const seen = [
				ACTIVE[0],
				company('Active', 'Alpha AG'),
				moved('Ring 2'),
				company('Active', 'Alpha AG'),
			];
			await runOnStore(helpers, undefined, checked(seen), [], 2);
			// The static data (the first run's) says Alpha GmbH at Hauptstr. 1 of each; the row says otherwise.
			const { found } = await runOnStore(
				helpers,
				data,
				checked([ACTIVE[0], company('Active', 'Alpha SE'), moved('Ring 3'), ACTIVE[3]]),
				[],
				3,
			);
			expect(changesOf(found)).toEqual([
				[1, { officialName: { previous: null, current: 'Alpha SE' } }],
				[2, { registeredAddress: { previous: null, current: 'Ring 3' } }],
				[3, { officialName: { previous: null, current: 'Alpha GmbH' } }],
			]);
		});
	});

	it('a row of no companies is marked too: the next run of none asks the mark and appends its marker', async () => {
		const { run } = watch(new HarnessStore());
		await run([]);
		expect(await run([])).toEqual({ events: [], calls: ['record 2'] });
	});
});

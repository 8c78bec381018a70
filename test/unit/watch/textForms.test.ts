import { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import type { CompanyRecord } from '../../../nodes/shared/model/companyRecord';
import type { LookupKey } from '../../../nodes/shared/model/lookupKey';
import { detectChanges } from '../../../nodes/shared/watch/detector';
import { StaticDataMemory } from '../../../nodes/shared/watch/memory';
import { ProcessedItemsMemory } from '../../../nodes/shared/watch/processedItemsMemory';
import {
	canonicalText,
	sameText,
	type CompanySnapshot,
} from '../../../nodes/shared/watch/snapshot';
import { company, helpersOf, STORE_CONTEXT } from './storeFixtures';
import { runOnStore } from './storeRun';

// The same name or address in another form (Unicode NFC or NFD, white space moved) is no change, and a
// watch an earlier version wrote (its memories hold the text as it came) reports nothing on the first run
// after the upgrade for a company whose registry keeps sending the same form: both memories.

const keys: LookupKey[] = [0, 1, 2].map((index) => ({
	countryCode: 'de',
	companyId: `HRB${index}`,
}));

/** As a registry sends it: decomposed, a line break and a double space, a trailing space. */
const NAME_AS_SENT = 'Müller  & Söhne GmbH '.normalize('NFD');
const ADDRESS_AS_SENT = 'Königstraße 12,\n70173 Stuttgart'.normalize('NFD');
const sent = (
	status = 'Active',
	officialName = NAME_AS_SENT,
	registeredAddress = ADDRESS_AS_SENT,
) => ({ ...company(status, officialName), registeredAddress }) as CompanyRecord;

/** Company 0 in another form, company 1 plain ASCII, company 2 in another form too. */
const AS_SENT = [sent(), company('Active'), sent('Inactive')];

const snapshotOf = (record: CompanyRecord & { status?: string; registeredAddress?: string }) => ({
	s: record.status === 'Active' ? 'A' : 'I',
	n: record.officialName,
	a: record.registeredAddress,
});

/** A company's entries as the earlier version wrote them: the text as it came. */
const earlierEntries = (index: number, record: CompanyRecord) => {
	const { s, n, a } = snapshotOf(record);
	const id = `de/HRB${index}`;
	return [
		JSON.stringify([id, 'status', s]),
		JSON.stringify([id, 'name', n]),
		JSON.stringify([id, 'address', a]),
	];
};

/** The row a worker of the earlier version left: the block entry, then its companies' entries. */
function earlierWorkerRow(records: CompanyRecord[]): string[] {
	const entries = records.flatMap((record, index) => earlierEntries(index, record));
	return [
		JSON.stringify(['companies', ...entries.map((entry) => JSON.parse(entry) as unknown)]),
		...entries,
	];
}

/** The row and static data a main process of the earlier version left: the entries and its mark. */
function earlierMainProcess(records: CompanyRecord[]) {
	const row = records.flatMap((record, index) => earlierEntries(index, record));
	const mark = { token: 'earlier', entries: row.length, notAsSaved: [] };
	row.push(JSON.stringify(['row written', mark.token, mark.entries, mark.notAsSaved]));
	const companies = Object.fromEntries(
		records.map((record, index) => [`de/HRB${index}`, { ...snapshotOf(record), d: 20_000 }]),
	);
	return { row, staticData: { companies, storeRow: mark } };
}

async function storeHolding(row: string[]) {
	const store = new HarnessStore();
	await store.checkProcessedAndRecord(row, 'node', STORE_CONTEXT, {
		mode: 'entries',
		maxEntries: 500_000,
	});
	return store;
}

const checked = (records: CompanyRecord[], unchecked: number[] = []) =>
	records.flatMap((record, itemIndex) =>
		unchecked.includes(itemIndex) ? [] : [{ key: keys[itemIndex], record, itemIndex }],
	);

const eventsOf = (found: Array<{ itemIndex: number; change: { event: string } }>) =>
	found.map((change) => `${change.itemIndex}:${change.change.event}`);

describe('the same text in another form, and the upgrade', () => {
	it("the static data: the earlier version's text, read now in the same form and in another, is no change; a change shows both as sent", async () => {
		const { staticData } = earlierMainProcess(AS_SENT);
		const data = JSON.parse(JSON.stringify(staticData)) as Record<string, unknown>;
		const run = async (records: CompanyRecord[], day: number) =>
			await detectChanges(
				new StaticDataMemory(data, { warn: () => undefined }, () => true),
				checked(records),
				[],
				{ now: new Date(Date.UTC(2026, 0, day)), reportFirstSightings: false },
			);
		expect(await run(AS_SENT, 1)).toEqual([]);
		const otherForm = sent('Active', 'Müller & Söhne GmbH', 'Königstraße 12, 70173  Stuttgart');
		expect(await run([otherForm, AS_SENT[1], AS_SENT[2]], 2)).toEqual([]);
		const renamed = sent('Active', 'Müller & Söhne AG ', ADDRESS_AS_SENT);
		const [found] = await run([renamed, AS_SENT[1], AS_SENT[2]], 3);
		expect(found.change).toEqual({
			event: 'detailsChanged',
			changedFields: ['officialName'],
			// The form the registry sent last: the static data keeps it.
			changes: {
				officialName: { previous: 'Müller & Söhne GmbH', current: 'Müller & Söhne AG ' },
			},
		});
	});

	it("the store alone (a queue-mode worker): the earlier version's row, the same forms, no change; then written in the canonical form, and another form or a rename told apart", async () => {
		const store = await storeHolding(earlierWorkerRow(AS_SENT));
		const calls: string[] = [];
		const helpers = helpersOf(store, { calls });
		const run = async (records: CompanyRecord[], day: number) =>
			eventsOf((await runOnStore(helpers, undefined, checked(records), [], day)).found);
		expect(await run(AS_SENT, 1)).toEqual([]);
		// Written anew in the canonical form once: the next run finds its block held, and writes nothing.
		calls.length = 0;
		expect(await run(AS_SENT, 2)).toEqual([]);
		expect(calls).toEqual(['record 1', 'count']);
		const otherForm = sent(
			'Active',
			NAME_AS_SENT.normalize('NFC').trim(),
			'Königstraße 12, 70173 Stuttgart',
		);
		expect(await run([otherForm, AS_SENT[1], AS_SENT[2]], 3)).toEqual([]);
		// Renamed, the new name in another form than its canonical one: neither form is held.
		expect(await run([sent('Active', 'Müller &  Söhne AG'), AS_SENT[1], AS_SENT[2]], 4)).toEqual([
			'0:detailsChanged',
		]);
	});

	it("a main process on the earlier version's row and static data: no change, with the mark and without it", async () => {
		for (const withMark of [true, false]) {
			const { row, staticData } = earlierMainProcess(AS_SENT);
			if (!withMark) delete (staticData as { storeRow?: unknown }).storeRow;
			const store = await storeHolding(row);
			const { found, data } = await runOnStore(
				helpersOf(store),
				staticData,
				checked(AS_SENT),
				[],
				1,
			);
			expect(eventsOf(found)).toEqual([]);
			expect(
				eventsOf((await runOnStore(helpersOf(store), data, checked(AS_SENT), [], 2)).found),
			).toEqual([]);
		}
	});

	it("the earlier version's row read by a worker that then renames: the old name is known in either form", async () => {
		const store = await storeHolding(earlierMainProcess(AS_SENT).row);
		// The old name as sent: the row holds it as it came. Ask it as a main process whose static data was lost.
		const renamed = [sent('Active', 'Müller & Söhne AG'), AS_SENT[1], AS_SENT[2]];
		const { staticData } = earlierMainProcess(AS_SENT);
		delete (staticData as { storeRow?: unknown }).storeRow;
		const { found } = await runOnStore(helpersOf(store), staticData, checked(renamed), [], 1);
		expect(found.map((change) => change.change.changes.officialName?.previous)).toEqual([
			NAME_AS_SENT,
		]);
	});

	it('an old name the row holds in neither form is not shown as the previous one', async () => {
		// The static data says the name as sent; a worker has since written another into the row.
		const { staticData } = earlierMainProcess(AS_SENT);
		delete (staticData as { storeRow?: unknown }).storeRow;
		const store = await storeHolding(
			earlierWorkerRow([sent('Active', 'Zwischenname GmbH'), AS_SENT[1], AS_SENT[2]]),
		);
		const renamed = [sent('Active', 'Endname AG'), AS_SENT[1], AS_SENT[2]];
		const { found } = await runOnStore(helpersOf(store), staticData, checked(renamed), [], 1);
		expect(found.map((change) => change.change.changes.officialName)).toEqual([
			{ previous: null, current: 'Endname AG' },
		]);
	});

	it('a company not checked whose entries the row holds is carried as it is, its status not asked again', async () => {
		const { row, staticData } = earlierMainProcess(AS_SENT);
		delete (staticData as { storeRow?: unknown }).storeRow;
		const calls: string[] = [];
		const store = await storeHolding(row);
		const { found } = await runOnStore(
			helpersOf(store, { calls }),
			staticData,
			checked(AS_SENT, [1]),
			[],
			1,
		);
		expect(eventsOf(found)).toEqual([]);
		// The count, the block, the entries of all three (company 1's from the static data, with its two other
		// statuses), then step 2 (the statuses and the details of companies 0 and 2, and their names and
		// addresses as they came and in the case the version before kept; of company 1, its names and
		// addresses in that case, the row not holding them case-folded, and its three statuses again), and
		// the row written anew.
		expect(calls).toEqual(['count', 'record 1', 'record 12', 'record 21', 'clear', 'record 11']);
	});

	it('a company not checked on the first run after the upgrade keeps its name and address in the row: a worker later tells its rename', async () => {
		const { row, staticData } = earlierMainProcess(AS_SENT);
		// Without its mark: the companies not checked are asked too.
		delete (staticData as { storeRow?: unknown }).storeRow;
		const store = await storeHolding(row);
		const first = await runOnStore(helpersOf(store), staticData, checked(AS_SENT, [2]), [], 1);
		expect(eventsOf(first.found)).toEqual([]);
		const renamed = [AS_SENT[0], AS_SENT[1], sent('Inactive', 'Müller & Söhne AG')];
		expect(
			eventsOf((await runOnStore(helpersOf(store), undefined, checked(renamed), [], 2)).found),
		).toEqual(['2:detailsChanged']);
	});
});

/** A company's entries as the version before wrote them: the canonical form, its letter case kept. */
const caseKeptEntries = (index: number, record: CompanyRecord) => {
	const { s, n, a } = snapshotOf(record);
	const id = `de/HRB${index}`;
	return [
		JSON.stringify([id, 'status', s]),
		JSON.stringify([id, 'name', canonicalText(n)]),
		JSON.stringify([id, 'address', canonicalText(a!)]),
	];
};

describe('letter case, and the upgrade from the version that kept it', () => {
	/** Mixed case: a plain ASCII company and one in another form. */
	const RECORDS = [sent(), company('Active'), sent('Inactive')];
	const inCapitals = (record: CompanyRecord & { registeredAddress?: string }) =>
		({
			...record,
			officialName: record.officialName.toUpperCase(),
			registeredAddress: record.registeredAddress?.toLowerCase(),
		}) as CompanyRecord;

	it("a worker on the version before's row: no change, the row written anew case-folded; then a case change is none, a rename and a status change are", async () => {
		const entries = RECORDS.flatMap((record, index) => caseKeptEntries(index, record));
		const store = await storeHolding([
			JSON.stringify(['companies', ...entries.map((entry) => JSON.parse(entry) as unknown)]),
			...entries,
		]);
		const calls: string[] = [];
		const helpers = helpersOf(store, { calls });
		const run = async (records: CompanyRecord[], day: number) =>
			eventsOf((await runOnStore(helpers, undefined, checked(records), [], day)).found);
		expect(await run(RECORDS, 1)).toEqual([]);
		calls.length = 0;
		expect(await run(RECORDS, 2)).toEqual([]);
		// Its block held: the row is this version's.
		expect(calls).toEqual(['record 1', 'count']);
		expect(await run(RECORDS.map(inCapitals), 3)).toEqual([]);
		expect(
			await run([sent('Active', 'Müller & Söhne AG'), company('Inactive'), RECORDS[2]], 4),
		).toEqual(['0:detailsChanged', '1:turnedInactive']);
	});

	it("a worker on the version before's row, a status changed on that run: reported, and no name or address", async () => {
		const entries = RECORDS.flatMap((record, index) => caseKeptEntries(index, record));
		const store = await storeHolding([
			JSON.stringify(['companies', ...entries.map((entry) => JSON.parse(entry) as unknown)]),
			...entries,
		]);
		const { found } = await runOnStore(
			helpersOf(store),
			undefined,
			checked([RECORDS[0], company('Inactive'), RECORDS[2]]),
			[],
			1,
		);
		expect(found.map((change) => [change.change.event, change.change.changedFields])).toEqual([
			['turnedInactive', ['status']],
		]);
	});

	it("a main process on the version before's row and static data, with its mark and without: no change; then a case change is none, a rename is", async () => {
		for (const withMark of [true, false]) {
			const row = RECORDS.flatMap((record, index) => caseKeptEntries(index, record));
			const mark = { token: 'before', entries: row.length, notAsSaved: [] };
			row.push(JSON.stringify(['row written', mark.token, mark.entries, mark.notAsSaved]));
			const companies = Object.fromEntries(
				RECORDS.map((record, index) => [`de/HRB${index}`, { ...snapshotOf(record), d: 20_000 }]),
			);
			const store = await storeHolding(row);
			let data: Record<string, unknown> = withMark ? { companies, storeRow: mark } : { companies };
			const run = async (records: CompanyRecord[], day: number) => {
				const result = await runOnStore(helpersOf(store), data, checked(records), [], day);
				data = result.data;
				return eventsOf(result.found);
			};
			expect(await run(RECORDS, 1)).toEqual([]);
			expect(await run(RECORDS.map(inCapitals), 2)).toEqual([]);
			expect(await run([RECORDS[0], company('Active', 'Alpha AG'), RECORDS[2]], 3)).toEqual([
				'1:detailsChanged',
			]);
			// A worker after it reads the row as the main process wrote it.
			expect(
				eventsOf(
					(
						await runOnStore(
							helpersOf(store),
							undefined,
							checked([RECORDS[0], company('Active', 'ALPHA AG'), RECORDS[2]]),
							[],
							4,
						)
					).found,
				),
			).toEqual([]);
		}
	});
});

describe('earlier forms are made only where a row may hold them', () => {
	/** Companies in capitals (each has earlier forms), whose names and addresses count their reads. */
	function countingCompanies(count: number) {
		const reads = { names: 0, addresses: 0 };
		const current = new Map<string, CompanySnapshot>();
		for (let index = 0; index < count; index++)
			current.set(`de/HRB${index}`, {
				s: 'A',
				get n() {
					reads.names += 1;
					return `ALPHA ${index} GMBH`;
				},
				get a() {
					reads.addresses += 1;
					return 'HAUPTSTR.  1';
				},
				d: 20_000,
			});
		return { reads, current };
	}

	it.each([
		['a main process', true, 2],
		['a worker', false, 1],
	])(
		'%s on a new store (a first run): no earlier form is made; each name and address is read once for the row it writes, and on a main process once more for the static data it saves',
		async (_, withStaticData, readsEach) => {
			const { reads, current } = countingCompanies(12);
			const memory = new ProcessedItemsMemory(
				helpersOf(new HarnessStore()),
				withStaticData
					? new StaticDataMemory({}, { warn: () => undefined }, () => true)
					: undefined,
			);
			await memory.recall(current, []);
			// A worker makes its blocks in recall; a main process writes none on a new store, and makes its
			// entries when it writes the row: read once either way. The static data's text reads them again.
			await memory.remember(current, []);
			expect(reads).toEqual({ names: 12 * readsEach, addresses: 12 * readsEach });
		},
	);
});

describe('the canonical form of a name or address', () => {
	it.each([
		['Müller GmbH', 'Müller GmbH'.normalize('NFD')],
		// No ASCII letter in it: decomposed, still normalised.
		['Кий', 'Кий'.normalize('NFD')],
		['A B', 'A  B'],
		['A B', ' A B'],
		['A B', 'A B '],
		['A B', 'A\tB'],
		['A B', 'A\nB'],
		['A B', 'A\u00a0B'],
		['A B', 'A \r\n B'],
	])('%j reads as %j', (canonical, other) => {
		expect(canonicalText(other)).toBe(canonical);
		expect(sameText(canonical, other)).toBe(true);
		expect(sameText(other, canonical)).toBe(true);
	});

	it.each([
		['!~ plain ASCII', '!~ plain ASCII.'],
		['AB', 'A B'],
		['Müller', 'Muller'],
	])('%j and %j differ, each kept as it is', (one, other) => {
		expect(canonicalText(one)).toBe(one);
		expect(canonicalText(other)).toBe(other);
		expect(sameText(one, other)).toBe(false);
	});

	it('a missing value reads as no other', () => {
		expect(sameText(undefined, undefined)).toBe(true);
		expect(sameText(undefined, '')).toBe(false);
		expect(sameText(' ', undefined)).toBe(false);
	});
});

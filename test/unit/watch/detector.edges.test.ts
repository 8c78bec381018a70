import type { CompanyRecord } from '../../../nodes/shared/model/companyRecord';
import { detectChanges } from '../../../nodes/shared/watch/detector';
import { loadWatchState, StaticDataMemory } from '../../../nodes/shared/watch/memory';
import { MAX_DAY } from '../../../nodes/shared/watch/snapshot';
import { savedCompanies } from '../../support/savedCompanies';

// The change detector over the static-data memory, case by case: several rows of one company, first
// sightings, failed checks keeping what was known, what the memory keeps and drops, and the saved state
// it refuses to trust.

const DAY_MS = 86_400_000;
const key = (companyId: string) => ({ countryCode: 'de', companyId });
const record = (status = 'Active', officialName = 'Alpha GmbH') =>
	({
		isRegistered: true,
		officialName,
		status,
		registrationDate: '2001-02-03',
	}) as unknown as CompanyRecord;
const silent = { warn: () => {} };
const keepNone = () => false;

describe('the change detector', () => {
	it('several rows of one company count once, on the first row', async () => {
		const staticData: Record<string, unknown> = {};
		const memory = new StaticDataMemory(staticData, silent, keepNone);
		const found = await detectChanges(
			memory,
			[
				{ key: key('A'), record: record(), itemIndex: 0 },
				{ key: key('A'), record: record('Inactive'), itemIndex: 1 },
				{ key: key('B'), record: record(), itemIndex: 2 },
			],
			[],
			{ now: new Date(5 * DAY_MS), reportFirstSightings: true },
		);
		expect(
			found.map((change) => [change.key.companyId, change.itemIndex, change.change.event]),
		).toEqual([
			['A', 0, 'firstSeen'],
			['B', 2, 'firstSeen'],
		]);
		// A first sighting names no field and no change.
		expect(found[0].change).toStrictEqual({ event: 'firstSeen', changedFields: [], changes: {} });
		expect(found[0]).not.toHaveProperty('previous');
		expect(savedCompanies(staticData)).toStrictEqual({
			'de/A': { s: 'A', n: 'Alpha GmbH', d: 5 },
			'de/B': { s: 'A', n: 'Alpha GmbH', d: 5 },
		});
	});

	it('a first sighting is no change unless asked for; the next change comes with what was known', async () => {
		const staticData: Record<string, unknown> = {};
		const run = async (status: string, day: number) =>
			await detectChanges(
				new StaticDataMemory(staticData, silent, keepNone),
				[{ key: key('A'), record: record(status), itemIndex: 3 }],
				[],
				{ now: new Date(day * DAY_MS), reportFirstSightings: false },
			);
		expect(await run('Active', 1)).toEqual([]);
		const [found] = await run('Inactive', 2);
		expect(found).toStrictEqual({
			key: key('A'),
			record: record('Inactive'),
			itemIndex: 3,
			previous: { s: 'A', n: 'Alpha GmbH', d: 1 },
			change: {
				event: 'turnedInactive',
				changedFields: ['status'],
				changes: { status: { previous: 'Active', current: 'Inactive' } },
			},
		});
		expect(await run('Inactive', 3)).toEqual([]);
	});

	it("an unchanged company's last check moves on with each run: a change comes with the day it was last seen as it was", async () => {
		// In one process (n8n keeps an active trigger's static data) and saved and loaded between runs.
		for (const saving of [false, true]) {
			let staticData: Record<string, unknown> = {};
			const run = async (status: string, day: number) => {
				if (saving) staticData = JSON.parse(JSON.stringify(staticData)) as Record<string, unknown>;
				return await detectChanges(
					new StaticDataMemory(staticData, silent, keepNone),
					[
						{ key: key('A'), record: record(status), itemIndex: 0 },
						{ key: key('B'), record: record(), itemIndex: 1 },
					],
					[],
					{ now: new Date(day * DAY_MS), reportFirstSightings: false },
				);
			};
			await run('Active', 1);
			expect(await run('Active', 4)).toEqual([]);
			expect(savedCompanies(staticData)).toStrictEqual({
				'de/A': { s: 'A', n: 'Alpha GmbH', d: 4 },
				'de/B': { s: 'A', n: 'Alpha GmbH', d: 4 },
			});
			const [found] = await run('Inactive', 6);
			expect(found.previous).toStrictEqual({ s: 'A', n: 'Alpha GmbH', d: 4 });
		}
	});

	it('a new name or address is remembered: reported once, not again by the runs after', async () => {
		const staticData: Record<string, unknown> = {};
		const run = async (officialName: string, registeredAddress: string, day: number) =>
			(
				await detectChanges(
					new StaticDataMemory(staticData, silent, keepNone),
					[
						{
							key: key('A'),
							record: { ...record('Active', officialName), registeredAddress } as CompanyRecord,
							itemIndex: 0,
						},
					],
					[],
					{ now: new Date(day * DAY_MS), reportFirstSightings: false },
				)
			).map((found) => found.change.changedFields);
		await run('Alpha GmbH', 'Hauptstr. 1', 1);
		expect(await run('Alpha AG', 'Hauptstr. 1', 2)).toEqual([['officialName']]);
		expect(await run('Alpha AG', 'Hauptstr. 1', 3)).toEqual([]);
		expect(await run('Alpha AG', 'Ring 2', 4)).toEqual([['registeredAddress']]);
		expect(await run('Alpha AG', 'Ring 2', 5)).toEqual([]);
	});

	it('a company whose check failed keeps what was known, so a change made meanwhile is reported later', async () => {
		const staticData: Record<string, unknown> = {};
		const run = async (checked: Array<[string, string]>, failed: string[], day: number) =>
			await detectChanges(
				new StaticDataMemory(staticData, silent, keepNone),
				checked.map(([id, status], itemIndex) => ({
					key: key(id),
					record: record(status),
					itemIndex,
				})),
				failed.map(key),
				{ now: new Date(day * DAY_MS), reportFirstSightings: false },
			);
		await run(
			[
				['A', 'Active'],
				['B', 'Active'],
			],
			[],
			1,
		);
		expect(await run([['B', 'Active']], ['A', 'A'], 2)).toEqual([]);
		expect(Object.keys(savedCompanies(staticData)).sort()).toEqual(['de/A', 'de/B']);
		const found = await run([['A', 'Inactive']], [], 3);
		expect(found.map((change) => change.change.event)).toEqual(['turnedInactive']);
		expect(found[0].previous).toStrictEqual({ s: 'A', n: 'Alpha GmbH', d: 1 });
		// B was neither checked nor failed, and the memory keeps no such company.
		expect(Object.keys(savedCompanies(staticData))).toEqual(['de/A']);
	});

	it('a company checked on one row and failed on another counts as checked', async () => {
		const staticData: Record<string, unknown> = {
			companies: { 'de/A': { s: 'A', n: 'Alpha GmbH', d: 1 } },
		};
		const found = await detectChanges(
			new StaticDataMemory(staticData, silent, keepNone),
			[{ key: key('A'), record: record('Inactive'), itemIndex: 0 }],
			[key('A')],
			{ now: new Date(2 * DAY_MS), reportFirstSightings: false },
		);
		expect(found.map((change) => change.change.event)).toEqual(['turnedInactive']);
		expect(savedCompanies(staticData)).toStrictEqual({ 'de/A': { s: 'I', n: 'Alpha GmbH', d: 2 } });
	});
});

describe('the static-data memory', () => {
	const saved = () => ({
		companies: {
			'de/A': { s: 'A', n: 'Alpha GmbH', d: 1 },
			'de/B': { s: 'I', d: 2 },
		} as Record<string, unknown>,
	});

	it('keeps the companies not named this run that `keep` says to keep, and says which', async () => {
		const staticData: Record<string, unknown> = saved();
		const memory = new StaticDataMemory(
			staticData,
			silent,
			(id, snapshot) => id === 'de/B' && snapshot.d === 2,
		);
		const current = new Map([['de/C', { s: 'A' as const, d: 3 }]]);
		expect(memory.kept(current)).toEqual(['de/B']);
		expect(memory.saved('de/A')).toStrictEqual({ s: 'A', n: 'Alpha GmbH', d: 1 });
		expect(memory.saved('de/C')).toBeUndefined();
		expect(memory.saved('toString')).toBeUndefined();
		await memory.remember(current, []);
		expect(savedCompanies(staticData)).toStrictEqual({
			'de/B': { s: 'I', d: 2 },
			'de/C': { s: 'A', d: 3 },
		});
	});

	it('asks `keep` once a company a run: the store memory asks the kept and the forgotten, remember the forgotten again', async () => {
		const asked: string[] = [];
		const memory = new StaticDataMemory(saved(), silent, (id) => {
			asked.push(id);
			return id === 'de/B';
		});
		const current = new Map([['de/C', { s: 'A' as const, d: 3 }]]);
		expect(memory.kept(current)).toEqual(['de/B']);
		expect(memory.forgotten(current, [])).toEqual(['de/A']);
		await memory.remember(current, []);
		expect(asked).toEqual(['de/A', 'de/B']);
		// Another run's companies: walked again.
		expect(memory.forgotten(new Map(), ['de/A'])).toEqual(['de/C']);
	});

	it('a company named this run is not among the kept, whatever `keep` says', () => {
		const memory = new StaticDataMemory(saved(), silent, () => true);
		expect(memory.kept(new Map([['de/A', { s: 'A' as const, d: 3 }]]))).toEqual(['de/B']);
	});

	it('holds no company without saved companies, or with an empty list', () => {
		for (const staticData of [{}, { companies: {} }])
			expect(new StaticDataMemory(staticData, silent, () => true).kept(new Map())).toEqual([]);
	});

	it('a first run (nothing saved) is no broken state: no warning, nothing added', () => {
		const warnings: string[] = [];
		const staticData: Record<string, unknown> = {};
		expect(loadWatchState(staticData, { warn: (message) => warnings.push(message) })).toStrictEqual(
			{ companies: {} },
		);
		expect(staticData).toStrictEqual({});
		expect(warnings).toEqual([]);
	});

	it('recalls only the companies it knows', async () => {
		const memory = new StaticDataMemory(saved(), silent, keepNone);
		const known = await memory.recall(
			new Map([
				['de/A', { s: 'A' as const, d: 3 }],
				['de/Z', { s: 'A' as const, d: 3 }],
			]),
		);
		expect([...known]).toStrictEqual([['de/A', { previous: { s: 'A', n: 'Alpha GmbH', d: 1 } }]]);
	});
});

/** Snapshots a saved list may hold that are none: each is dropped, in either form of the list. */
const UNTRUSTED: Array<[string, unknown]> = [
	['a day below 0', { s: 'A', d: -1 }],
	['a day that is not whole', { s: 'A', d: 1.5 }],
	['a day past the last a date can hold', { s: 'A', d: MAX_DAY + 1 }],
	['a day that is text', { s: 'A', d: '1' }],
	['no day', { s: 'A' }],
	['a name that is not text', { s: 'A', n: 5, d: 1 }],
	['an address that is not text', { s: 'A', a: ['x'], d: 1 }],
	['an unknown status', { s: 'X', d: 1 }],
	['an empty status', { s: '', d: 1 }],
	['no status', { d: 1 }],
	['null', null],
	['nothing', undefined],
	['a number', 7],
];

describe('the saved watch state it refuses to trust', () => {
	it.each(UNTRUSTED)('drops a company saved with %s, and says so', (_label, snapshot) => {
		const warnings: Array<{ message: string; meta?: object }> = [];
		const state = loadWatchState(
			{ companies: { 'de/A': { s: 'N', d: 1 }, 'de/B': snapshot } },
			{ warn: (message, meta) => warnings.push({ message, meta }) },
		);
		expect(state.companies).toStrictEqual({ 'de/A': { s: 'N', d: 1 } });
		expect(warnings).toEqual([
			{
				message:
					'Company Registry: the saved watch state had entries that are not company snapshots; they were dropped and start a new baseline',
				meta: { dropped: 1 },
			},
		]);
	});

	it('keeps every kind of good snapshot, at the edges of the day', () => {
		const companies = {
			'de/A': { s: 'A', n: 'A', a: 'x', d: 0 },
			'de/I': { s: 'I', n: 'I', d: MAX_DAY },
			'de/N': { s: 'N', d: 3 },
		};
		const warnings: string[] = [];
		expect(
			loadWatchState({ companies: { ...companies } }, { warn: (m) => warnings.push(m) }),
		).toStrictEqual({
			companies,
		});
		expect(warnings).toEqual([]);
	});

	it('counts each dropped company', () => {
		const metas: unknown[] = [];
		loadWatchState(
			{ companies: { a: 1, b: 2, c: { s: 'A', d: 1 } } },
			{ warn: (_m, meta) => metas.push(meta) },
		);
		expect(metas).toEqual([{ dropped: 2 }]);
	});

	it('ignores what a saved list inherits', async () => {
		const companies = Object.create({ inherited: 'corrupt' }) as Record<string, unknown>;
		companies['de/A'] = { s: 'A', d: 1 };
		const warnings: string[] = [];
		loadWatchState({ companies }, { warn: (m) => warnings.push(m) });
		expect(warnings).toEqual([]);
		expect(new StaticDataMemory({ companies }, silent, () => true).kept(new Map())).toEqual([
			'de/A',
		]);
		const staticData: Record<string, unknown> = { companies };
		await new StaticDataMemory(staticData, silent, () => true).remember(new Map(), []);
		expect(savedCompanies(staticData)).toStrictEqual({ 'de/A': { s: 'A', d: 1 } });
		const onlyInherited = Object.create({ inherited: { s: 'A', d: 1 } }) as Record<string, unknown>;
		expect(
			new StaticDataMemory({ companies: onlyInherited }, silent, () => true).kept(new Map()),
		).toEqual([]);
	});
});

// This version saves the companies as one JSON text (memory.ts: savedText). A text is checked as an
// object is: an entry that is no snapshot is dropped, whoever wrote the text (an import, a hand edit, n8n).
describe('the companies saved as one text', () => {
	const warningsOf = (companies: unknown) => {
		const metas: unknown[] = [];
		const state = loadWatchState({ companies }, { warn: (_m, meta) => metas.push(meta) });
		return { companies: state.companies, metas };
	};

	it.each(UNTRUSTED.filter(([, snapshot]) => snapshot !== undefined))(
		'drops a company saved in the text with %s, and says so',
		(_label, snapshot) => {
			const { companies, metas } = warningsOf(
				JSON.stringify({ 'de/A': { s: 'N', d: 1 }, 'de/B': snapshot }),
			);
			expect(companies).toStrictEqual({ 'de/A': { s: 'N', d: 1 } });
			expect(metas).toEqual([{ dropped: 1 }]);
		},
	);

	it('an empty list is no broken state: no company, no warning', () => {
		expect(warningsOf('{}')).toStrictEqual({ companies: {}, metas: [] });
	});

	it.each([
		['an empty text', ''],
		['a text cut short', JSON.stringify({ 'de/A': { s: 'N', d: 1 } }).slice(0, 12)],
		['the text of a text', JSON.stringify(JSON.stringify({ 'de/A': { s: 'N', d: 1 } }))],
		['the text of a list', '[{"s":"A","d":1}]'],
		['the text of null', 'null'],
		['the text of a number', '7'],
	])('%s is no list: no company, the whole list one dropped entry', (_label, text) => {
		expect(warningsOf(text)).toStrictEqual({ companies: {}, metas: [{ dropped: 1 }] });
	});

	// JSON.parse makes `"__proto__"` an own entry (an object literal or an assignment would set the list's
	// prototype instead): company keys always hold a '/', but an imported or hand-edited text may hold any.
	it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
		"a company keyed '%s' (what every object inherits) is a company like any other",
		async (id) => {
			const snapshot = { s: 'A', n: 'Alpha GmbH', d: 1 };
			const text = `{${JSON.stringify(id)}:${JSON.stringify(snapshot)},"de/A":{"s":"I","d":1}}`;
			const staticData: Record<string, unknown> = { companies: text };
			const memory = new StaticDataMemory(staticData, silent, (kept) => kept === id);
			expect(memory.saved(id)).toStrictEqual(snapshot);
			expect(memory.saved('de/A')).toStrictEqual({ s: 'I', d: 1 });
			expect(memory.kept(new Map())).toEqual([id]);
			await memory.remember(new Map([['de/B', { s: 'A' as const, d: 2 }]]), []);
			// As saved: its own entry, the list's prototype untouched (entries, not an object literal, which
			// would read `__proto__` as the prototype).
			const saved = savedCompanies(staticData);
			expect(Object.entries(saved)).toStrictEqual([
				[id, snapshot],
				['de/B', { s: 'A', d: 2 }],
			]);
			expect(Object.getPrototypeOf(saved)).toBe(Object.prototype);
			// Not kept: dropped as any other company.
			const next = new StaticDataMemory(staticData, silent, keepNone);
			await next.remember(new Map(), []);
			expect(staticData.companies).toBe('{}');
		},
	);

	// What registries put in names and addresses, through n8n's save (JSON of the static data, the text in it
	// escaped once more) and load: the same text, so the same company is no change.
	it.each([
		['quotes and backslashes', 'Smith "The Mill" \\ Sons Ltd'],
		['line and paragraph separators', 'Alpha\u2028Beta\u2029GmbH'],
		['a lone surrogate (a name cut in the middle of a pair)', 'Alpha \ud83d'],
		['a low surrogate alone', '\ude00 Alpha'],
		['NUL and control characters', 'Alpha\u0000\u0001\t\nGmbH'],
		['a pair (an emoji) and letters of other scripts', 'Αλφα 株式会社 \ud83d\ude00'],
	])('a name with %s comes back as it was: no change', async (_label, officialName) => {
		let staticData: Record<string, unknown> = {};
		const run = async (day: number) => {
			staticData = JSON.parse(JSON.stringify(staticData)) as Record<string, unknown>;
			return await detectChanges(
				new StaticDataMemory(staticData, silent, keepNone),
				[{ key: key('A'), record: record('Active', officialName), itemIndex: 0 }],
				[],
				{ now: new Date(day * DAY_MS), reportFirstSightings: false },
			);
		};
		expect(await run(1)).toEqual([]);
		expect(savedCompanies(staticData)['de/A']).toStrictEqual({ s: 'A', n: officialName, d: 1 });
		expect(await run(2)).toEqual([]);
		const renamed = await detectChanges(
			new StaticDataMemory(
				JSON.parse(JSON.stringify(staticData)) as Record<string, unknown>,
				silent,
				keepNone,
			),
			[{ key: key('A'), record: record('Active', `${officialName} AG`), itemIndex: 0 }],
			[],
			{ now: new Date(3 * DAY_MS), reportFirstSightings: false },
		);
		expect(renamed.map((found) => found.change.changedFields)).toEqual([['officialName']]);
		expect(renamed[0].previous).toStrictEqual({ s: 'A', n: officialName, d: 2 });
	});
});

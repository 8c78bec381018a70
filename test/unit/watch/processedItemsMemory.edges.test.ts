import { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import type { CompanyRecord } from '../../../nodes/shared/model/companyRecord';
import type { LookupKey } from '../../../nodes/shared/model/lookupKey';
import { detectChanges } from '../../../nodes/shared/watch/detector';
import { ProcessedItemsMemory } from '../../../nodes/shared/watch/processedItemsMemory';
import { helpersOf, STORE_CONTEXT } from './storeFixtures';

// The processed-items store as a queue-mode worker has it (no static data): the store alone is the
// memory. Case by case what the property test (detector.property) checks over random runs.

const registered = (
	status: string,
	officialName = 'Alpha GmbH',
	/** null: none known. */
	registeredAddress: string | null = 'Hauptstr. 1',
): CompanyRecord =>
	({
		isRegistered: true,
		officialName,
		status,
		registrationDate: '2001-01-01',
		...(registeredAddress !== null ? { registeredAddress } : {}),
	}) as CompanyRecord;
const NOT_REGISTERED = { isRegistered: false } as CompanyRecord;

const keys: LookupKey[] = Array.from({ length: 41 }, (_, index) => ({
	countryCode: 'de',
	companyId: `HRB${index}`,
}));

function worker(store = new HarnessStore(), withRemove = true) {
	const calls: string[] = [];
	const removed: string[][] = [];
	const helpers = helpersOf(store, { calls, withRemove, removed });
	let day = 0;
	/**
	 * `records[i]` undefined: company i is not named; `unchecked`: named, its lookup failed; `reversed`:
	 * the list names them last to first.
	 */
	const run = async (
		records: Array<CompanyRecord | undefined>,
		unchecked: number[] = [],
		reversed = false,
	) => {
		day += 1;
		calls.length = 0;
		const found = await detectChanges(
			new ProcessedItemsMemory(helpers),
			(reversed ? [...records.entries()].reverse() : [...records.entries()]).flatMap(
				([itemIndex, record]) =>
					record && !unchecked.includes(itemIndex)
						? [{ key: keys[itemIndex], record, itemIndex }]
						: [],
			),
			unchecked.map((index) => keys[index]),
			{ now: new Date(Date.UTC(2026, 0, day)), reportFirstSightings: true },
		);
		return found.map((change) => ({
			at: change.itemIndex,
			event: change.change.event,
			fields: change.change.changedFields,
			changes: change.change.changes,
			previous: change.previous,
		}));
	};
	return { run, store, calls, removed, entries: () => store.entriesOf('w', 'n') };
}

const A = registered('Active');

describe('the store alone, as on a queue-mode worker', () => {
	it('a first run finds its block not held and the row holding nothing else (a count), asks nothing more, and writes three entries a registered company, one an unregistered, after their block entry', async () => {
		const watch = worker();
		expect((await watch.run([A, NOT_REGISTERED])).map((found) => found.event)).toEqual([
			'firstSeen',
			'firstSeen',
		]);
		expect(watch.calls).toEqual(['record 1', 'count', 'clear', 'record 5']);
		expect(watch.entries()).toBe(5);
	});

	it.each([12, 20])(
		'a quiet run of %i companies asks one block entry per 10, in one call, counts the row (it may hold more), and writes nothing',
		async (size) => {
			const watch = worker();
			const quiet = [...Array<CompanyRecord>(size - 1).fill(A), NOT_REGISTERED];
			await watch.run(quiet);
			expect(await watch.run(quiet)).toEqual([]);
			expect(watch.calls).toEqual(['record 2', 'count']);
			expect(watch.entries()).toBe(3 * (size - 1) + 1 + 2);
		},
	);

	it('the same companies in another order: their block is new, each is asked, none changed, and the row is written anew', async () => {
		const watch = worker();
		await watch.run([A, A]);
		expect(await watch.run([A, A], [], true)).toEqual([]);
		// Step 1: their entries, and whether the row holds patches (none of its blocks held: storePatches.ts).
		expect(watch.calls).toEqual(['record 1', 'count', 'record 7', 'clear', 'record 7']);
		expect(await watch.run([A, A], [], true)).toEqual([]);
		expect(watch.calls).toEqual(['record 1', 'count']);
	});

	it('a change asks the entries of its block alone (10 companies), and the row is written anew', async () => {
		const watch = worker();
		const quiet = Array<CompanyRecord>(21).fill(A);
		await watch.run(quiet);
		const changed = [...quiet];
		changed[12] = registered('Inactive');
		expect((await watch.run(changed)).map((found) => [found.at, found.event])).toEqual([
			[12, 'turnedInactive'],
		]);
		// The blocks (one not held: the row is written anew, so it is not counted); the 30 entries of the
		// second and whether the row holds patches; the statuses that may have been; the row, 63 + 3 blocks.
		expect(watch.calls).toEqual(['record 3', 'record 31', 'record 3', 'clear', 'record 66']);
		expect(await watch.run(changed)).toEqual([]);
		expect(watch.calls).toEqual(['record 3', 'count']);
	});

	it('a status change: the previous status from the store, the name and address as they are', async () => {
		const watch = worker();
		await watch.run([A]);
		expect(await watch.run([registered('Inactive')])).toEqual([
			{
				at: 0,
				event: 'turnedInactive',
				fields: ['status'],
				changes: { status: { previous: 'Active', current: 'Inactive' } },
				previous: { s: 'A', n: 'Alpha GmbH', a: 'Hauptstr. 1' },
			},
		]);
		expect(await watch.run([registered('Inactive')])).toEqual([]);
		expect((await watch.run([A])).map((found) => found.event)).toEqual(['turnedActive']);
		expect(watch.entries()).toBe(4);
	});

	it.each<[string, CompanyRecord, string[]]>([
		['the name', registered('Active', 'Alpha AG'), ['officialName']],
		['the address', registered('Active', 'Alpha GmbH', 'Ring 2'), ['registeredAddress']],
		['the address, gone', registered('Active', 'Alpha GmbH', null), ['registeredAddress']],
		['both', registered('Active', 'Alpha AG', 'Ring 2'), ['officialName', 'registeredAddress']],
		['the status and the name', registered('Inactive', 'Alpha AG'), ['status', 'officialName']],
	])('%s changed: reported, the old value unknown', async (_what, record, fields) => {
		const watch = worker();
		await watch.run([A, A]);
		const [found, ...more] = await watch.run([A, record]);
		expect(more).toEqual([]);
		expect(found.at).toBe(1);
		expect(found.fields).toEqual(fields);
		for (const field of fields.filter((name) => name !== 'status'))
			expect(found.changes[field as 'officialName']?.previous).toBeNull();
		expect(await watch.run([A, record])).toEqual([]);
	});

	it('leaving and re-entering the register', async () => {
		const watch = worker();
		await watch.run([A]);
		expect((await watch.run([NOT_REGISTERED])).map((found) => found.event)).toEqual([
			'deregistered',
		]);
		expect(watch.entries()).toBe(2);
		expect(await watch.run([NOT_REGISTERED])).toEqual([]);
		expect((await watch.run([A])).map((found) => found.event)).toEqual(['reregistered']);
	});

	it('a company back in the register had, before, no name or address (as the static data says)', async () => {
		const watch = worker();
		await watch.run([NOT_REGISTERED]);
		const [found] = await watch.run([A]);
		expect([found.event, found.previous]).toEqual(['reregistered', { s: 'N' }]);
	});

	it('a company that could not be checked keeps its status: a status change meanwhile is reported, a name change cannot be', async () => {
		const watch = worker();
		await watch.run([A, A]);
		expect(await watch.run([A, A], [1])).toEqual([]);
		// The row keeps its status and that its details are unknown, again while it fails.
		expect(watch.entries()).toBe(6);
		expect(await watch.run([A, A], [1])).toEqual([]);
		expect(watch.entries()).toBe(6);
		expect(
			(await watch.run([A, registered('Inactive', 'Alpha AG')])).map((found) => [
				found.event,
				found.fields,
			]),
		).toEqual([['turnedInactive', ['status']]]);
		expect(await watch.run([A, registered('Inactive', 'Alpha AG')])).toEqual([]);
	});

	it('an unregistered company that could not be checked stays unregistered in the row', async () => {
		const watch = worker();
		await watch.run([A, NOT_REGISTERED]);
		await watch.run([A, NOT_REGISTERED], [1]);
		expect(watch.entries()).toBe(5);
		expect((await watch.run([A, A])).map((found) => found.event)).toEqual(['reregistered']);
	});

	it("a rename written in the fold's own form (lower case) is reported: its new name is not asked again as an earlier form (step 1 recorded it)", async () => {
		const watch = worker();
		await watch.run([registered('Active', 'alpha gmbh', 'hauptstr. 1')]);
		expect(
			(await watch.run([registered('Active', 'beta ag', 'ring 2')])).map((found) => found.fields),
		).toEqual([['officialName', 'registeredAddress']]);
		expect(watch.calls).toEqual(['record 1', 'count', 'record 4', 'record 4', 'clear', 'record 4']);
	});

	it("a company that could not be checked says nothing of another's details: a rename meanwhile is reported", async () => {
		const watch = worker();
		await watch.run([A, A]);
		await watch.run([A, A], [1]);
		expect(
			(await watch.run([registered('Active', 'Alpha AG'), A], [1])).map((found) => [
				found.at,
				found.fields,
			]),
		).toEqual([[0, ['officialName']]]);
	});

	it("a row written as JSON.stringify would (its block texts: the companies' entries joined) is held as it is: a quiet run asks its block alone and writes nothing", async () => {
		const watch = worker();
		// Eleven companies, the last not registered: two blocks, names and addresses case-folded.
		const entriesOf = (index: number) =>
			index === 10
				? [`["de/HRB${index}","status","N"]`]
				: [
						`["de/HRB${index}","status","A"]`,
						`["de/HRB${index}","name","alpha gmbh"]`,
						`["de/HRB${index}","address","hauptstr. 1"]`,
					];
		const row = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [10]].flatMap((block) => {
			const entries = block.flatMap(entriesOf);
			return [`["companies",${entries.join(',')}]`, ...entries];
		});
		await watch.store.checkProcessedAndRecord(row, 'node', STORE_CONTEXT, {
			mode: 'entries',
			maxEntries: 500_000,
		});
		expect(await watch.run([...Array<CompanyRecord>(10).fill(A), NOT_REGISTERED])).toEqual([]);
		expect(watch.calls).toEqual(['record 2', 'count']);
		expect(watch.entries()).toBe(33);
	});

	it('a row written with JSON.stringify is held as it is, whatever the names hold (quotes, backslashes, controls, surrogates, no address): its blocks, and, in another order, each entry', async () => {
		const names = [
			'Müller & "Söhne" GmbH',
			'Back\\slash\tTab AG',
			'\u0001\u001f\u007f Kontrolle',
			'😀 Emoji AG',
			'Lone \ud800 Surrogate',
			'x\udc00',
			'Line\u2028Separator',
			'',
			// Nothing but what JSON escapes.
			'"\\\n',
			'Ünïcödé',
			'null',
		];
		// The last has no address: its address entry says null.
		const addresses = names.map((name, index) => (index < 10 ? `${name} Str. 1` : null));
		const records = names.map((name, index) => registered('Active', name, addresses[index]));
		const entriesOf = (index: number) =>
			[
				['status', 'A'],
				['name', names[index]],
				['address', addresses[index]],
			].map(([field, value]) =>
				// Names and addresses are written in their canonical form, case-folded (snapshot.ts).
				JSON.stringify([
					`de/HRB${index}`,
					field,
					field === 'status' || value === null
						? value
						: value.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase(),
				]),
			);
		const row = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [10]].flatMap((block) => {
			const entries = block.flatMap(entriesOf);
			return [
				JSON.stringify(['companies', ...entries.map((entry) => JSON.parse(entry) as unknown)]),
				...entries,
			];
		});
		for (const reversed of [false, true]) {
			const watch = worker();
			await watch.store.checkProcessedAndRecord(row, 'node', STORE_CONTEXT, {
				mode: 'entries',
				maxEntries: 500_000,
			});
			expect(await watch.run(records, [], reversed)).toEqual([]);
			// In order: both blocks held, nothing else asked; reversed: no block held, every entry held.
			expect(watch.calls).toEqual(
				reversed ? ['record 2', 'count', 'record 34', 'clear', 'record 35'] : ['record 2', 'count'],
			);
		}
	});

	it('a run naming no company clears the row and records nothing', async () => {
		const watch = worker();
		await watch.run([A]);
		expect(await watch.run([])).toEqual([]);
		expect(watch.calls).toEqual(['count', 'clear']);
		expect(watch.entries()).toBe(0);
	});

	it("a deregistered company's status is not asked twice: step 1 asked it", async () => {
		const watch = worker();
		await watch.run([A]);
		await watch.run([NOT_REGISTERED]);
		// Its block; step 1 its status entry (and whether the row holds patches); step 2 the other two
		// statuses and whether details are known.
		expect(watch.calls).toEqual(['record 1', 'count', 'record 2', 'record 3', 'clear', 'record 2']);
	});

	it('a company failing on its first check is not in the row', async () => {
		const watch = worker();
		await watch.run([A]);
		await watch.run([A, A], [1]);
		expect(watch.entries()).toBe(4);
		expect((await watch.run([A, A])).map((found) => found.event)).toEqual(['firstSeen']);
	});

	it('a company no row names is forgotten: back, it starts a new baseline', async () => {
		const watch = worker();
		await watch.run([A, A]);
		await watch.run([A]);
		expect(watch.entries()).toBe(4);
		expect((await watch.run([A, registered('Inactive')])).map((found) => found.event)).toEqual([
			'firstSeen',
		]);
	});

	it("an unregistered company before others (one entry, not three): each company's answers are its own", async () => {
		const watch = worker();
		await watch.run([NOT_REGISTERED, A, A]);
		expect(
			(
				await watch.run([NOT_REGISTERED, registered('Inactive'), registered('Active', 'Alpha AG')])
			).map((found) => [found.at, found.event, found.fields]),
		).toEqual([
			[1, 'turnedInactive', ['status']],
			[2, 'detailsChanged', ['officialName']],
		]);
	});

	it('a row holding two statuses of one company (a run stopped half-way) is not trusted: a new baseline', async () => {
		const watch = worker();
		await watch.run([A]);
		await watch.store.checkProcessedAndRecord(['["de/HRB0","status","I"]'], 'node', STORE_CONTEXT, {
			mode: 'entries',
		});
		expect(
			(await watch.run([registered('Inactive', 'Alpha AG')])).map((found) => found.event),
		).toEqual(['firstSeen']);
	});

	it('a company whose entries n8n trimmed away starts a new baseline, never a false change', async () => {
		const watch = worker();
		// Room for five entries: the block and the first company's status entry go (its name and address
		// stay); the new block the next run records pushes out its name, its entries the second's status.
		watch.store.capacity = 5;
		await watch.run([A, A]);
		expect(
			(await watch.run([registered('Inactive'), registered('Inactive')])).map((found) => [
				found.at,
				found.event,
			]),
		).toEqual([
			[0, 'firstSeen'],
			[1, 'firstSeen'],
		]);
		// Room for the row: both were the baseline of the change back.
		watch.store.capacity = 20;
		await watch.run([registered('Inactive'), registered('Inactive')]);
		expect((await watch.run([A, A])).map((found) => [found.at, found.event])).toEqual([
			[0, 'turnedActive'],
			[1, 'turnedActive'],
		]);
	});

	it('a call that fails once is made once more', async () => {
		const watch = worker();
		await watch.run([A]);
		const real = watch.store.checkProcessedAndRecord.bind(watch.store);
		let failures = 0;
		watch.store.checkProcessedAndRecord = async (...args) => {
			if (failures++ === 0) throw new Error('duplicate key value violates unique constraint');
			return await real(...args);
		};
		expect((await watch.run([registered('Inactive')])).map((found) => found.event)).toEqual([
			'turnedInactive',
		]);
	});
});

/**
 * The row as the version before this one wrote it (four entries a registered company: the whole record
 * first), for companies at `records` (undefined: not registered).
 */
function rowOfEarlierVersion(records: Array<[string, string, string] | undefined>): string[] {
	return records.flatMap((record, index) => {
		const id = JSON.stringify(`de/HRB${index}`);
		if (!record) return [`[${id},"status","N"]`];
		const [status, name, address] = record.map((value) => JSON.stringify(value));
		return [
			`[${id},"company",${status},${name},${address}]`,
			`[${id},"status",${status}]`,
			`[${id},"name",${name}]`,
			`[${id},"address",${address}]`,
		];
	});
}

describe('a row written by the version before (four entries a company), on a worker', () => {
	it('its first run reports every change, no other event, and writes the row in three entries a company', async () => {
		const watch = worker();
		await watch.store.checkProcessedAndRecord(
			rowOfEarlierVersion([
				['A', 'Alpha GmbH', 'Hauptstr. 1'],
				['A', 'Alpha GmbH', 'Hauptstr. 1'],
				['A', 'Alpha GmbH', 'Hauptstr. 1'],
			]),
			'node',
			STORE_CONTEXT,
			{ mode: 'entries' },
		);
		expect(
			await watch.run([A, registered('Inactive'), registered('Active', 'Alpha AG', 'Ring 2')]),
		).toEqual([
			{
				at: 1,
				event: 'turnedInactive',
				fields: ['status'],
				changes: { status: { previous: 'Active', current: 'Inactive' } },
				previous: { s: 'A', n: 'Alpha GmbH', a: 'Hauptstr. 1' },
			},
			{
				at: 2,
				event: 'detailsChanged',
				fields: ['officialName', 'registeredAddress'],
				changes: {
					officialName: { previous: null, current: 'Alpha AG' },
					registeredAddress: { previous: null, current: 'Ring 2' },
				},
				previous: { s: 'A' },
			},
		]);
		expect(watch.entries()).toBe(10);
		expect(
			await watch.run([A, registered('Inactive'), registered('Active', 'Alpha AG', 'Ring 2')]),
		).toEqual([]);
	});

	it('a company not registered, and one the earlier version could not check, as that version left them', async () => {
		const watch = worker();
		await watch.store.checkProcessedAndRecord(
			[
				...rowOfEarlierVersion([undefined]),
				'["de/HRB1","status","A"]',
				'["de/HRB1","details","unknown"]',
			],
			'node',
			STORE_CONTEXT,
			{ mode: 'entries' },
		);
		expect(
			(await watch.run([A, registered('Inactive', 'Alpha AG')])).map((found) => [
				found.at,
				found.event,
				found.fields,
			]),
		).toEqual([
			[0, 'reregistered', ['registration']],
			[1, 'turnedInactive', ['status']],
		]);
	});
});

describe('a run that fails part-way leaves the row as the last run left it', () => {
	const failing = (
		watch: ReturnType<typeof worker>,
		method: 'checkProcessedAndRecord' | 'clearAllProcessedItems' | 'getProcessedDataCount',
		from: number,
	) => {
		const real = watch.store[method].bind(watch.store) as (...args: unknown[]) => Promise<unknown>;
		let calls = 0;
		watch.store[method] = (async (...args: unknown[]) => {
			calls += 1;
			// The call and the one more try it is given.
			if (calls >= from && calls <= from + 1) throw new Error('deadlock detected');
			return await real(...args);
		}) as never;
		return () => (watch.store[method] = real as never);
	};

	it.each<[string, 'checkProcessedAndRecord' | 'clearAllProcessedItems', number, string[]]>([
		['step 2', 'checkProcessedAndRecord', 3, ['status', 'officialName']],
		['the clear', 'clearAllProcessedItems', 1, ['status', 'officialName']],
		// The row is written back as recall learned it: the old name a worker never knew is not in it.
		['the write after the clear', 'checkProcessedAndRecord', 4, ['status']],
	])(
		'failing at %s, the change is reported by the next run',
		async (_what, method, from, fields) => {
			const watch = worker();
			await watch.run([A, A]);
			const changed = [A, registered('Inactive', 'Alpha AG')];
			const restore = failing(watch, method, from);
			await expect(watch.run(changed)).rejects.toThrow('deadlock detected');
			restore();
			expect((await watch.run(changed)).map((found) => [found.event, found.fields])).toEqual([
				['turnedInactive', fields],
			]);
			expect(await watch.run(changed)).toEqual([]);
		},
	);

	it("failing at the count after a first run's blocks, the run fails and its blocks are removed: the next run is a first run", async () => {
		const watch = worker();
		const restore = failing(watch, 'getProcessedDataCount', 1);
		await expect(watch.run([A, A])).rejects.toThrow('deadlock detected');
		restore();
		expect(watch.entries()).toBe(0);
		expect(await watch.run([A, A])).toEqual([
			expect.objectContaining({ at: 0, event: 'firstSeen' }),
			expect.objectContaining({ at: 1, event: 'firstSeen' }),
		]);
		expect(watch.calls).toEqual(['record 1', 'count', 'clear', 'record 7']);
	});

	it('failing at the write after a status change alone, the row written back keeps the name: a rename with the change back is reported whole', async () => {
		const watch = worker();
		const noAddress = registered('Active', 'Alpha GmbH', null);
		await watch.run([noAddress, noAddress]);
		const restore = failing(watch, 'checkProcessedAndRecord', 4);
		await expect(
			watch.run([noAddress, registered('Inactive', 'Alpha GmbH', null)]),
		).rejects.toThrow('deadlock detected');
		restore();
		// The last run's entries, and no more.
		expect(watch.entries()).toBe(6);
		expect(
			(await watch.run([noAddress, registered('Inactive', 'Alpha AG', null)])).map((found) => [
				found.event,
				found.fields,
			]),
		).toEqual([['turnedInactive', ['status', 'officialName']]]);
	});

	it('failing at the write after a status and address change (old address unknown), the next run reports the status alone', async () => {
		const watch = worker();
		await watch.run([A, A]);
		const changed = [A, registered('Inactive', 'Alpha GmbH', 'Ring 2')];
		const restore = failing(watch, 'checkProcessedAndRecord', 4);
		await expect(watch.run(changed)).rejects.toThrow('deadlock detected');
		restore();
		expect((await watch.run(changed)).map((found) => [found.event, found.fields])).toEqual([
			['turnedInactive', ['status']],
		]);
	});

	it('failing at the write after a reregistration, the row written back says not registered', async () => {
		const watch = worker();
		await watch.run([NOT_REGISTERED]);
		const restore = failing(watch, 'checkProcessedAndRecord', 4);
		await expect(watch.run([A])).rejects.toThrow('deadlock detected');
		restore();
		expect((await watch.run([A])).map((found) => found.event)).toEqual(['reregistered']);
	});

	it('failing at the write, a company that could not be checked keeps its status in the row written back', async () => {
		const watch = worker();
		await watch.run([A, A, A]);
		const restore = failing(watch, 'checkProcessedAndRecord', 4);
		await expect(watch.run([A, A, registered('Inactive')], [1])).rejects.toThrow(
			'deadlock detected',
		);
		restore();
		expect(
			(await watch.run([A, registered('Inactive'), registered('Inactive')])).map((found) => [
				found.at,
				found.event,
			]),
		).toEqual([
			[1, 'turnedInactive'],
			[2, 'turnedInactive'],
		]);
	});

	it('failing at the write, a company seen first is not in the row written back: the next run sees it first', async () => {
		const watch = worker();
		await watch.run([A]);
		const restore = failing(watch, 'checkProcessedAndRecord', 4);
		await expect(watch.run([A, A])).rejects.toThrow('deadlock detected');
		restore();
		expect(watch.entries()).toBe(3);
		expect((await watch.run([A, A])).map((found) => [found.at, found.event])).toEqual([
			[1, 'firstSeen'],
		]);
	});

	it('failing at step 2 of a run that recorded nothing new, nothing is removed', async () => {
		const watch = worker();
		await watch.run([A, A]);
		await watch.run([A, A], [1]);
		// Its block held, the first company is not asked: step 2 (the second's statuses) is the second call.
		const restore = failing(watch, 'checkProcessedAndRecord', 2);
		await expect(watch.run([A, A], [1])).rejects.toThrow('deadlock detected');
		restore();
		expect(watch.removed).toEqual([]);
	});

	it('entries recorded before a failure are removed, and only those', async () => {
		const watch = worker();
		await watch.run([A, A]);
		const restore = failing(watch, 'checkProcessedAndRecord', 3);
		await expect(watch.run([A, registered('Inactive')])).rejects.toThrow('deadlock detected');
		restore();
		const entries = (id: string, status: string) =>
			`["${id}","status","${status}"],["${id}","name","alpha gmbh"],["${id}","address","hauptstr. 1"]`;
		expect(watch.removed).toEqual([
			[
				`["companies",${entries('de/HRB0', 'A')},${entries('de/HRB1', 'I')}]`,
				'["de/HRB1","status","I"]',
				'["row patched"]',
			],
		]);
		expect(watch.entries()).toBe(7);
	});

	it('a block recorded before a failure at step 1 is removed', async () => {
		const watch = worker();
		await watch.run([A, A]);
		const restore = failing(watch, 'checkProcessedAndRecord', 2);
		await expect(watch.run([A, registered('Inactive')])).rejects.toThrow('deadlock detected');
		restore();
		expect(watch.removed).toHaveLength(1);
		expect(watch.entries()).toBe(7);
		expect((await watch.run([A, registered('Inactive')])).map((found) => found.event)).toEqual([
			'turnedInactive',
		]);
	});

	it('a store without removeProcessed: the run fails with its own error', async () => {
		const watch = worker(new HarnessStore(), false);
		await watch.run([A]);
		const restore = failing(watch, 'checkProcessedAndRecord', 2);
		await expect(watch.run([registered('Inactive')])).rejects.toThrow('deadlock detected');
		restore();
	});

	it('a quiet run that fails at its question removes nothing', async () => {
		const watch = worker();
		await watch.run([A]);
		const restore = failing(watch, 'checkProcessedAndRecord', 1);
		await expect(watch.run([A])).rejects.toThrow('deadlock detected');
		restore();
		expect(watch.removed).toEqual([]);
	});
});

describe("a worker whose blocks are mostly held: step 2's questions in step 1's call", () => {
	// 41 companies: four blocks of 10 and one of the last. One block not held: 10 of 41 asked (a quarter at most).
	const many = (count = 41) => Array<CompanyRecord>(count).fill(A);
	const withOne = (at: number, record: CompanyRecord, count = 41) => {
		const records = many(count);
		records[at] = record;
		return records;
	};
	const events = (found: Awaited<ReturnType<ReturnType<typeof worker>['run']>>) =>
		found.map((change) => [change.at, change.event, change.previous]);

	it('a change: its block alone asked, with the other statuses and whether the details were known, in one call; the row written anew', async () => {
		const watch = worker();
		await watch.run(many());
		expect(events(await watch.run(withOne(12, registered('Inactive'))))).toEqual([
			[12, 'turnedInactive', { s: 'A', n: 'Alpha GmbH', a: 'Hauptstr. 1' }],
		]);
		// The 5 blocks; the 30 entries of the second, 2 other statuses and 1 details question of each, the
		// name and address in the case the version before kept (a row it wrote holds them), and whether the
		// row holds patches; the row.
		expect(watch.calls).toEqual(['record 5', 'record 81', 'clear', 'record 128']);
		expect(watch.entries()).toBe(128);
		expect(await watch.run(withOne(12, registered('Inactive')))).toEqual([]);
		expect(watch.calls).toEqual(['record 5', 'count']);
	});

	it("names and addresses already in the fold's form (lower case): no earlier form to ask", async () => {
		const watch = worker();
		const folded = registered('Active', 'alpha gmbh', 'hauptstr. 1');
		await watch.run(Array<CompanyRecord>(41).fill(folded));
		const records = Array<CompanyRecord>(41).fill(folded);
		records[12] = registered('Inactive', 'alpha gmbh', 'hauptstr. 1');
		expect((await watch.run(records)).map((found) => found.event)).toEqual(['turnedInactive']);
		// The 30 entries of the second block, 2 other statuses and 1 details question of each.
		expect(watch.calls).toEqual(['record 5', 'record 61', 'clear', 'record 128']);
	});

	it('more than a quarter asked: step 2 a call of its own, for the changed companies alone', async () => {
		const watch = worker();
		await watch.run(many(39));
		// 10 of 39 asked.
		await watch.run(withOne(12, registered('Inactive'), 39));
		expect(watch.calls).toEqual(['record 4', 'record 31', 'record 3', 'clear', 'record 121']);
	});

	it('left the register, and back: the previous status from the folded questions', async () => {
		const watch = worker();
		await watch.run(many());
		expect(events(await watch.run(withOne(3, NOT_REGISTERED)))).toEqual([
			// A worker knows no old name or address (the row holds hashes).
			[3, 'deregistered', { s: 'A' }],
		]);
		expect(events(await watch.run(many()))).toEqual([[3, 'reregistered', { s: 'N' }]]);
		expect(events(await watch.run(withOne(3, registered('Inactive'))))).toEqual([
			[3, 'turnedInactive', { s: 'A', n: 'Alpha GmbH', a: 'Hauptstr. 1' }],
		]);
	});

	it('a new name: known details, so a change of name, its old value unknown to the store', async () => {
		const watch = worker();
		await watch.run(many());
		const found = await watch.run(withOne(25, registered('Active', 'Beta AG')));
		expect(found.map((change) => [change.at, change.event, change.fields])).toEqual([
			[25, 'detailsChanged', ['officialName']],
		]);
		expect(watch.calls).toEqual(['record 5', 'record 81', 'clear', 'record 128']);
	});

	it('a name sent in another form than the canonical one, changed: asked as it came too, and not held', async () => {
		const watch = worker();
		await watch.run(withOne(7, registered('Active', 'Alpha  GmbH')));
		const found = await watch.run(withOne(7, registered('Active', 'Gamma  GmbH')));
		expect(found.map((change) => [change.at, change.event, change.fields])).toEqual([
			[7, 'detailsChanged', ['officialName']],
		]);
		// The 30 entries, 30 questions, 20 names and addresses in the case the version before kept, and
		// company 7's name as it came.
		expect(watch.calls).toEqual(['record 5', 'record 82', 'clear', 'record 128']);
	});

	it('a company whose lookup failed: its statuses asked in the same call, and a change meanwhile reported once it is checked', async () => {
		const watch = worker();
		await watch.run(many());
		// The last company fails: its block is gone from the row; 10 others asked with it.
		await watch.run(withOne(15, registered('Inactive')), [40]);
		// Its status and that its details are unknown carried: 40 × 3 + 4 blocks + 2.
		expect(watch.calls).toEqual(['record 4', 'record 84', 'clear', 'record 126']);
		expect(events(await watch.run(withOne(40, registered('Inactive'))))).toEqual([
			[15, 'turnedActive', { s: 'I', n: 'Alpha GmbH', a: 'Hauptstr. 1' }],
			// Its details unknown: shown as they are now.
			[40, 'turnedInactive', { s: 'A', n: 'Alpha GmbH', a: 'Hauptstr. 1' }],
		]);
	});
});

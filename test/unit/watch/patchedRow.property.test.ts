import { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import type { CompanyRecord } from '../../../nodes/shared/model/companyRecord';
import type { LookupKey } from '../../../nodes/shared/model/lookupKey';
import { detectChanges } from '../../../nodes/shared/watch/detector';
import { StaticDataMemory } from '../../../nodes/shared/watch/memory';
import { ProcessedItemsMemory } from '../../../nodes/shared/watch/processedItemsMemory';
import { STORE_CAPACITY } from '../../../nodes/shared/watch/storeRow';
import {
	compareSnapshots,
	sameText,
	snapshotOf,
	watchKey,
	type CompanyChange,
} from '../../../nodes/shared/watch/snapshot';
import { mulberry32 } from '../../../sandbox/faults';
import { drawnCompany, helpersOf, notRegistered } from './storeFixtures';

// Issue 22's patches (storePatches.ts): a main process whose static data vouches for the row appends the
// companies that changed instead of writing the row anew; a worker, or a main process whose static data
// does not vouch for the row, reads the patches. The same reference model as detector.property.test.ts:
// each company's record at its last successful check. A change back to an earlier value (A, B, A) is what
// a patch must not hide: values repeat. Small limits, so that runs both append and write anew.

type Variant =
	| 'main'
	| 'main, some saves lost'
	| 'companies not named forgotten, some runs on a worker'
	| 'worker'
	| 'some runs on a worker'
	| 'some runs on a worker as n8n runs one (its static data empty, not kept)'
	| 'some runs on a worker, some killed mid-run'
	| 'some runs on a worker, some killed mid-run, on a main process too'
	| 'main, some saves lost, the row at a small capacity';
interface Company {
	key: LookupKey;
	record: CompanyRecord;
}

const NAMES = ['Alpha GmbH', 'Alpha  GmbH ', 'Beta GmbH', 'Gämma GmbH'];
const ADDRESSES = ['Hauptstr. 1', 'Ring 2', 'Ring 2'.normalize('NFD'), undefined];

const record = (random: () => number, registered = true): CompanyRecord =>
	registered ? drawnCompany(random, NAMES, ADDRESSES) : notRegistered();

/** One change of a company's record: status, name, address or registration (values repeat: A, B, A). */
function mutate(random: () => number, company: Company): void {
	const current = company.record as CompanyRecord & { status: string; officialName: string };
	const roll = random();
	if (!current.isRegistered) company.record = record(random);
	else if (roll < 0.15) company.record = record(random, false);
	else if (roll < 0.55)
		company.record = {
			...current,
			status: current.status === 'Active' ? 'Inactive' : 'Active',
		} as CompanyRecord;
	else if (roll < 0.8)
		company.record = {
			...current,
			officialName: NAMES[Math.floor(random() * NAMES.length)],
		} as CompanyRecord;
	else {
		const address = ADDRESSES[Math.floor(random() * ADDRESSES.length)];
		const { registeredAddress: _old, ...rest } = current as CompanyRecord & {
			registeredAddress?: string;
		};
		company.record = {
			...rest,
			...(address ? { registeredAddress: address } : {}),
		} as CompanyRecord;
	}
}

const logger = { warn: () => undefined };

/**
 * Whether a reported change says what the model's does: its event, its fields among the model's (as in
 * detector.property.test.ts: a worker that could not check a company once knows its status alone, and a
 * run whose static data is older than the row may not know an old name or address), their values.
 */
function mismatch(got: CompanyChange, truth: CompanyChange): string | undefined {
	if (
		got.event !== truth.event ||
		got.changedFields.some((field) => !truth.changedFields.includes(field))
	)
		return `${got.event} ${got.changedFields.join()} where the model says ${truth.event} ${truth.changedFields.join()}`;
	for (const field of got.changedFields) {
		const [value, expected] = [got.changes[field]!, truth.changes[field]!];
		const previousReads =
			value.previous === null ||
			(typeof value.previous === 'string' && typeof expected.previous === 'string'
				? sameText(value.previous, expected.previous)
				: value.previous === expected.previous);
		if (value.current !== expected.current || !previousReads) return `wrong values of ${field}`;
	}
	return undefined;
}

async function simulate(seed: number, variant: Variant) {
	const random = mulberry32(seed);
	const size = 2 + Math.floor(random() * 30);
	const companies: Company[] = Array.from({ length: size }, (_, index) => ({
		key: { countryCode: 'de', companyId: `HRB${index}` },
		record: record(random, random() < 0.9),
	}));
	const store = new HarnessStore();
	// Small limits: the runs reach a rewrite now and then, and append between.
	const limits = { patches: 2 + Math.floor(random() * 6), changedPatches: 3, share: 10 };
	let saved: Record<string, unknown> = {};
	const remembered = new Map<number, CompanyRecord>();
	let checkedLastRun = new Set<number>();
	/** The companies a killed run asked of the row since it was last written anew (their answers it recorded). */
	const askedByKilled = new Set<number>();
	/**
	 * Records of a company since its last successful check from which no change was reported: what killed
	 * runs saw (they reported nothing), and the record before a change a run missed where the model allows
	 * it (after a killed run). A change from one of them is a change, reported once, late.
	 */
	const notReportedFrom = new Map<number, CompanyRecord[]>();
	let aSaveWasLost = false;
	const problems: string[] = [];
	let [reported, appended] = [0, 0];
	const runs = 6 + Math.floor(random() * 14);
	for (let run = 0; run < runs; run++) {
		const quiet = random() < 0.3;
		if (!quiet) for (const company of companies) if (random() < 0.15) mutate(random, company);
		const named = companies.map((_, index) => index).filter(() => random() < 0.9);
		const failing = new Set(named.filter(() => random() < 0.1));
		const checked = named.filter((index) => !failing.has(index));
		const onWorker =
			variant === 'worker' || (variant.includes('some runs on a worker') && random() < 0.4);
		const staticData = onWorker
			? {}
			: (JSON.parse(JSON.stringify(saved)) as Record<string, unknown>);
		// Forgotten (as the trigger forgets a company taken off its list): its patch drops it, and a worker
		// that reads the row later takes it as new when it is named again.
		const keep = () => variant !== 'companies not named forgotten, some runs on a worker';
		const notebook = new StaticDataMemory(staticData, logger, keep);
		const calls: string[] = [];
		// A worker killed mid-run (n8n's SIGKILL of a worker, a crash): after its first, second, … call on
		// the row. What it asked is recorded; it reports nothing and writes nothing.
		const killed =
			(onWorker || variant.includes('main process too')) &&
			variant.includes('killed') &&
			random() < 0.3;
		const callsBeforeKill = 1 + Math.floor(random() * 4);
		const memory = new ProcessedItemsMemory(
			helpersOf(store, {
				calls,
				fails: () => (killed && calls.length > callsBeforeKill ? new Error('killed') : undefined),
			}),
			onWorker && !variant.includes('as n8n runs one') ? undefined : notebook,
			// Past it n8n drops the oldest entries: a patch, or what step 1 found, may go between two calls.
			variant.includes('small capacity') ? 40 : STORE_CAPACITY,
			limits,
		);
		if (killed) {
			const current = new Map(
				checked.map((index) => [
					watchKey(companies[index].key),
					snapshotOf(companies[index].record, run),
				]),
			);
			await memory
				.recall(
					current,
					[...failing].map((index) => watchKey(companies[index].key)),
				)
				.catch(() => undefined);
			for (const index of named) askedByKilled.add(index);
			// A main process asks its static data's companies not named too (every status of each).
			for (const [index, { key }] of companies.entries())
				if (!onWorker && notebook.saved(watchKey(key))) askedByKilled.add(index);
			// A main process killed saves no static data: as a lost save.
			if (!onWorker) aSaveWasLost = true;
			for (const index of checked)
				notReportedFrom.set(index, [
					...(notReportedFrom.get(index) ?? []),
					companies[index].record,
				]);
			continue;
		}
		const found = await detectChanges(
			memory,
			checked.map((index) => ({
				key: companies[index].key,
				record: companies[index].record,
				itemIndex: index,
			})),
			[...failing].map((index) => companies[index].key),
			{ now: new Date(Date.UTC(2026, 0, 1 + run)), reportFirstSightings: false },
		);
		// A run that appended: its one call, the row not written anew.
		if (!onWorker && calls.length === 1 && calls[0].startsWith('record')) appended += 1;
		const saveLost = variant.includes('saves lost') && random() < 0.25;
		if (saveLost) aSaveWasLost = true;
		else if (!onWorker) saved = staticData;
		const byIndex = new Map(found.map((change) => [change.itemIndex, change.change]));
		for (const index of checked) {
			const before = remembered.get(index);
			const now = snapshotOf(companies[index].record, 0);
			const expected: CompanyChange | undefined = before
				? compareSnapshots(snapshotOf(before, 0), now)
				: undefined;
			const got = byIndex.get(index);
			const where = `seed ${seed} ${variant} run ${run} company ${index}`;
			if (got) {
				reported += 1;
				// The change from its last successful check, or from a record since whose change no run reported.
				const truths = [before, ...(notReportedFrom.get(index) ?? [])].flatMap((seen) => {
					const truth = seen && compareSnapshots(snapshotOf(seen, 0), now);
					return truth ? [truth] : [];
				});
				const mismatches = truths.map((truth) => mismatch(got, truth));
				if (truths.length === 0) problems.push(`${where}: false ${got.event}`);
				else if (!mismatches.includes(undefined)) problems.push(`${where}: ${mismatches[0]}`);
			}
			// Nothing missed: on a main process unless a save was lost; on a worker, of the companies
			// checked last run (only they are in the row for sure).
			// A company a killed run asked: its answers recorded may hide a change until the row is written anew.
			// Past the capacity a company whose entries n8n dropped starts a new baseline: missed, never false.
			const exact =
				!variant.includes('small capacity') &&
				!askedByKilled.has(index) &&
				!(aSaveWasLost && !onWorker) &&
				(onWorker || variant.includes('some runs on a worker')
					? checkedLastRun.has(index)
					: !aSaveWasLost);
			if (exact && expected && !got)
				problems.push(`${where}: missed ${expected.event} ${expected.changedFields.join()}`);
			remembered.set(index, companies[index].record);
			if (expected && !got)
				notReportedFrom.set(index, [...(notReportedFrom.get(index) ?? []), before!]);
			else notReportedFrom.delete(index);
		}
		if (variant === 'companies not named forgotten, some runs on a worker')
			for (const index of remembered.keys()) if (!named.includes(index)) remembered.delete(index);
		checkedLastRun = new Set(checked);
		if (calls.includes('clear')) askedByKilled.clear();
	}
	return { problems, reported, appended };
}

describe('patches (issue 22) against a reference model', () => {
	it.each<Variant>([
		'main',
		'main, some saves lost',
		'companies not named forgotten, some runs on a worker',
		'worker',
		'some runs on a worker',
		'some runs on a worker as n8n runs one (its static data empty, not kept)',
		'some runs on a worker, some killed mid-run',
		// A main process killed mid-run recorded its static data's entries of a company it did not name (its
		// status alone, asked before its other statuses): a later run as stale took them for the row's, and
		// a change a worker reported in between was reported again (seeds 170, 349, 659, 894 of 1,000).
		'some runs on a worker, some killed mid-run, on a main process too',
		// A red-team review's (session 48): a company not named was carried as step 1 found its status where
		// the patch questions since had trimmed its patch out of the row (44 problems in 1,500 seeds; with 40%
		// of the runs on a worker, 10).
		'main, some saves lost, the row at a small capacity',
	])('%s: 200 seeds, never a false change, nothing missed', async (variant) => {
		const problems: string[] = [];
		let [reported, appended] = [0, 0];
		for (let seed = 1; seed <= 200; seed++) {
			const result = await simulate(seed, variant);
			problems.push(...result.problems);
			reported += result.reported;
			appended += result.appended;
		}
		expect(problems.slice(0, 10)).toEqual([]);
		expect(reported).toBeGreaterThan(200);
		// The main process's runs did append (a memory that always writes anew would pass the rest).
		if (variant !== 'worker') expect(appended).toBeGreaterThan(200);
	});
});

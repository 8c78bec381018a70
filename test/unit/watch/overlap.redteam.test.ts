import { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import type { CompanyRecord } from '../../../nodes/shared/model/companyRecord';
import type { LookupKey } from '../../../nodes/shared/model/lookupKey';
import { detectChanges } from '../../../nodes/shared/watch/detector';
import { StaticDataMemory, type WatchMemory } from '../../../nodes/shared/watch/memory';
import { ProcessedItemsMemory } from '../../../nodes/shared/watch/processedItemsMemory';
import { STORE_CAPACITY, type ProcessedItemsStore } from '../../../nodes/shared/watch/storeRow';
import { StoreTurn } from '../../../nodes/shared/watch/storeTurns';
import {
	compareSnapshots,
	snapshotOf,
	type FoundChange,
} from '../../../nodes/shared/watch/snapshot';
import { mulberry32 } from '../../../sandbox/faults';
import { drawnCompany, helpersOf, notRegistered } from './storeFixtures';
import { idle, VirtualTime } from './virtualTime';

// Red team of the store row's mark (issue 22): rounds of one or two overlapping runs (main process or
// queue-mode worker), some failing at a random store call, some saves of the static data lost or saved in
// the other order, some static data hand-edited. The model keeps, per company, the record the watch last
// reported (or first saw): a successful run's event must be that record's change (never a false one, never
// twice); after a round, a company a successful run checked whose record differs from the model's was
// missed (counted where the memory could not have lost it: room enough, no crash, checked last round).

const NAMES = ['Alpha GmbH', 'Beta GmbH'];
const ADDRESSES = ['Hauptstr. 1', undefined];

function record(random: () => number): CompanyRecord {
	if (random() < 0.1) return notRegistered();
	return drawnCompany(random, NAMES, ADDRESSES);
}

type Mode = 'main' | 'worker';
interface Plan {
	mode: Mode;
	/** The store call (0-based, of this run) that fails, and its retry; `crash`: all after it too (no undo). */
	failAt?: number;
	crash?: boolean;
	saveLost: boolean;
}

function plannedHelpers(store: HarnessStore, plan: Plan): ProcessedItemsStore {
	let calls = 0;
	return helpersOf(store, {
		withRemove: true,
		fails: () => {
			const call = calls++;
			// A failing call fails its retry too (the run's own retry of a first call); a crash fails all after it.
			return plan.failAt !== undefined &&
				(call === plan.failAt || call === plan.failAt + 1 || (plan.crash && call > plan.failAt))
				? new Error(`store call ${call} failed`)
				: undefined;
		},
	});
}

function deferred() {
	let resolve!: () => void;
	const promise = new Promise<void>((done) => (resolve = done));
	return { promise, resolve };
}

interface Options {
	lostSaves: boolean;
	/** Two runs a round, meeting in the ways below; else one. */
	overlaps: boolean;
	crashes: boolean;
	/**
	 * Some watches (`always`: every one) whose memory asks n8n for room for a few entries: n8n's trimming drops
	 * the oldest, as it would at 500,000 entries.
	 */
	capacity: boolean | 'always';
	/** Lists that shrink to a third and grow back, round by round. */
	shrinking?: boolean;
	/** Whether the runs take turns over the store (storeTurns.ts), as Watch for Changes does. */
	turns?: boolean;
	/**
	 * Limits at which lists this short patch the row (storePatches.ts), often and written anew between; by
	 * default a patch must stay within a tenth of the row, which these lists pass with one company.
	 */
	patches?: boolean;
}

const SHORT_LIST_PATCHES = { patches: 4, changedPatches: 3, share: 10 };

async function simulate(seed: number, options: Options) {
	const allowLostSaves = options.lostSaves;
	const random = mulberry32(seed);
	// The runs' clock: a run waiting its turn sleeps on it (a crashed run's lease expires on it).
	const time = new VirtualTime();
	const size = 2 + Math.floor(random() * 8);
	const keys: LookupKey[] = Array.from({ length: size }, (_, index) => ({
		countryCode: 'de',
		companyId: `HRB${index}`,
	}));
	const records = keys.map(() => record(random));
	const store = new HarnessStore();
	const drawn = random();
	const capacityBound = options.capacity === 'always' || (drawn < 0.2 && options.capacity);
	// The capacity the memory asks n8n for (n8n trims the row to it): a few companies' worth stand for 500,000.
	const maxEntries = capacityBound ? 1 + Math.floor(random() * size * 4) : STORE_CAPACITY;
	const forgetDays = random() < 0.3 ? 1 + Math.floor(random() * 3) : 0;
	let saved: Record<string, unknown> = {};
	const model = new Map<number, CompanyRecord>();
	let checkedLastRound = new Set<number>();
	let crashed = false;
	const problems: string[] = [];
	let reported = 0;
	let missed = 0;
	const rounds = 4 + Math.floor(random() * 10);
	for (let round = 0; round < rounds; round++) {
		for (let index = 0; index < size; index++) if (random() < 0.25) records[index] = record(random);
		const day = round + 1;
		const overlapping = random() < 0.5 && options.overlaps ? 2 : 1;
		const plans: Plan[] = Array.from({ length: overlapping }, () => {
			const fails = random() < 0.25;
			return {
				mode: random() < 0.35 ? 'worker' : 'main',
				...(fails
					? { failAt: Math.floor(random() * 6), crash: random() < 0.3 && options.crashes }
					: {}),
				saveLost: allowLostSaves && random() < 0.2,
			};
		});
		// Hand-edited static data: a mark whose list or count lies (the token is the row's).
		if (random() < 0.1 && saved.storeRow) {
			const mark = saved.storeRow as { entries: number; notAsSaved: string[] };
			if (random() < 0.5) mark.entries += 1;
			else mark.notAsSaved = [];
		}
		// Lists that shrink and grow: some rounds name a third of the companies, others all.
		const share = options.shrinking ? (random() < 0.5 ? 0.3 : 1) : 0.9;
		const runs = plans.map((plan) => {
			const named = keys.map((_, index) => index).filter(() => random() < share);
			const failing = new Set(named.filter(() => random() < 0.1));
			return { plan, checked: named.filter((index) => !failing.has(index)), failing };
		});
		const staticData = runs.map(({ plan }) =>
			plan.mode === 'worker' ? {} : (JSON.parse(JSON.stringify(saved)) as Record<string, unknown>),
		);
		// How the two runs meet: one after the other (from the same static data), the second inside the
		// first's recall and remember, or both recalled before either remembers.
		const shape = Math.floor(random() * 3);
		const recalled = runs.map(() => deferred());
		const proceed = runs.map(() => deferred());
		const execute = async (which: number): Promise<FoundChange[] | undefined> => {
			const { plan, checked, failing } = runs[which];
			const notebook =
				plan.mode === 'worker'
					? undefined
					: new StaticDataMemory(
							staticData[which],
							{ warn: () => undefined },
							(_id, snapshot) => forgetDays === 0 || day - 1 - snapshot.d <= forgetDays,
						);
			const helpers = plannedHelpers(store, plan);
			const turn = options.turns ? new StoreTurn(helpers, time, maxEntries) : undefined;
			const inner = new ProcessedItemsMemory(
				turn ?? helpers,
				notebook,
				maxEntries,
				options.patches ? SHORT_LIST_PATCHES : undefined,
			);
			const memory: WatchMemory = {
				recall: async (current, unchecked) => {
					try {
						return await inner.recall(current, unchecked);
					} finally {
						recalled[which].resolve();
						await proceed[which].promise;
					}
				},
				remember: async (current, unchecked) => await inner.remember(current, unchecked),
			};
			const detect = async () =>
				await detectChanges(
					memory,
					checked.map((index) => ({ key: keys[index], record: records[index], itemIndex: index })),
					[...failing].map((index) => keys[index]),
					{ now: new Date(Date.UTC(1970, 0, 1 + day)), reportFirstSightings: false },
				);
			try {
				return turn ? await turn.during(detect) : await detect();
			} catch {
				return undefined;
			} finally {
				// A run that failed before its recall (its take of the store) recalled nothing.
				recalled[which].resolve();
			}
		};
		const results: Array<FoundChange[] | undefined> = [];
		if (overlapping === 1 || shape === 0) {
			for (let which = 0; which < runs.length; which++) {
				proceed[which].resolve();
				results[which] = await execute(which);
			}
		} else if (shape === 1) {
			const first = execute(0);
			await recalled[0].promise;
			proceed[1].resolve();
			// Without turns the second runs through (the store's calls settle at once); with them it waits.
			const second = execute(1);
			await idle();
			proceed[0].resolve();
			results[0] = await first;
			results[1] = await second;
		} else {
			const first = execute(0);
			await recalled[0].promise;
			const second = execute(1);
			// Without turns the second has recalled by then; with them it waits for the first.
			await idle();
			proceed[0].resolve();
			results[0] = await first;
			proceed[1].resolve();
			results[1] = await second;
		}
		// n8n saves the static data of the successful main-process runs, in some order.
		const order = runs.map((_, which) => which);
		if (random() < 0.5) order.reverse();
		for (const which of order)
			if (results[which] && runs[which].plan.mode === 'main' && !runs[which].plan.saveLost)
				saved = staticData[which];
		const checkedNow = new Set<number>();
		for (let which = 0; which < runs.length; which++) {
			const found = results[which];
			const { plan, checked } = runs[which];
			if (plan.crash) crashed = true;
			if (!found) continue;
			const where = `seed ${seed} round ${round} run ${which} (${plan.mode}${plan.failAt !== undefined ? `, call ${plan.failAt} fails` : ''}, shape ${shape}, of ${overlapping})`;
			for (const change of found) {
				reported += 1;
				const before = model.get(change.itemIndex);
				const expected = before
					? compareSnapshots(snapshotOf(before, 0), snapshotOf(records[change.itemIndex], 0))
					: undefined;
				if (!expected) {
					problems.push(
						`${where} company ${change.itemIndex}: ${change.change.event} not due (false or twice)`,
					);
					continue;
				}
				if (
					change.change.event !== expected.event ||
					change.change.changedFields.some((field) => !expected.changedFields.includes(field))
				)
					problems.push(
						`${where} company ${change.itemIndex}: ${change.change.event} ${change.change.changedFields.join()} where the model says ${expected.event} ${expected.changedFields.join()}`,
					);
				model.set(change.itemIndex, records[change.itemIndex]);
			}
			for (const index of checked) checkedNow.add(index);
		}
		for (const index of checkedNow) {
			const before = model.get(index);
			const expected = before
				? compareSnapshots(snapshotOf(before, 0), snapshotOf(records[index], 0))
				: undefined;
			if (expected && !capacityBound && !crashed && checkedLastRound.has(index)) {
				missed += 1;
				problems.push(`seed ${seed} round ${round} company ${index}: missed ${expected.event}`);
			}
			model.set(index, records[index]);
		}
		// A worker's row keeps the companies of its own list alone (docs/watch.md: give a worker the whole
		// list): a company a successful worker run of the round did not name is forgotten, whichever wrote last.
		for (let which = 0; which < runs.length; which++) {
			const { plan, checked, failing } = runs[which];
			if (!results[which] || plan.mode !== 'worker') continue;
			for (const index of checkedNow)
				if (!checked.includes(index) && !failing.has(index)) checkedNow.delete(index);
		}
		checkedLastRound = checkedNow;
	}
	return { problems, reported, missed };
}

async function problemsOf(options: Options): Promise<{ problems: string[]; reported: number }> {
	const problems: string[] = [];
	let reported = 0;
	for (let seed = 1; seed <= 300; seed++) {
		const result = await simulate(seed, options);
		problems.push(...result.problems);
		reported += result.reported;
	}
	return { problems, reported };
}

describe('red team: failing runs, lost saves and hand-edited marks against the row mark (issue 22)', () => {
	// The capacity is the memory's own (n8n trims the row to what the node asks). With room for a few
	// entries in every watch, a row is often emptied by a run whose write fails after its clear with nothing
	// to write back (a trimmed row: every company unknown to it): a main process whose static data is older
	// than the runs since took it as the memory and reported their changes again (seed 195 of the first
	// case; 60 of 2,000 seeds of the third, 89 of the fourth without lists shrinking and growing, before the
	// static data stopped vouching for a row emptied since it was saved: emptiedRow.test.ts).
	it.each<Options>([
		{ lostSaves: false, overlaps: false, crashes: false, capacity: true },
		{ lostSaves: true, overlaps: false, crashes: false, capacity: false },
		{ lostSaves: false, overlaps: false, crashes: false, capacity: 'always' },
		{ lostSaves: true, overlaps: false, crashes: false, capacity: 'always', shrinking: true },
		{ lostSaves: false, overlaps: false, crashes: false, capacity: true, patches: true },
		{ lostSaves: true, overlaps: false, crashes: false, capacity: false, patches: true },
		{
			lostSaves: true,
			overlaps: false,
			crashes: false,
			capacity: 'always',
			shrinking: true,
			patches: true,
		},
	])('%p: 300 seeds, never a false or twice-reported change, nothing missed', async (options) => {
		const { problems, reported } = await problemsOf(options);
		expect(problems.slice(0, 15)).toEqual([]);
		expect(reported).toBeGreaterThan(300);
	});

	// Known defect, left (not fixed this session): a run that crashes after its first store call has asked
	// the mark, and so recorded it into a row another run (a worker, a run whose save was lost) wrote since:
	// the next run, loading the same static data, finds the mark and takes the previous snapshots of changed
	// companies from the older static data (wrong fields; seed 85: a change reported twice). Without the
	// mark, a crash costs wrong fields too, rarely (seed 80).
	it.failing('crashes between store calls: never a false or twice-reported change', async () => {
		const { problems } = await problemsOf({
			lostSaves: false,
			overlaps: false,
			crashes: true,
			capacity: false,
		});
		expect(problems).toEqual([]);
	});

	// Overlapping runs take turns over the store (storeTurns.ts), as Watch for Changes runs them. Without
	// turns each wrote the row anew from what it read and the later writer won: a worker's row written after a
	// main-process run's carried an older status of a company it could not check, and the change was reported
	// again; one run's undo removed entries of the other's new row; a run recorded a new status, the other
	// found it held, and the first failed: the alert lost. Over 2,000 seeds, 267 had a false, twice-reported or
	// wrong change without turns; none with them.
	it.each([false, true])(
		'overlapping runs taking turns (patches: %s): never a false, twice-reported or wrong change',
		async (patches) => {
			const { problems, reported } = await problemsOf({
				lostSaves: false,
				overlaps: true,
				crashes: false,
				capacity: false,
				turns: true,
				patches,
			});
			expect(problems.filter((problem) => !problem.includes(': missed ')).slice(0, 15)).toEqual([]);
			expect(reported).toBeGreaterThan(300);
		},
	);

	// Known defect, left: two main-process runs that overlap both load the static data saved before either
	// (n8n loads it when an execution starts), so the second's is older than the row the first wrote: a
	// company the second could not check is carried as its status alone, and a name or address change
	// made before the next run is then not reported (seed 10). Missed, never false: 282 of 2,000 seeds with
	// turns (323 changes), 577 seeds without (568 missed, and the 267 seeds above). A worker's row keeps the
	// companies of its own list alone: the model forgets those a successful worker run did not name.
	it.failing('overlapping runs taking turns: nothing missed', async () => {
		const { problems } = await problemsOf({
			lostSaves: false,
			overlaps: true,
			crashes: false,
			capacity: false,
			turns: true,
		});
		expect(problems).toEqual([]);
	});
});

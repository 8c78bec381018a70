import { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import { detectChanges } from '../../../nodes/shared/watch/detector';
import { ProcessedItemsMemory } from '../../../nodes/shared/watch/processedItemsMemory';
import {
	LEASE_MS,
	leaseEntry,
	StoreTurn,
	TAKE_SETTLE_MS,
	TURN_POLL_MS,
} from '../../../nodes/shared/watch/storeTurns';
import { company, helpersOf, type StoreMethod } from './storeFixtures';
import { checked, workerRun } from './turnRuns';
import { idle, VirtualTime } from './virtualTime';

// Overlapping runs of one scheduled watch over the store's row (issue 22, "no false alert, ever"; test:queue
// scenario 6 on a loaded machine): five executions of a watch every 10 s at once on two workers. Run 29
// recorded the company's new status, then failed its write (n8n's store: findOne then insert, no
// transaction: "duplicate key value violates unique constraint"); the others found the status already
// recorded and reported nothing: the alert was lost. The runs now take turns over the row (storeTurns.ts).

/** What a take of a free store waits at least: before its check, and after it (storeTurns.ts tookIt). */
const TAKE_MS = 2 * TAKE_SETTLE_MS;

function deferred() {
	let resolve!: () => void;
	const promise = new Promise<void>((done) => (resolve = done));
	return { promise, resolve };
}

describe('overlapping runs of one watch take turns over the store (issue 22)', () => {
	it('a run records the new status then fails its write: the change is still reported once', async () => {
		const time = new VirtualTime();
		const store = new HarnessStore();
		const quiet = helpersOf(store, { withRemove: true });
		await workerRun(quiet, time, company('Active'));
		// The first run's write after its clear fails, and its retry (n8n's duplicate key); its write-back
		// of the row it read goes through.
		let cleared = false;
		let failedWrites = 0;
		const failing = helpersOf(store, {
			withRemove: true,
			fails: (method: StoreMethod) => {
				if (method === 'clearAllProcessedItems') cleared = true;
				else if (cleared && method === 'checkProcessedAndRecord' && failedWrites++ < 2)
					return new Error('duplicate key value violates unique constraint "PK_"');
				return undefined;
			},
		});
		const [recalled, proceed] = [deferred(), deferred()];
		const first = workerRun(failing, time, company('Inactive'), {
			pause: { recalled: recalled.resolve, proceed: proceed.promise },
		});
		await recalled.promise;
		// The next scheduled run starts while the first is between its recall and its remember, and would
		// write after the first failed.
		const [recalledNext, proceedNext] = [deferred(), deferred()];
		const second = workerRun(quiet, time, company('Inactive'), {
			pause: { recalled: recalledNext.resolve, proceed: proceedNext.promise },
		});
		await idle();
		proceed.resolve();
		const firstFound = await first;
		proceedNext.resolve();
		const results = [firstFound, await second, await workerRun(quiet, time, company('Inactive'))];
		expect(results[0]).toBeUndefined();
		expect(results.flat().filter((event) => event === 'turnedInactive')).toHaveLength(1);
		// The second waited its turn: a poll or more (virtual time runs on while the test holds the first
		// between its recall and its remember: the holder's renewal sleeps meanwhile), four takes each checked,
		// and the first's hold never lapsed (two slots).
		expect(time.time).toBeGreaterThanOrEqual(TURN_POLL_MS + 4 * TAKE_MS);
		expect(time.time).toBeLessThan(LEASE_MS);
	});

	it('a run that died holding the store holds it two lease slots at most', async () => {
		const time = new VirtualTime();
		const store = new HarnessStore();
		const helpers = helpersOf(store, { withRemove: true });
		await workerRun(helpers, time, company('Active'));
		// Its process crashed: it never gives the store up.
		await new StoreTurn(helpers, time).take();
		expect(await workerRun(helpers, time, company('Inactive'))).toEqual(['turnedInactive']);
		expect(time.time).toBeGreaterThan(LEASE_MS);
		expect(time.time).toBeLessThanOrEqual(2 * LEASE_MS + TURN_POLL_MS);
	});

	it('a run whose calls are less than a lease slot apart keeps the store however long it lasts', async () => {
		const time = new VirtualTime();
		const store = new HarnessStore();
		const helpers = helpersOf(store, { withRemove: true });
		const holder = new StoreTurn(helpers, time);
		let released = -1;
		const holding = holder.during(async () => {
			// Five calls, each most of a slot after the last: the run spans four slots.
			for (let call = 0; call < 5; call++) {
				await time.sleep(LEASE_MS - TURN_POLL_MS);
				await holder.checkProcessedAndRecord([`entry ${call}`], 'node', { mode: 'entries' });
			}
			released = time.time;
		});
		await idle();
		const waiter = new StoreTurn(helpers, time);
		await waiter.take();
		const took = time.time;
		await holding;
		expect(released).toBe(TAKE_MS + 5 * (LEASE_MS - TURN_POLL_MS));
		expect(took).toBeGreaterThanOrEqual(released);
	});

	it('a run that makes no call on the row for minutes (its lookups, in its turn) keeps the store: its lease is renewed', async () => {
		const time = new VirtualTime();
		const store = new HarnessStore();
		const helpers = helpersOf(store, { withRemove: true });
		const order: string[] = [];
		const holding = new StoreTurn(helpers, time).during(async () => {
			order.push('holder in');
			await time.sleep(3 * LEASE_MS);
			order.push('holder out');
		});
		await idle();
		await new StoreTurn(helpers, time).during(async () => void order.push('waiter in'));
		await holding;
		expect(order).toEqual(['holder in', 'holder out', 'waiter in']);
		// Given up, no lease entry stays.
		expect(store.entriesOf('w', 'n')).toBe(0);
	});

	it('the lease reads as neither growth nor trimming: a quiet run writes nothing, and the row keeps no lease entry', async () => {
		const time = new VirtualTime();
		const withTurns = new HarnessStore();
		const calls: string[] = [];
		const helpers = helpersOf(withTurns, { withRemove: true, calls });
		await workerRun(helpers, time, company('Active'));
		calls.length = 0;
		expect(await workerRun(helpers, time, company('Active'))).toEqual([]);
		expect(calls).not.toContain('clear');
		// A row written without turns holds as many entries.
		const without = new HarnessStore();
		const plain = helpersOf(without, { withRemove: true });
		await detectChanges(new ProcessedItemsMemory(plain), checked(company('Active')), [], {
			now: new Date(Date.UTC(2026, 10, 27)),
			reportFirstSightings: false,
		});
		expect(withTurns.entriesOf('w', 'n')).toBe(without.entriesOf('w', 'n'));
	});

	it('a run that fails gives the store up: the next does not wait', async () => {
		const time = new VirtualTime();
		const store = new HarnessStore();
		const helpers = helpersOf(store, { withRemove: true });
		await workerRun(helpers, time, company('Active'));
		let calls = 0;
		const failing = helpersOf(store, {
			withRemove: true,
			// The take and its check go through; the recall's first call and its retry fail.
			fails: (method) =>
				method === 'checkProcessedAndRecord' && [2, 3].includes(calls++)
					? new Error('connection lost')
					: undefined,
		});
		expect(await workerRun(failing, time, company('Inactive'))).toBeUndefined();
		expect(await workerRun(helpers, time, company('Inactive'))).toEqual(['turnedInactive']);
		// Three takes, no poll.
		expect(time.time).toBe(3 * TAKE_MS);
	});

	it('a run that writes its row gives the store up with its clear: no call after its write', async () => {
		const time = new VirtualTime();
		const store = new HarnessStore();
		const calls: string[] = [];
		const removed: string[][] = [];
		const helpers = helpersOf(store, { withRemove: true, calls, removed });
		await workerRun(helpers, time, company('Active'));
		calls.length = 0;
		expect(await workerRun(helpers, time, company('Inactive'))).toEqual(['turnedInactive']);
		// The take (two lease entries and its taker's) and its check, the asks, the clear, then the write of
		// the row alone (its 3 companies' entries and block): no lease in it, and nothing removed after it.
		expect(calls.slice(0, 2)).toEqual(['record 3', 'record 1']);
		expect(calls.slice(-2)).toEqual(['clear', 'record 10']);
		expect(removed).toEqual([]);
		expect(store.entriesOf('w', 'n')).toBe(10);
	});

	it("a holder's calls answer what they asked, never the lease entry they carry", async () => {
		const time = new VirtualTime();
		const store = new HarnessStore();
		const turn = new StoreTurn(helpersOf(store, { withRemove: true }), time);
		await turn.take();
		const options = { mode: 'entries' } as const;
		expect(await turn.checkProcessedAndRecord(['a', 'b'], 'node', options)).toEqual({
			new: ['a', 'b'],
			processed: [],
		});
		expect(await turn.checkProcessedAndRecord(['a'], 'node', options)).toEqual({
			new: [],
			processed: ['a'],
		});
		// In the next slot the lease entry it carries is new to the row: still not in the answer.
		time.time = LEASE_MS;
		expect(await turn.checkProcessedAndRecord(['b', 'c'], 'node', options)).toEqual({
			new: ['c'],
			processed: ['b'],
		});
		// Its three lease entries (slots -1, 0 and 1) and its taker entry are in the row, not in its count.
		expect(store.entriesOf('w', 'n')).toBe(7);
		expect(await turn.getProcessedDataCount('node', options)).toBe(3);
	});

	it("a waiter's ask that meets the holder's call: the entry is the waiter's, and the holder's count stays its own", async () => {
		const time = new VirtualTime();
		const store = new HarnessStore();
		const helpers = helpersOf(store, { withRemove: true });
		const holder = new StoreTurn(helpers, time);
		await holder.take();
		const options = { mode: 'entries' } as const;
		await holder.checkProcessedAndRecord(['a'], 'node', options);
		// The next slot: a waiter asks for its lease entries (slot 1 new, slot 0 held) just before the
		// holder's call, and takes slot 1's back just after it.
		time.time = LEASE_MS;
		await helpers.checkProcessedAndRecord([leaseEntry(1), leaseEntry(0)], 'node', options);
		await holder.checkProcessedAndRecord(['b'], 'node', options);
		await helpers.removeProcessed!([leaseEntry(1)], 'node', options);
		// The row: slots 0 and -1 and the taker entry (the holder's), a and b.
		expect(store.entriesOf('w', 'n')).toBe(5);
		expect(await holder.getProcessedDataCount('node', options)).toBe(2);
		// Its next call records slot 1's entry again, as its own.
		await holder.checkProcessedAndRecord(['c'], 'node', options);
		expect(await holder.getProcessedDataCount('node', options)).toBe(3);
		await holder.release();
		expect(store.entriesOf('w', 'n')).toBe(3);
	});

	it("a row full to the memory's capacity: the lease takes no company's place, and a change in its oldest company is reported", async () => {
		const time = new VirtualTime();
		const store = new HarnessStore();
		const helpers = helpersOf(store, { withRemove: true });
		// Three companies, three entries each, and their block: 10 entries, the capacity (standing for
		// 500,000). The first company's status is the oldest entry but the block's.
		const capacity = 10;
		await workerRun(helpers, time, company('Active'), { capacity });
		expect(store.entriesOf('w', 'n')).toBe(capacity);
		expect(await workerRun(helpers, time, company('Inactive'), { capacity })).toEqual([
			'turnedInactive',
		]);
		expect(await workerRun(helpers, time, company('Active'), { capacity })).toEqual([
			'turnedActive',
		]);
	});

	it("needs n8n's removeProcessed (to take back a lease entry); outside its turn a run's calls pass as they are", async () => {
		const store = new HarnessStore();
		expect(StoreTurn.possible(helpersOf(store))).toBe(false);
		expect(StoreTurn.possible(helpersOf(store, { withRemove: true }))).toBe(true);
		const turn = new StoreTurn(helpersOf(store, { withRemove: true }), new VirtualTime());
		await turn.checkProcessedAndRecord(['a', 'b'], 'node', { mode: 'entries' });
		expect(await turn.getProcessedDataCount('node', { mode: 'entries' })).toBe(2);
		await turn.take();
		// Its two lease entries and its taker entry are in the row, not in the count.
		expect(store.entriesOf('w', 'n')).toBe(5);
		expect(await turn.getProcessedDataCount('node', { mode: 'entries' })).toBe(2);
		await turn.release();
		expect(store.entriesOf('w', 'n')).toBe(2);
		// Given up, its calls carry no lease entry.
		await turn.checkProcessedAndRecord(['c'], 'node', { mode: 'entries' });
		expect(store.entriesOf('w', 'n')).toBe(3);
	});
});

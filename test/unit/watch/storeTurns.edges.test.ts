import { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import {
	LEASE_MS,
	LEASE_RENEW_MS,
	StoreTurn,
	TAKE_SETTLE_MS,
} from '../../../nodes/shared/watch/storeTurns';
import { helpersOf, type StoreMethod } from './storeFixtures';
import { idle, VirtualTime } from './virtualTime';

// The edges of a run's turn over the store (storeTurns.ts): when the renewal calls and when it does not, a
// take the execution stops before or during its check, and a check that fails. Each leaves the row as a run
// that never took the store would, or holds it as long as it says.

/** What a take of a free store waits: its settle before the check and after it (tookIt). */
const TAKE_MS = 2 * TAKE_SETTLE_MS;
const entries = { mode: 'entries' } as const;

/** A store whose calls are listed (`record <values>`, `clear`, `count`), with n8n's removeProcessed. */
function listedStore(fails?: (method: StoreMethod) => Error | undefined) {
	const store = new HarnessStore();
	const calls: string[] = [];
	const removed: string[][] = [];
	const helpers = helpersOf(store, { withRemove: true, calls, removed, fails });
	return { store, calls, removed, helpers };
}

/** The renewals among the calls: a holder's call with nothing but its lease entry. */
const renewals = (calls: string[]) => calls.filter((call) => call === 'record 1');

describe("a run's turn over the store: its renewal, a stopped take and a failed check (storeTurns.ts)", () => {
	it('renews its lease every LEASE_RENEW_MS while it makes no call, and not once its work has ended', async () => {
		const time = new VirtualTime();
		const { store, calls, helpers } = listedStore();
		const turn = new StoreTurn(helpers, time);
		await turn.hold();
		calls.length = 0;
		const heldAt = time.time;
		// Its lookups: a renewal on each LEASE_RENEW_MS (the last one at the work's end is not reached).
		await time.sleep(5 * LEASE_RENEW_MS - 1);
		expect(renewals(calls)).toHaveLength(4);
		expect(time.time - heldAt).toBe(5 * LEASE_RENEW_MS - 1);
		await turn.release();
		calls.length = 0;
		// Given up: no call after, however long the worker lives on.
		await time.sleep(5 * LEASE_MS);
		expect(calls).toEqual([]);
		expect(store.entriesOf('w', 'n')).toBe(0);
	});

	it('makes no renewal where its own calls were less than LEASE_RENEW_MS apart', async () => {
		const time = new VirtualTime();
		const { calls, helpers } = listedStore();
		const turn = new StoreTurn(helpers, time);
		await turn.hold();
		calls.length = 0;
		// A call every 20 s: each renewal finds one 10 s or 20 s old.
		for (let call = 0; call < 6; call++) {
			await time.sleep(LEASE_RENEW_MS - 10_000);
			await turn.checkProcessedAndRecord([`entry ${call}`], 'node', entries);
		}
		expect(renewals(calls)).toEqual([]);
		expect(calls).toHaveLength(6);
		await turn.release();
	});

	it('renews exactly LEASE_RENEW_MS after its last call, not later', async () => {
		const time = new VirtualTime();
		const { calls, helpers } = listedStore();
		const turn = new StoreTurn(helpers, time);
		await turn.hold();
		calls.length = 0;
		const renewedAt: number[] = [];
		const watching = (async () => {
			while (renewedAt.length < 2 && (await time.sleep(1_000))) {
				if (renewals(calls).length > renewedAt.length) renewedAt.push(time.time);
			}
		})();
		await watching;
		// The take ended at TAKE_MS: its call is the last one, and each renewal is the next.
		expect(renewedAt).toEqual([TAKE_MS + LEASE_RENEW_MS, TAKE_MS + 2 * LEASE_RENEW_MS]);
		await turn.release();
	});

	it("stops renewing once its clear gave the store up (its write is its run's last call)", async () => {
		const time = new VirtualTime();
		const { calls, helpers } = listedStore();
		const turn = new StoreTurn(helpers, time);
		await turn.hold();
		await turn.clearAllProcessedItems('node', entries);
		calls.length = 0;
		// Its write, then a comparison or lookups that outlast a renewal before it ends.
		await turn.checkProcessedAndRecord(['a'], 'node', entries);
		await time.sleep(3 * LEASE_RENEW_MS);
		expect(calls).toEqual(['record 1']);
		await turn.release();
		expect(calls).toEqual(['record 1']);
	});

	it('a renewal that fails (a lost connection) ends nothing: the run goes on, gives the store up, and the next takes it', async () => {
		const time = new VirtualTime();
		let failing = false;
		const { store, helpers } = listedStore((method) =>
			failing && method === 'checkProcessedAndRecord' ? new Error('connection lost') : undefined,
		);
		const turn = new StoreTurn(helpers, time);
		const during = turn.during(async () => {
			failing = true;
			await time.sleep(LEASE_RENEW_MS + 1);
			failing = false;
			return 'looked up';
		});
		await expect(during).resolves.toBe('looked up');
		expect(store.entriesOf('w', 'n')).toBe(0);
		const next = new StoreTurn(helpers, time);
		const before = time.time;
		await next.take();
		expect(time.time - before).toBe(TAKE_MS);
	});

	it('the lease entry a renewal recorded in a new slot is its own: given back at release', async () => {
		const time = new VirtualTime();
		const { store, removed, helpers } = listedStore();
		const turn = new StoreTurn(helpers, time);
		await turn.hold();
		// Into the next slot and past it: the renewals record slots 1 and 2's entries.
		await time.sleep(2 * LEASE_MS + LEASE_RENEW_MS);
		expect(store.entriesOf('w', 'n')).toBeGreaterThan(3);
		await turn.release();
		expect(store.entriesOf('w', 'n')).toBe(0);
		expect(removed).toHaveLength(1);
	});

	it('a take whose execution was stopped before it asks makes no call and holds nothing', async () => {
		const time = new VirtualTime();
		const { calls, helpers } = listedStore();
		const stop = new AbortController();
		stop.abort();
		await expect(new StoreTurn(helpers, time).take(stop.signal)).rejects.toThrow(
			'The execution was stopped while the run waited for its turn over the store',
		);
		expect(calls).toEqual([]);
		expect(time.time).toBe(0);
	});

	it('a take whose execution is stopped during its check gives the store up and throws: the next run does not wait', async () => {
		const time = new VirtualTime();
		const { store, helpers } = listedStore();
		const stop = new AbortController();
		const take = new StoreTurn(helpers, time).take(stop.signal);
		const outcome = take.then(
			() => 'took',
			(error: Error) => error.message,
		);
		await idle();
		// Its lease and taker entries are recorded; it waits to check them.
		expect(store.entriesOf('w', 'n')).toBe(3);
		stop.abort();
		expect(await outcome).toBe(
			'The execution was stopped while the run waited for its turn over the store',
		);
		expect(store.entriesOf('w', 'n')).toBe(0);
		const before = time.time;
		await new StoreTurn(helpers, time).take();
		expect(time.time - before).toBe(TAKE_MS);
	});

	it('a check that fails (its ask and the ask again) throws and takes back what its take recorded', async () => {
		const time = new VirtualTime();
		let asks = 0;
		const { store, removed, helpers } = listedStore((method) =>
			method === 'checkProcessedAndRecord' && asks++ > 0 ? new Error('connection lost') : undefined,
		);
		await expect(new StoreTurn(helpers, time).take()).rejects.toThrow('connection lost');
		// The take's ask went through; its check and the check's retry failed.
		expect(asks).toBe(3);
		expect(removed).toHaveLength(1);
		expect(removed[0]).toHaveLength(3);
		expect(store.entriesOf('w', 'n')).toBe(0);
	});
});

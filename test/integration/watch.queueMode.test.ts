import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox/server';
import type { Engine } from '../../harness/engine';
import { REGISTRY_NODE, engineFor } from '../../harness/fixtures';
import { StoreTurn } from '../../nodes/shared/watch/storeTurns';
import { sandboxEachTest } from '../support/sandboxEachTest';
import { LIST, watch, watchRow, watchWorkflow } from '../support/watchRuns';

// Watch for Changes on n8n's queue-mode workers and in overlapping runs: its memory in n8n's processed-items
// store (issue 12), runs taking turns over it (issue 22). Apart from watch.operation.test.ts: a file jest
// runs beside the others (each production run waits its turn's check: a second).
describe('Company Registry › Watch for Changes', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => ({ sandbox, engine } = running));

	describe("on n8n's queue-mode workers and in overlapping runs (issue 12): memory in n8n's processed-items store", () => {
		const onWorker = async (rows: IDataObject[] = LIST, options: IDataObject = {}) => {
			const result = await engine.execute(watchWorkflow(options), {
				rows,
				mode: 'trigger',
				onWorker: true,
			});
			return result.outputOf(REGISTRY_NODE)[0] ?? [];
		};
		const events = (items: INodeExecutionData[]) =>
			items.map((item) => [item.json.event, (item.json.lookup as IDataObject).companyId]);

		it('two overlapping runs, the later looking up after a change and finishing first: the change is reported once and never undone', async () => {
			// test:queue scenario 6 on a loaded machine: five runs of a watch every 10 s started at once on a
			// worker; one whose lookups were made before the change took the store after a later run had
			// remembered it: it reported turnedActive (false), and the next run turnedInactive again. Here the
			// first run has one more company, which the registry answers slowly.
			const slow = { country: 'de', companyId: 'HRB12345' };
			const gb = { country: 'gb', companyId: '04417982' };
			await onWorker([gb, slow]);
			sandbox.setFaults({ slowMs: 1_500 });
			sandbox.setCompanyFault(slow, 'timeout');
			const looked = sandbox.lookupLog.length;
			const first = onWorker([gb, slow]);
			while (!sandbox.lookupLog.slice(looked).some((path) => path.includes('/gb/04417982')))
				await new Promise((resolve) => setTimeout(resolve, 10));
			sandbox.changeCompany(gb, { status: 'Inactive' });
			const second = onWorker([gb]);
			const reported = [...events(await first), ...events(await second)];
			sandbox.setCompanyFault(slow, undefined);
			reported.push(...events(await onWorker([gb, slow])));
			expect(reported).toEqual([['turnedInactive', '04417982']]);
		});

		it('a worker that starts without the saved static data (n8n 2.41.1) still reports each change exactly once', async () => {
			expect(await onWorker()).toEqual([]);
			expect(await onWorker()).toEqual([]);
			sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Inactive' });
			const changed = await onWorker();
			expect(events(changed)).toEqual([['turnedInactive', '04417982']]);
			expect(changed[0].pairedItem).toEqual({ item: 1 });
			// The store knows the previous status; the static data that held the previous day was not loaded.
			expect(changed[0].json).toMatchObject({
				changes: { status: { previous: 'Active', current: 'Inactive' } },
				previous: {
					isRegistered: true,
					status: 'Active',
					officialName: 'Harrowgate Tinware Limited',
					lastCheckedOn: null,
				},
			});
			expect(await onWorker()).toEqual([]);
			sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Active' });
			expect(events(await onWorker())).toEqual([['turnedActive', '04417982']]);
			sandbox.changeCompany({ country: 'nl', companyId: '68750123' }, { deregistered: true });
			expect(events(await onWorker())).toEqual([['deregistered', '68750123']]);
			sandbox.changeCompany({ country: 'nl', companyId: '68750123' }, { deregistered: false });
			expect(events(await onWorker())).toEqual([['reregistered', '68750123']]);
			expect(await onWorker()).toEqual([]);
		});

		it('on a worker, a new name or address is reported; the old one is null where only the store remembered it', async () => {
			await onWorker();
			sandbox.changeCompany(
				{ country: 'de', companyId: 'HRB12345' },
				{ officialName: 'Müller Präzision GmbH' },
			);
			const [change, ...rest] = await onWorker();
			expect(rest).toEqual([]);
			expect(change.json).toMatchObject({
				event: 'detailsChanged',
				changedFields: ['officialName'],
				changes: { officialName: { previous: null, current: 'Müller Präzision GmbH' } },
			});
			// Reported once.
			expect(await onWorker()).toEqual([]);
		});

		it('two runs at once report a change once, not once each (static data is saved whole, last writer wins)', async () => {
			await watch(engine);
			sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Inactive' });
			// Both load the state saved before the change, as overlapping executions do.
			const [first, second] = await Promise.all([watch(engine), watch(engine)]);
			expect([...events(first.changes), ...events(second.changes)]).toEqual([
				['turnedInactive', '04417982'],
			]);
			expect((await watch(engine)).changes).toEqual([]);
		});

		// Its static data cannot say whether a worker reported from the store since (an earlier version saved
		// no mark where a worker wrote the row, or none at all): the first run on the store is a new baseline.
		it('a watch saved by an earlier version (static data only) starts a new baseline on the store without an event, then reports from the store', async () => {
			await watch(engine);
			const before = engine.staticDataOf('watch-workflow');
			// The earlier version: the same companies, no mark of the store's row (it wrote none), nothing in the store.
			delete (before['node:Company Registry'] as { storeRow?: unknown }).storeRow;
			const upgraded = engineFor(sandbox);
			upgraded.setStaticData(before, 'watch-workflow');
			sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Inactive' });
			const run = async () =>
				(await upgraded.execute(watchWorkflow(), { rows: LIST, mode: 'trigger' })).outputOf(
					REGISTRY_NODE,
				)[0] ?? [];
			// The change made that round is missed (the cost, docs/watch.md: "A row found empty").
			expect(await run()).toEqual([]);
			sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Active' });
			const changed = await run();
			expect(events(changed)).toEqual([['turnedActive', '04417982']]);
			expect(changed[0].json.previous).toMatchObject({
				status: 'Inactive',
				lastCheckedOn: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
			});
			expect(await run()).toEqual([]);
		});

		it('a store that cannot be reached fails every looked-up company with a clear error, and the state stays as it was', async () => {
			await watch(engine);
			const saved = engine.staticDataOf('watch-workflow');
			sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Inactive' });
			engine.processedItems.failWith = new Error('connect ECONNREFUSED 127.0.0.1:5432');
			const failing = await watch(engine, LIST, {}, { onError: 'continueErrorOutput' });
			expect(failing.changes).toEqual([]);
			expect(failing.errors.map((item) => item.pairedItem)).toEqual([
				{ item: 0 },
				{ item: 1 },
				{ item: 2 },
			]);
			expect(failing.errors[1].json).toMatchObject({
				error: "The watch's memory in n8n's database could not be read or saved",
				details: {
					description: expect.stringContaining('connect ECONNREFUSED 127.0.0.1:5432'),
					lookup: { countryCode: 'gb', companyId: '04417982' },
				},
			});
			expect(engine.staticDataOf('watch-workflow')).toEqual(saved);
			// Without On Error "continue" the node stops with that error.
			const stopped = await engine.execute(watchWorkflow(), { rows: LIST, mode: 'trigger' });
			expect(stopped.errorOf(REGISTRY_NODE)?.message).toContain(
				"The watch's memory in n8n's database could not be read or saved",
			);
			// Reachable again: the change is reported, once.
			engine.processedItems.failWith = undefined;
			expect(events((await watch(engine)).changes)).toEqual([['turnedInactive', '04417982']]);
			expect((await watch(engine)).changes).toEqual([]);
		});

		// A run that fails part-way through its store calls must leave the store as the last successful run
		// left it: else the next run takes this run's half-written entries for the last state, and a change
		// made meanwhile is never reported.
		type StoreMethod = 'checkProcessedAndRecord' | 'clearAllProcessedItems';
		const FAULTS: Array<[string, StoreMethod, number, number]> = [
			// [what, method, calls that succeed first, calls that then fail (each call is tried twice)]
			// The first two records are the run's take of its turn over the store and its check (storeTurns.ts).
			// On a main process the step after the third record is the clear, then the write and its write-back
			// both fail: the row is left empty (below).
			['every record after the third (recall, step 2)', 'checkProcessedAndRecord', 3, Infinity],
			// On a main process the static data answers what step 2 would ask: the clear follows step 1.
			['the record right after the clear (remember)', 'checkProcessedAndRecord', -1, 2],
			['the clear (remember)', 'clearAllProcessedItems', 0, 2],
		];
		describe.each([false, true])('on a queue-mode worker: %s', (onWorker) => {
			it.each(FAULTS)(
				'a store failing at %s: no change lost where the row is left as it was, none false',
				async (_what, method, succeedingFirst, failing) => {
					const succeeding = succeedingFirst === -1 ? (onWorker ? 4 : 3) : succeedingFirst;
					await watch(engine, LIST, {}, { onWorker });
					sandbox.changeCompany({ country: 'de', companyId: 'HRB12345' }, { status: 'Inactive' });
					const store = engine.processedItems;
					const real = store[method].bind(store) as (...args: unknown[]) => Promise<unknown>;
					let calls = 0;
					store[method] = (async (...args: unknown[]) => {
						calls += 1;
						if (calls > succeeding && calls <= succeeding + failing)
							throw new Error('deadlock detected');
						return await real(...args);
					}) as never;
					const stopped = await engine.execute(watchWorkflow(), {
						rows: LIST,
						mode: 'trigger',
						onWorker,
					});
					expect(stopped.errorOf(REGISTRY_NODE)?.message).toContain(
						"The watch's memory in n8n's database could not be read or saved",
					);
					expect(calls).toBeGreaterThan(succeeding);
					store[method] = real as never;
					// A main process that finds the row emptied since its static data was saved cannot tell
					// whether a worker reported from it meanwhile: a new baseline, the change lost, none false
					// (emptiedRow.test.ts). Every other fault leaves the row as the last run left it.
					const emptied = !onWorker && succeedingFirst === 3;
					expect(events((await watch(engine, LIST, {}, { onWorker })).changes)).toEqual(
						emptied ? [] : [['turnedInactive', 'HRB12345']],
					);
					expect((await watch(engine, LIST, {}, { onWorker })).changes).toEqual([]);
				},
			);
		});

		it('a manual test run neither reads nor writes the store', async () => {
			await watch(engine, LIST, {}, { mode: 'manual' });
			expect(engine.processedItems.calls).toBe(0);
		});

		it('a manual test run beside a production run that holds the store neither waits nor touches it', async () => {
			await onWorker();
			const holder = new StoreTurn(watchRow(engine));
			await holder.take();
			const calls = engine.processedItems.calls;
			await watch(engine, LIST, {}, { mode: 'manual' });
			expect(engine.processedItems.calls).toBe(calls);
			await holder.release();
		});

		it('a run n8n stops while it waits for its turn over the store (its timeout, a user) remembers nothing: the next run reports the change', async () => {
			await onWorker();
			sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Inactive' });
			// Another run of the node holds its row (storeTurns.ts).
			const store = engine.processedItems;
			const holder = new StoreTurn(watchRow(engine));
			await holder.take();
			let cancel: (() => void) | undefined;
			// The run asks for its turn, finds the store held and waits: n8n stops it there. The holder gives
			// the store up just after (the run, if it waited on, would then take it).
			const record = store.checkProcessedAndRecord.bind(store);
			store.checkProcessedAndRecord = async (...call) => {
				store.checkProcessedAndRecord = record;
				const recorded = await record(...call);
				cancel?.();
				setTimeout(() => void holder.release(), 100);
				return recorded;
			};
			await engine.execute(watchWorkflow(), {
				rows: LIST,
				mode: 'trigger',
				onWorker: true,
				onStarted: (stop) => (cancel = stop),
			});
			await new Promise((resolve) => setTimeout(resolve, 200));
			expect(events(await onWorker())).toEqual([['turnedInactive', '04417982']]);
		});
	});
});

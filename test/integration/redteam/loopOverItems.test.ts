import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { Engine, WorkflowFile } from '../../../harness/engine';
import { COMPANY_REGISTRY_TYPE } from '../../../harness/nodeTypes';
import { CREDENTIAL_ID, REGISTRY_NODE } from '../../../harness/fixtures';
import type { Sandbox } from '../../../sandbox/server';
import { sandboxEachTest } from '../../support/sandboxEachTest';

// Red team: the node inside Loop Over Items (Split in Batches v3, harness/loopOverItems.ts), as users put
// it before a node that handles many rows. Each batch is a run of its own; the rate controller is one
// for the registry and client in this n8n, so what it learned in one batch holds in the next. A limit
// that tightens mid-loop (a 429 storm) must cost a few refusals, not one per batch, and fail no row.

const LOOP_NODE = 'Loop Over Items';

/** Sheet → Loop Over Items → Company Registry → back to the loop; failed rows to a node of their own. */
function loopWorkflow(batchSize: number, options: IDataObject = {}): WorkflowFile {
	return {
		name: 'Company Registry in Loop Over Items',
		nodes: [
			{
				id: 'sheet',
				name: 'Sheet',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'loop',
				name: LOOP_NODE,
				type: 'n8n-nodes-base.splitInBatches',
				typeVersion: 3,
				position: [200, 0],
				parameters: { batchSize, options: {} },
			},
			{
				id: 'registry',
				name: REGISTRY_NODE,
				type: COMPANY_REGISTRY_TYPE,
				typeVersion: 1,
				position: [400, 0],
				parameters: {
					resource: 'company',
					operation: 'lookUp',
					country: '={{ $json.country }}',
					companyId: '={{ $json.companyId }}',
					options: options as INodeParameters,
				},
				credentials: {
					companyRegistryApi: { id: CREDENTIAL_ID, name: 'Company Registry sandbox' },
				},
				onError: 'continueErrorOutput',
			},
			{
				id: 'failed',
				name: 'Failed',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [600, 100],
				parameters: {},
			},
		],
		connections: {
			Sheet: { main: [[{ node: LOOP_NODE, type: 'main', index: 0 }]] },
			[LOOP_NODE]: { main: [[], [{ node: REGISTRY_NODE, type: 'main', index: 0 }]] },
			[REGISTRY_NODE]: {
				main: [
					[{ node: LOOP_NODE, type: 'main', index: 0 }],
					[{ node: LOOP_NODE, type: 'main', index: 0 }],
					[{ node: 'Failed', type: 'main', index: 0 }],
				],
			},
		},
		settings: { executionOrder: 'v1' },
	};
}

/** Distinct companies the sandbox does not know: each leaves by Not Registered, so a batch goes back once. */
const rowsOf = (count: number, offset: number): IDataObject[] =>
	Array.from({ length: count }, (_, index) => ({
		country: 'gb',
		companyId: String(30_000_000 + offset + index),
	}));

interface LoopOutcome {
	/** The company id of every item the node gave, by output, over all its runs. */
	registered: string[];
	notRegistered: string[];
	failed: string[];
	/** Runs of the node. */
	runs: number;
	/** Items the loop gave back on `done`. */
	done: INodeExecutionData[];
}

async function runLoop(
	engine: Engine,
	rows: IDataObject[],
	batchSize: number,
	options?: IDataObject,
) {
	const result = await engine.execute(loopWorkflow(batchSize, options), {
		rows,
		rowsNode: 'Sheet',
	});
	const runs = result.run.data.resultData.runData[REGISTRY_NODE] ?? [];
	const outcome: LoopOutcome = {
		registered: [],
		notRegistered: [],
		failed: [],
		runs: runs.length,
		done: [],
	};
	for (const run of runs) {
		const [registered = [], notRegistered = [], failed = []] = run.data?.main ?? [];
		const idOf = (item: INodeExecutionData) =>
			String(
				(item.json.lookup as IDataObject | undefined)?.companyId ??
					((item.json.details as IDataObject | undefined)?.lookup as IDataObject | undefined)
						?.companyId,
			);
		outcome.registered.push(...(registered ?? []).map(idOf));
		outcome.notRegistered.push(...(notRegistered ?? []).map(idOf));
		outcome.failed.push(...(failed ?? []).map(idOf));
	}
	const loopRuns = result.run.data.resultData.runData[LOOP_NODE] ?? [];
	outcome.done = loopRuns[loopRuns.length - 1]?.data?.main?.[0] ?? [];
	return { result, outcome };
}

describe('the node inside Loop Over Items', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => ({ sandbox, engine } = running));

	for (const batchSize of [1, 50]) {
		it(`batches of ${batchSize}: every row once, by Not Registered, and the loop ends with all of them`, async () => {
			const rows = rowsOf(batchSize === 1 ? 30 : 200, batchSize);
			const { outcome } = await runLoop(engine, rows, batchSize);
			expect(outcome.failed).toEqual([]);
			expect(outcome.registered).toEqual([]);
			expect(outcome.notRegistered).toEqual(rows.map((row) => row.companyId));
			expect(outcome.runs).toBe(Math.ceil(rows.length / batchSize));
			expect(outcome.done).toHaveLength(rows.length);
			expect(sandbox.counters.lookups).toBe(rows.length);
		}, 60_000);

		it(`batches of ${batchSize}: a limit that tightens mid-loop (a 429 storm) fails no row and is learned once, not per batch`, async () => {
			const rows = rowsOf(batchSize === 1 ? 25 : 200, 1000 + batchSize);
			const tightenAt = batchSize === 1 ? 5 : 60;
			const tighter =
				batchSize === 1 ? { ratePerSecond: 2, burst: 1 } : { ratePerSecond: 5, burst: 5 };
			sandbox.traceLookups(true);
			sandbox.onLookup((count) => {
				if (count === tightenAt) sandbox.setRateLimit(tighter);
			});
			const { outcome } = await runLoop(engine, rows, batchSize, { maxRateLimitWait: 120 });
			expect(outcome.failed).toEqual([]);
			expect(outcome.notRegistered).toEqual(rows.map((row) => row.companyId));
			// The batch of each refused lookup (the trace and the log are written together, one entry a lookup).
			const batchOf = (target: string) =>
				Math.floor(
					rows.findIndex((row) => target.includes(`/${row.companyId as string}`)) / batchSize,
				);
			const refusedByBatch = new Map<number, number>();
			sandbox.lookupTrace.forEach((entry, index) => {
				if (entry.status !== 429) return;
				const batch = batchOf(sandbox.lookupLog[index]);
				refusedByBatch.set(batch, (refusedByBatch.get(batch) ?? 0) + 1);
			});
			const stormBatch = Math.floor((tightenAt - 1) / batchSize);
			// A controller each batch began afresh would meet the tighter limit anew in each: for batches of 1,
			// each row's one request refused (some 30); for batches of 50, 20 at once in flight, 15 refused each.
			if (batchSize === 1) {
				expect(
					[...refusedByBatch.values()].reduce((sum, count) => sum + count, 0),
				).toBeLessThanOrEqual(5);
			} else {
				const later = [...refusedByBatch].filter(([batch]) => batch > stormBatch);
				// [batch, refusals] of every later batch refused more than twice: none.
				expect(later.filter(([, refused]) => refused > 2)).toEqual([]);
			}
		}, 120_000);
	}
});

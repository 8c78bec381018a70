import type { INodeExecutionData } from 'n8n-workflow';

import { makeSheet, uniqueValid, type SheetRow } from '../../sandbox/sheets';
import { DEFAULT_RATE_LIMIT, startSandbox, type Sandbox } from '../../sandbox/server';
import { callTool, exampleToolNode, toolEngineFor, type ToolCaller } from '../../harness/tool';
import {
	REGISTRY_NODE,
	branchesOf,
	engineFor,
	expectEachRowOnce,
	lookupWorkflow,
	runRows,
	type Branches,
} from '../../harness/fixtures';

// Issue 28: n8n's Retry On Fail runs the whole node again, every row. A try after a failed one reuses
// the answers of the rows the registry already answered in this node run; only failed or never-sent
// rows go to the registry again. The node runs in n8n's engine (WorkflowExecute's retry loop) with the
// default On Error (Stop), against the sandbox's faults; the fault ends when the engine logs the
// failed try, as a registry comes back while n8n waits between tries.
// 100 rows: half answered before the fault is still more than the 20 in flight (Max Concurrent Requests),
// with registered companies, repeats and unregistered ids on both sides of it.
const ROWS = 100;
const HALF = ROWS / 2;
const RETRY = { maxTries: 3, waitBetweenTries: 50 };

/** Valid rows only (under Stop, an invalid row would stop the sheet before any lookup): registered companies, repeats, unregistered ids. */
const sheetFrom = (offset: number): SheetRow[] =>
	makeSheet(ROWS + 20, offset)
		.filter((row) => row.country !== 'Atlantis')
		.slice(0, ROWS);

/** The rows each output gives: what a later node sees, in order, with the pairing. */
const outputs = (
	branches: Branches,
): Array<Array<Pick<INodeExecutionData, 'json' | 'pairedItem'>>> =>
	[branches.registered, branches.notRegistered, branches.errors].map((items) =>
		items.map(({ json, pairedItem }) => ({ json, pairedItem })),
	);

describe('Retry On Fail (Max Tries 3): a try after a failed one asks the registry only for the rows not yet answered', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.resetAll();
		sandbox.resetCounters();
		sandbox.onLookup(undefined);
	});

	/** The same sheet looked up in a fresh n8n against a healthy registry: what every row must output. */
	async function freshLookup(rows: SheetRow[]) {
		sandbox.resetAll();
		sandbox.onLookup(undefined);
		const branches = await runRows(engineFor(sandbox), rows);
		return outputs(branches);
	}

	const faults: Array<{
		name: string;
		offset: number;
		start: (sandbox: Sandbox) => void;
		end: (sandbox: Sandbox) => void;
	}> = [
		{
			name: 'an outage (503) after half the sheet',
			offset: 1_000_000,
			start: (registry) =>
				registry.onLookup((count) => count === HALF && registry.setRegistryDown('503')),
			end: (registry) => registry.setRegistryDown(undefined),
		},
		{
			name: 'a daily quota spent after half the sheet (429 until midnight)',
			offset: 2_000_000,
			start: (registry) => registry.setRateLimit({ dailyQuota: HALF }),
			end: (registry) => registry.setRateLimit({ dailyQuota: undefined }),
		},
		{
			name: 'a long Retry-After (429, 2 s, beyond a Max Rate-Limit Wait of 1 s) after half the sheet',
			offset: 3_000_000,
			start: (registry) =>
				registry.onLookup((count) => {
					if (count !== HALF) return;
					registry.setRetryAfterOverride('2');
					registry.setRateLimit({ family: 'fixed-window', limit: 1, windowMs: 3_600_000 });
				}),
			end: (registry) => {
				registry.setRetryAfterOverride(undefined);
				registry.setRateLimit({ ...DEFAULT_RATE_LIMIT, family: 'token-bucket' });
			},
		},
	];

	it.each(faults)(
		'$name: each row output once, as a fresh lookup outputs it; one answered lookup per unique row',
		async ({ offset, start, end }) => {
			const rows = sheetFrom(offset);
			const unique = uniqueValid(rows).length;
			const engine = engineFor(sandbox);
			start(sandbox);
			engine.onTryFailed(REGISTRY_NODE, () => end(sandbox));
			const result = await engine.execute(
				lookupWorkflow({ retryOnFail: RETRY, options: { maxRateLimitWait: 1 } }),
				{ rows },
			);
			const answered = sandbox.counters.lookupsByStatus[200] ?? 0;

			expect(result.errorOf(REGISTRY_NODE)).toBeUndefined();
			// The fault did fail a try, and n8n ran the node again.
			expect(engine.triesOf(REGISTRY_NODE)).toBe(2);
			const branches = branchesOf(result);
			expectEachRowOnce(branches, ROWS);
			expect(branches.errors).toHaveLength(0);
			expect(answered).toBe(unique);
			expect(outputs(branches)).toEqual(await freshLookup(rows));
		},
	);

	it('a row that failed is asked again, never answered from the failed try; a fault that outlasts every try fails the run', async () => {
		const rows = sheetFrom(4_000_000);
		const engine = engineFor(sandbox);
		sandbox.onLookup((count) => count === HALF && sandbox.setRegistryDown('503'));
		// Max Attempts 1: a try fails at its first 503, not after the breaker's outage tolerance (the outage
		// case above goes through the breaker); what is asked again is the same either way.
		const result = await engine.execute(
			lookupWorkflow({ retryOnFail: RETRY, options: { maxAttempts: 1 } }),
			{ rows },
		);

		expect(engine.triesOf(REGISTRY_NODE)).toBe(3);
		expect(result.errorOf(REGISTRY_NODE)?.message).toContain('HTTP 503');
		// Every later try asked the registry again (only for rows it had not answered): it was down.
		expect(sandbox.counters.lookupsByStatus[200]).toBeLessThanOrEqual(HALF);
		expect(sandbox.counters.lookupsByStatus[503]).toBeGreaterThanOrEqual(3);
	});

	it('a new execution of the same workflow asks the registry again for every row: answers are never kept across executions', async () => {
		const rows = sheetFrom(5_000_000);
		const unique = uniqueValid(rows).length;
		const engine = engineFor(sandbox);
		const workflow = lookupWorkflow({ retryOnFail: RETRY });
		await engine.execute(workflow, { rows });
		await engine.execute(workflow, { rows });
		expect(sandbox.counters.lookupsByStatus[200]).toBe(2 * unique);
	});
});

// A tool call is one row. The AI Agent v3's path runs the tool node in WorkflowExecute, whose Retry On Fail
// also runs a node again when its first item carries `error` (an error answer); the MCP path
// (createNodeAsTool) only when the tool throws, which it never does for a row. Either way only a failed
// call is run again, and it has nothing answered to reuse.
describe('Retry On Fail and the agent tool', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => await sandbox.close());

	it.each<[ToolCaller, number]>([
		['agent', 3],
		['mcp', 1],
	])(
		'called by the %s path: an answered call is never run again; a failed one is run %i time(s)',
		async (caller, runs) => {
			const engine = toolEngineFor(sandbox);
			const toolNode = { ...exampleToolNode(), retryOnFail: true, ...RETRY };
			sandbox.resetCounters();
			await callTool(engine, caller, [{ country: 'de', companyId: 'HRB12345' }], toolNode);
			expect(sandbox.counters.lookups).toBe(1);
			sandbox.resetCounters();
			const [call] = await callTool(
				engine,
				caller,
				[{ country: 'de', companyId: 'HRB99500' }],
				toolNode,
			);
			expect(call.text).toContain('HTTP 500');
			// Each run tries the lookup 3 times (Max Attempts' default).
			expect(sandbox.counters.lookups).toBe(3 * runs);
		},
	);
});

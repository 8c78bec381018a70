import type { IDataObject } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { loadWorkflow } from '../../harness/engine';
import { REGISTRY_NODE, engineFor, expectEachRowOnce, runRows } from '../../harness/fixtures';

// The router's catch-all (actions/router.ts): an exception no operation expected (here n8n's own, an
// expression in Options that names a missing node) must fail every row with an error item under
// On Error "continue", never let a row leave by Registered or by Changes, and stop the node otherwise.
const ROWS: IDataObject[] = [
	{ country: 'de', companyId: 'HRB12345' },
	{ country: 'gb', companyId: '04417982' },
	{ country: 'de', companyId: 'HRB00000' },
];
/** An option whose expression n8n cannot evaluate: it names a node the workflow does not have. */
const BROKEN_OPTIONS = { timeout: '={{ $("No such node").item.json.timeout }}' };
const MESSAGE = "Referenced node doesn't exist";

describe('an unexpected exception in an operation', () => {
	let sandbox: Sandbox;
	beforeAll(async () => (sandbox = await startSandbox({ port: 0 })));
	afterAll(async () => await sandbox.close());
	beforeEach(() => sandbox.resetCounters());

	it.each(['continueErrorOutput', 'continueRegularOutput'] as const)(
		'Look Up under %s: every row gets an error item, none leaves by Registered',
		async (onError) => {
			const engine = engineFor(sandbox);
			const branches = await runRows(engine, ROWS, { onError, options: BROKEN_OPTIONS });
			expect(branches.registered).toEqual([]);
			expectEachRowOnce(branches, ROWS.length);
			const failed = onError === 'continueErrorOutput' ? branches.errors : branches.notRegistered;
			expect(failed).toHaveLength(ROWS.length);
			for (const item of failed) {
				expect(item.json.error).toEqual(MESSAGE);
				expect(item.json.isRegistered).toBeUndefined();
			}
			expect(sandbox.counters.lookups).toBe(0);
		},
	);

	it('Look Up under Stop: the node stops with that error, and no row is output', async () => {
		const engine = engineFor(sandbox);
		const { result, registered, notRegistered } = await runRows(engine, ROWS, {
			options: BROKEN_OPTIONS,
		});
		expect(result.errorOf(REGISTRY_NODE)?.message).toBe(MESSAGE);
		expect([...registered, ...notRegistered]).toEqual([]);
	});

	it('Watch for Changes under Continue: every row gets an error item on Changes, none is a change', async () => {
		const workflow = loadWorkflow('test/workflows/watch-companies.json');
		const node = workflow.nodes.find((candidate) => candidate.name === REGISTRY_NODE)!;
		node.parameters = { ...node.parameters, options: BROKEN_OPTIONS };
		node.onError = 'continueRegularOutput';
		const engine = engineFor(sandbox);
		const result = await engine.execute(workflow, { rows: ROWS, mode: 'trigger' });
		const [changes = []] = result.outputOf(REGISTRY_NODE);
		expect(changes.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		for (const item of changes) {
			expect(item.json.event).toBeUndefined();
			expect(item.json.error).toEqual(MESSAGE);
		}
	});
});

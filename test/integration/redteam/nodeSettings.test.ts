import type { IDataObject } from 'n8n-workflow';

import type { Engine } from '../../../harness/engine';
import {
	branchesOf,
	expectEachRowOnce,
	lookupWorkflow,
	REGISTRY_NODE,
	runRows,
} from '../../../harness/fixtures';
import type { Sandbox } from '../../../sandbox/server';
import { sandboxEachTest } from '../../support/sandboxEachTest';

// Red team: the node's Settings tab as users set it. Retry On Fail beside On Error "continue": n8n's
// retry loop runs the node again only when the first item of its first output is an error
// (WorkflowExecute checkFailure), and Registered never holds one; a row whose check failed must come out
// once, on the error output (or Not Registered), paired with its row, never Registered. Execute Once:
// n8n gives the node only the first row, and that row's item is what comes out.

const FAILING = { country: 'de', companyId: 'HRB20481' };
const rows: IDataObject[] = [
	{ country: 'de', companyId: 'HRB12345' },
	FAILING,
	{ country: 'gb', companyId: '99999901' },
	{ country: 'Atlantis', companyId: 'X1' },
];

describe('Retry On Fail with On Error continue, one company failing every try (500)', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => ({ sandbox, engine } = running));

	it.each(['continueErrorOutput', 'continueRegularOutput'] as const)(
		'%s: each row once, the failed ones paired with their rows and never Registered',
		async (onError) => {
			sandbox.setCompanyFault(FAILING, '500');
			const branches = await runRows(engine, rows, {
				onError,
				retryOnFail: { maxTries: 3, waitBetweenTries: 0 },
				options: { maxAttempts: 2 },
			});
			expectEachRowOnce(branches, rows.length);
			expect(branches.registered.map((item) => item.pairedItem)).toEqual([{ item: 0 }]);
			const failed = onError === 'continueErrorOutput' ? branches.errors : branches.notRegistered;
			expect(
				failed.filter((item) => item.json.error !== undefined).map((item) => item.pairedItem),
			).toEqual([{ item: 1 }, { item: 3 }]);
			// The node ran once: a failed row under "continue" is an answer, not a failed try.
			expect(engine.triesOf(REGISTRY_NODE)).toBe(1);
			expect(sandbox.counters.lookupsByStatus[500]).toBe(2);
		},
		30_000,
	);
});

describe('Execute Once', () => {
	let engine: Engine;
	sandboxEachTest((running) => ({ engine } = running));

	it('looks up the first row only, and its item comes out paired with it', async () => {
		const workflow = lookupWorkflow({ onError: 'continueErrorOutput' });
		workflow.nodes.find((node) => node.name === REGISTRY_NODE)!.executeOnce = true;
		const branches = branchesOf(await engine.execute(workflow, { rows }));
		expect(branches.registered.map((item) => [item.pairedItem, item.json.lookup])).toEqual([
			[{ item: 0 }, { countryCode: 'de', companyId: 'HRB12345' }],
		]);
		expect([...branches.notRegistered, ...branches.errors]).toEqual([]);
	}, 30_000);
});

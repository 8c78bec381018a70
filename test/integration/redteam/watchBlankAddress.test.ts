import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Engine } from '../../../harness/engine';
import { loadWorkflow } from '../../../harness/engine';
import { REGISTRY_NODE, runRows } from '../../../harness/fixtures';
import { scriptedEngine } from '../../support/scriptedEngine';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: an alert pipeline on Watch for Changes, and a registry that writes a company without an
// address as `"registeredAddress": ""` (as a Go or .NET service without omitempty writes an absent
// text) where the interface document has it leave the field out. The address left out was reported as
// a change to no address; the same absence written "" failed the record, so the watch reported a failed
// check on every run and never the change, and Look Up failed the row. A blank address (empty or white
// space only) is now read as none: the record passes as sent, and the watch compares it as a missing one.
// A blank name or status, like a missing one, still fails the record: a registered company has both.

async function watch(engine: Engine) {
	const workflow = loadWorkflow('test/workflows/watch-companies.json');
	const node = workflow.nodes.find((candidate) => candidate.name === REGISTRY_NODE)!;
	node.parameters = { ...node.parameters, options: { maxAttempts: 1 } } as INodeParameters;
	const rows: IDataObject[] = [{ country: 'de', companyId: 'HRB12345' }];
	const result = await engine.execute(workflow, { rows, mode: 'trigger' });
	const [changes = []] = result.outputOf(REGISTRY_NODE);
	return changes.map((item) => {
		const { event, changedFields, changes: what } = item.json;
		return { event, changedFields, changes: what };
	});
}

const ADDRESS = GOOD_RECORD.registeredAddress;
const removed = {
	event: 'detailsChanged',
	changedFields: ['registeredAddress'],
	changes: { registeredAddress: { previous: ADDRESS, current: null } },
};
const added = {
	event: 'detailsChanged',
	changedFields: ['registeredAddress'],
	changes: { registeredAddress: { previous: null, current: ADDRESS } },
};

describe('Watch for Changes, a registry that writes no address as a blank one', () => {
	let registry: ScriptedRegistry;
	let answer: IDataObject = {};
	scriptedRegistryEachTest(
		(started) => {
			registry = started;
			answer = {};
		},
		(_request, response) => json(response, 200, { ...GOOD_RECORD, ...answer }),
	);

	it.each([[''], ['  \n ']])(
		'reports the address removed, and back, as when the field is left out (%j)',
		async (blank) => {
			const engine = scriptedEngine(registry);
			expect(await watch(engine)).toEqual([]);
			answer = { registeredAddress: blank };
			expect(await watch(engine)).toEqual([removed]);
			// Left out now: the same absence, no change.
			answer = { registeredAddress: undefined };
			expect(await watch(engine)).toEqual([]);
			answer = { registeredAddress: blank };
			expect(await watch(engine)).toEqual([]);
			answer = {};
			expect(await watch(engine)).toEqual([added]);
		},
	);

	it('Look Up passes the record as the registry sent it', async () => {
		answer = { registeredAddress: '' };
		const { registered, errors } = await runRows(
			scriptedEngine(registry),
			[{ country: 'de', companyId: 'HRB1' }],
			{ onError: 'continueErrorOutput' },
		);
		expect(errors).toEqual([]);
		expect(registered.map((item) => item.json)).toEqual([
			{ ...GOOD_RECORD, registeredAddress: '', lookup: { countryCode: 'de', companyId: 'HRB1' } },
		]);
	});
});

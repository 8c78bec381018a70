import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { loadWorkflow, type Engine } from '../../harness/engine';
import { REGISTRY_NODE } from '../../harness/fixtures';
import type { Sandbox } from '../../sandbox/server';
import { sandboxEachTest } from '../support/sandboxEachTest';

// Issue 22's patches through n8n's own engine: a main process (its static data loaded) appends the
// changed companies to the processed-items store's row instead of writing it anew; a queue-mode worker (no
// static data) after it reads them. The list is long enough for a patch (a tenth of the row's entries).

const CHANGING = { country: 'gb', companyId: '04417982' };
/** Ids the sandbox does not know (isRegistered false: one entry each) and one it knows. */
const LIST: IDataObject[] = [
	CHANGING,
	...Array.from({ length: 150 }, (_, index) => ({
		country: 'gb',
		companyId: String(30_000_000 + index),
	})),
];

function watchWorkflow() {
	const workflow = loadWorkflow('test/workflows/watch-companies.json');
	const node = workflow.nodes.find((candidate) => candidate.name === REGISTRY_NODE)!;
	node.parameters = { ...node.parameters, options: {} } as INodeParameters;
	return { workflow, nodeId: node.id };
}

const events = (items: INodeExecutionData[]) =>
	items.map((item) => `${item.json.event} ${(item.json.lookup as IDataObject).companyId}`);

describe('Watch for Changes › patches in the processed-items store (issue 22)', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => ({ sandbox, engine } = running));

	const run = async (where: 'main' | 'worker') => {
		const { workflow } = watchWorkflow();
		const result = await engine.execute(workflow, {
			rows: LIST,
			mode: 'trigger',
			onWorker: where === 'worker',
		});
		expect(result.errorOf(REGISTRY_NODE)).toBeUndefined();
		return events(result.outputOf(REGISTRY_NODE)[0] ?? []);
	};
	const rowLength = () => {
		const { workflow, nodeId } = watchWorkflow();
		return engine.processedItems.entriesOf(workflow.id!, nodeId);
	};
	const patchesSaved = () => {
		const { workflow } = watchWorkflow();
		const state = engine.staticDataOf(workflow.id)[`node:${REGISTRY_NODE}`] as IDataObject;
		return (state.storeRow as { patches?: { count: number } }).patches?.count;
	};

	it('a main process appends the change, a worker after it reads it, and each change is reported once', async () => {
		expect(await run('main')).toEqual([]);
		const written = rowLength();
		expect(patchesSaved()).toBe(0);
		sandbox.changeCompany(CHANGING, { status: 'Inactive' });
		expect(await run('main')).toEqual(['turnedInactive 04417982']);
		// Appended: its marker, the company's flag, patch and three entries, its changed marker, the row's flag.
		expect(rowLength()).toBe(written + 8);
		expect(patchesSaved()).toBe(1);
		// Back to Active: a worker (no static data) reads the patch, not the entries written anew (Active).
		sandbox.changeCompany(CHANGING, { status: 'Active' });
		expect(await run('worker')).toEqual(['turnedActive 04417982']);
		// The main process's static data no longer vouches for the row the worker wrote anew: read, not
		// reported twice; its next change is reported.
		expect(await run('main')).toEqual([]);
		sandbox.changeCompany(CHANGING, { status: 'Inactive' });
		expect(await run('main')).toEqual(['turnedInactive 04417982']);
	});
});

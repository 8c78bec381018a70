import type { IDataObject } from 'n8n-workflow';

import type { Engine } from '../../../harness/engine';
import { loadWorkflow } from '../../../harness/engine';
import { REGISTRY_NODE, triggerWorkflow } from '../../../harness/fixtures';
import type { Sandbox } from '../../../sandbox/server';
import { sandboxEachTest } from '../../support/sandboxEachTest';

// Red team (textred): a workflow's static data holds each node's state under `node:<name>`, an object n8n
// makes. An imported or hand-edited workflow may hold anything there (a user who read that the companies
// are now "one JSON text" may put the text there), and n8n hands the node the value as it is. Before
// nodeStaticData (memory.ts), neither node checked it (each story failed then, under n8n's strict modules):
// - a text (or a number): Watch for Changes failed every looked-up company with "The watch's memory in
//   n8n's database could not be read or saved" (a TypeError: a property set on a text), every run; the
//   trigger failed every poll with "Invalid value used in weak set" (pollSave.ts's first-poll record);
// - null: both failed every run reading `companies` of null;
// - a list: the trigger set `companies` on it, which n8n's JSON of the static data leaves out: it kept
//   its memory only in the Workflow object n8n holds; after a restart each poll was a new baseline and no
//   change was reported, without a word.
// The node cannot mend it (it gets no handle on the static data above its own entry): it fails the run
// naming the static data and what to remove, before any lookup.

const TRIGGER = 'Company Registry Trigger';
const WATCHED = [{ country: 'gb', companyId: '04417982' }];

describe("a node's state in the static data that is not an object", () => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => ({ sandbox, engine } = running));

	const watch = async (onError?: 'continueErrorOutput') => {
		const workflow = loadWorkflow('test/workflows/watch-companies.json');
		if (onError) workflow.nodes.find((node) => node.name === REGISTRY_NODE)!.onError = onError;
		const result = await engine.execute(workflow, { rows: WATCHED, mode: 'trigger' });
		return {
			outputs: result.outputOf(REGISTRY_NODE),
			error: result.errorOf(REGISTRY_NODE),
		};
	};
	const saysSo = (label: string) =>
		`The node's saved state in the workflow's static data is ${label}, not an object`;

	it.each([
		['a text', '{"gb/04417982":{"s":"A","d":20000}}'],
		['null', null],
		['a list', []],
		['a number', 7],
	])(
		'Watch for Changes, its state %s: the run says the static data is not usable, before any lookup',
		async (label, state) => {
			engine.setStaticData(
				{ [`node:${REGISTRY_NODE}`]: state as unknown as IDataObject },
				'watch-workflow',
			);
			const { outputs, error } = await watch();
			expect(error?.message).toBe(saysSo(label));
			expect(error?.description).toContain(`remove "node:${REGISTRY_NODE}"`);
			expect(outputs.flat()).toEqual([]);
			expect(sandbox.counters.lookups).toBe(0);
		},
	);

	it('Watch for Changes under Continue (error output): each row leaves as an error item saying so', async () => {
		engine.setStaticData(
			{ [`node:${REGISTRY_NODE}`]: 'corrupt' as unknown as IDataObject },
			'watch-workflow',
		);
		const { outputs, error } = await watch('continueErrorOutput');
		expect(error).toBeUndefined();
		expect(outputs[0]).toEqual([]);
		expect(outputs[1].map((item) => [item.json.error, item.pairedItem])).toEqual([
			[saysSo('a text'), { item: 0 }],
		]);
	});

	it.each([
		['a list', []],
		['a text', '{"gb/04417982":{"s":"A","d":20000}}'],
		['null', null],
	])(
		'the trigger, its state %s: the poll says the static data is not usable',
		async (label, state) => {
			const workflow = triggerWorkflow([{ country: 'gb', companyId: '09876543' }]);
			engine.setStaticData(
				{ [`node:${TRIGGER}`]: state as unknown as IDataObject },
				'trigger-workflow',
			);
			const failed = await engine.poll(workflow, TRIGGER).then(
				() => undefined,
				(error: Error) => error,
			);
			expect(failed?.message).toBe(saysSo(label));
		},
	);
});

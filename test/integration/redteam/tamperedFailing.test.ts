import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { loadWorkflow, type WorkflowFile } from '../../../harness/engine';
import { engineFor } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistry,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: the trigger's static data is loaded as it was saved, also from an older version, a
// hand-edited workflow or an imported one (a workflow's JSON carries its static data). A `failing`
// entry whose `since` is a number no Date holds passed its schema, and `toISOString()` threw a
// RangeError in every poll in which that company failed: the trigger reported nothing more, for any
// company, until the static data was cleared.

const TRIGGER = 'Company Registry Trigger';

function triggerWorkflow(): WorkflowFile {
	const workflow = loadWorkflow('test/workflows/trigger-watchlist.json');
	const node = workflow.nodes.find((candidate) => candidate.name === TRIGGER)!;
	node.parameters = {
		...node.parameters,
		companies: {
			company: [
				{ country: 'de', companyId: 'HRB12345' },
				{ country: 'gb', companyId: '09876543' },
			],
		},
		options: {},
	} as INodeParameters;
	return workflow;
}

describe("a tampered 'failing' entry in the trigger's static data", () => {
	let registry: ScriptedRegistry;
	beforeEach(async () => {
		registry = await scriptedRegistry();
	});
	afterEach(async () => await registry.close());

	it.each([
		['far in the future', 1e300],
		['far in the past', -1e300],
	])('%s: the poll still reports the other changes and the failed check', async (_label, since) => {
		let inactive = false;
		registry.lookup = (request, response) => {
			if (String(request.url).includes('HRB12345')) json(response, 500, { message: 'down' });
			else json(response, 200, { ...GOOD_RECORD, status: inactive ? 'Inactive' : 'Active' });
		};
		const engine = engineFor({ baseUrl: registry.url, authUrl: registry.url });
		await engine.poll(triggerWorkflow(), TRIGGER);
		const saved = engine.staticDataOf('trigger-workflow');
		const nodeKey = Object.keys(saved).find((key) => key.includes(TRIGGER))!;
		const state = saved[nodeKey] as IDataObject;
		expect(state.failing).toHaveProperty(['de/HRB12345']);
		state.failing = { 'de/HRB12345': { since } };
		engine.setStaticData(saved, 'trigger-workflow');
		// n8n loads the saved static data when it activates the workflow (an import, a restart).
		engine.restart();

		inactive = true;
		const events = (await engine.poll(triggerWorkflow(), TRIGGER))?.[0].map((item) => [
			item.json.event,
			(item.json.lookup as IDataObject).companyId,
		]);
		expect(events).toContainEqual(['turnedInactive', '09876543']);
		expect(events).toContainEqual(['checkFailed', 'HRB12345']);
	});
});

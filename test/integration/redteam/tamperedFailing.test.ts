import type { IDataObject } from 'n8n-workflow';

import { triggerWorkflow } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';
import { savedCompanies } from '../../support/savedCompanies';

// Red team: the trigger's static data is loaded as it was saved, also from an older version, a
// hand-edited workflow or an imported one (a workflow's JSON carries its static data). A `failing`
// entry whose `since` is a number no Date holds passed its schema, and `toISOString()` threw a
// RangeError in every poll in which that company failed: the trigger reported nothing more, for any
// company, until the static data was cleared. A snapshot's day (`d`) is checked only to be a
// whole number: one past the Date range threw the same way from `lastCheckedOn`.

const TRIGGER = 'Company Registry Trigger';
const WATCHLIST = [
	{ country: 'de', companyId: 'HRB12345' },
	{ country: 'gb', companyId: '09876543' },
];

describe("a tampered 'failing' entry in the trigger's static data", () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it.each([
		['far in the future', 1e300],
		['far in the past', -1e300],
	])('%s: the poll still reports the other changes and the failed check', async (_label, since) => {
		let inactive = false;
		registry.lookup = (request, response) => {
			if (String(request.url).includes('HRB12345')) json(response, 500, { message: 'down' });
			else json(response, 200, { ...GOOD_RECORD, status: inactive ? 'Inactive' : 'Active' });
		};
		const engine = scriptedEngine(registry);
		await engine.poll(triggerWorkflow(WATCHLIST), TRIGGER);
		const saved = engine.staticDataOf('trigger-workflow');
		const nodeKey = Object.keys(saved).find((key) => key.includes(TRIGGER))!;
		const state = saved[nodeKey] as IDataObject;
		expect(state.failing).toHaveProperty(['de/HRB12345']);
		state.failing = { 'de/HRB12345': { since } };
		engine.setStaticData(saved, 'trigger-workflow');
		// n8n loads the saved static data when it activates the workflow (an import, a restart).
		engine.restart();

		inactive = true;
		const events = (await engine.poll(triggerWorkflow(WATCHLIST), TRIGGER))?.[0].map((item) => [
			item.json.event,
			(item.json.lookup as IDataObject).companyId,
		]);
		expect(events).toContainEqual(['turnedInactive', '09876543']);
		expect(events).toContainEqual(['checkFailed', 'HRB12345']);
	});
	it('a snapshot whose day is no valid date: the poll still reports the failed check and the other changes', async () => {
		let failing = false;
		registry.lookup = (request, response) => {
			if (failing && String(request.url).includes('HRB12345'))
				json(response, 500, { message: 'down' });
			else json(response, 200, { ...GOOD_RECORD, status: failing ? 'Inactive' : 'Active' });
		};
		const engine = scriptedEngine(registry);
		await engine.poll(triggerWorkflow(WATCHLIST), TRIGGER);
		const saved = engine.staticDataOf('trigger-workflow');
		const nodeKey = Object.keys(saved).find((key) => key.includes(TRIGGER))!;
		const companies = savedCompanies(saved[nodeKey]);
		companies['de/HRB12345'] = { ...companies['de/HRB12345'], d: 1e12 };
		(saved[nodeKey] as IDataObject).companies = JSON.stringify(companies);
		engine.setStaticData(saved, 'trigger-workflow');
		expect(
			savedCompanies(engine.staticDataOf('trigger-workflow')[nodeKey])['de/HRB12345'],
		).toMatchObject({ d: 1e12 });
		engine.restart();

		failing = true;
		const events = (await engine.poll(triggerWorkflow(WATCHLIST), TRIGGER))?.[0].map((item) => [
			item.json.event,
			(item.json.lookup as IDataObject).companyId,
		]);
		expect(events).toContainEqual(['turnedInactive', '09876543']);
		expect(events).toContainEqual(['checkFailed', 'HRB12345']);
	});
});

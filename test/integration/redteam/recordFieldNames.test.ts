import { runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: fields a registry adds pass through, and one named `error` comes as `registryError`
// (recordErrorField.test.ts). A record that also had a field `registryError` lost one of the two, and a
// record field named `lookup` was replaced by the node's lookup key: the registry's value was gone
// without a word. A field whose name the item needs moves aside under the name `registry…`, and so
// does a field already holding that name, so nothing the registry sent is lost.

describe('a registry whose records carry fields named as the item’s own', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(_request, response) =>
			json(response, 200, {
				...GOOD_RECORD,
				error: 'from error',
				registryError: 'from registryError',
				lookup: { source: 'registry' },
			}),
	);

	it('keeps every value the registry sent, each under one name, and the lookup key as `lookup`', async () => {
		const engine = scriptedEngine(registry);
		const { registered, notRegistered, errors } = await runRows(
			engine,
			[{ country: 'de', companyId: 'HRB1' }],
			{ onError: 'continueErrorOutput' },
		);
		expect([notRegistered, errors]).toEqual([[], []]);
		expect(registered.map((item) => item.json)).toEqual([
			{
				...GOOD_RECORD,
				registryError: 'from error',
				registryRegistryError: 'from registryError',
				registryLookup: { source: 'registry' },
				lookup: { countryCode: 'de', companyId: 'HRB1' },
			},
		]);
	});
});

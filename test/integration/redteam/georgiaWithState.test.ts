import { runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: Georgia is a country (ge) and a United States state (us/ga). A sheet of US companies whose
// Country column says "Georgia" beside a State column saying "GA" had each row looked up in the
// register of the country Georgia, State ignored: where a Georgian company holds the same number, it
// left by Registered as this one. A Country that is also a US state's name, beside a State naming that
// state, now fails its row naming both readings, with no request; Georgia with no State, or with any
// other, is the country.

describe('Country Georgia beside a US State', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(_request, response) => json(response, 200, GOOD_RECORD),
	);

	it('fails its row saying which two, with no request; the other rows are looked up', async () => {
		const engine = scriptedEngine(registry);
		const { registered, notRegistered, errors } = await runRows(
			engine,
			[
				{ country: 'Georgia', companyId: '0123456', state: 'GA' },
				{ country: 'Georgia', companyId: '0123456', state: '' },
				{ country: 'Georgia', companyId: '0123456', state: 'Tbilisi' },
				{ country: 'us', companyId: '0123456', state: 'Georgia' },
				{ country: 'georgia', companyId: '0123456', state: 'Georgia' },
			],
			{ onError: 'continueErrorOutput' },
		);
		expect(notRegistered).toEqual([]);
		expect(errors.map((item) => [item.pairedItem, item.json.error])).toEqual([
			[
				{ item: 0 },
				"Country 'Georgia' with State 'GA' names the country 'ge' or the United States state 'ga'",
			],
			[
				{ item: 4 },
				"Country 'georgia' with State 'Georgia' names the country 'ge' or the United States state 'ga'",
			],
		]);
		expect(
			registered.map((item) => [
				item.pairedItem,
				(item.json.lookup as { countryCode: string }).countryCode,
			]),
		).toEqual([
			[{ item: 1 }, 'ge'],
			[{ item: 2 }, 'ge'],
			[{ item: 3 }, 'us'],
		]);
		expect(registry.lookups).toBe(2);
	});

	// The reviewer's find: State stays visible with its default 'ca' where Country is an expression, and n8n
	// fills that default; refusing every US state failed every Georgian row of such a sheet (and a trigger's
	// whole poll). Only a State naming the same US state as the Country is two readings.
	it("looks Georgia up as the country beside the State field's default, or another state", async () => {
		const engine = scriptedEngine(registry);
		const { registered, errors } = await runRows(
			engine,
			[{ country: 'Georgia', companyId: '0123456' }],
			{ onError: 'continueErrorOutput', parameters: { state: 'ca' } },
		);
		expect(errors).toEqual([]);
		expect(
			registered.map((item) => (item.json.lookup as { countryCode: string }).countryCode),
		).toEqual(['ge']);
	});
});

import { runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: a Country from a sheet may be ISO's name without its parenthesis ("Falkland Islands").
// "Virgin Islands" is two countries that way, the British (vg) and the US (vi), and was taken as the
// first: a US Virgin Islands company was looked up in the British register, where another company may
// hold the same number and leave by Registered as this one. The row now fails, naming both.

describe('a Country that names two countries', () => {
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
				{ country: 'Virgin Islands', companyId: '1234567' },
				{ country: 'US Virgin Islands', companyId: '1234567' },
				{ country: 'British Virgin Islands', companyId: '1234567' },
			],
			{ onError: 'continueErrorOutput' },
		);
		expect(notRegistered).toEqual([]);
		expect(errors.map((item) => [item.pairedItem, item.json.error])).toEqual([
			[
				{ item: 0 },
				"Country 'Virgin Islands' names more than one country: 'vg' (British Virgin Islands) or 'vi' (US Virgin Islands)",
			],
		]);
		expect(
			registered.map((item) => [
				item.pairedItem,
				(item.json.lookup as { countryCode: string }).countryCode,
			]),
		).toEqual([
			[{ item: 1 }, 'vi'],
			[{ item: 2 }, 'vg'],
		]);
		expect(registry.lookups).toBe(2);
	});
});

import { runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistry,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: a sheet or a webhook gives long numeric company ids as numbers. Beyond 2^53 a number is
// no longer the id that was typed (12345678901234567890 is held as 12345678901234567000, 1e21 is
// written "1e+21"): the node looked up that other id and passed its answer on, by Registered, for the
// row that asked about another company.

describe('a numeric Company ID a number cannot hold exactly', () => {
	let registry: ScriptedRegistry;
	const asked: string[] = [];
	beforeEach(async () => {
		asked.length = 0;
		registry = await scriptedRegistry((request, response) => {
			asked.push(decodeURIComponent(String(request.url).split('?')[0].split('/').pop() ?? ''));
			json(response, 200, GOOD_RECORD);
		});
	});
	afterEach(async () => await registry.close());

	it.each([
		['20 digits', Number('12345678901234567890')],
		['1e21', 1e21],
		['-2^53 - 2', -(2 ** 53) - 2],
	])('%s: the row fails as bad input and nothing is looked up', async (_label, companyId) => {
		const engine = scriptedEngine(registry);
		const { registered, notRegistered, errors } = await runRows(
			engine,
			[
				{ country: 'de', companyId },
				{ country: 'de', companyId: 1234567 },
			],
			{ onError: 'continueErrorOutput' },
		);
		expect(asked).toEqual(['1234567']);
		expect(registered.map((item) => item.pairedItem)).toEqual([{ item: 1 }]);
		expect(notRegistered).toHaveLength(0);
		expect(errors.map((item) => item.pairedItem)).toEqual([{ item: 0 }]);
		expect(String(errors[0].json.error)).toMatch(/Company ID/);
	});
});

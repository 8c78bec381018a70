import { runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: Language is read per row when it is an expression, and a row whose expression throws
// fails alone. But the node first reads the whole Options collection for row 0, which evaluates that
// expression for row 0 too: when it threw there, every row failed with row 0's error.

describe('a Language expression that throws on the first row only', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(_request, response) => json(response, 200, GOOD_RECORD),
	);

	it('fails the first row alone', async () => {
		const engine = scriptedEngine(registry);
		const { registered, notRegistered, errors } = await runRows(
			engine,
			[
				{ country: 'de', companyId: 'HRB1' },
				{ country: 'de', companyId: 'HRB2', lang: 'EN' },
				{ country: 'de', companyId: 'HRB3', lang: 'DE' },
			],
			{
				onError: 'continueErrorOutput',
				options: { language: "={{ $json.lang || $('No Such Node').first().json.lang }}" },
			},
		);
		expect(errors.map((item) => item.pairedItem)).toEqual([{ item: 0 }]);
		expect(registered.map((item) => item.pairedItem)).toEqual([{ item: 1 }, { item: 2 }]);
		expect(notRegistered).toHaveLength(0);
	});
});

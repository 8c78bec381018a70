import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { lookUpTwoRows } from '../../support/scriptedEngine';

// Red team: a registry whose API answers an id it does not know with 404 and a text (REST's way; the
// interface document asks for 200 and isRegistered false) had that row fail as "no lookup endpoint: check
// the credential's Base URL", with the registry's own words left out, while the other rows of the same
// Base URL were answered. A 404 is still no answer about the company (never Not Registered), but what
// the registry said now comes with it, as it does for a 500.

describe('a registry that answers 404 with a text for one company', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(request, response) => {
			if (String(request.url).includes('HRB1')) json(response, 200, GOOD_RECORD);
			else json(response, 404, { message: 'No company HRB2 in the register of Berlin' });
		},
	);

	it("fails that row with the registry's words, and none leaves by Not Registered", async () => {
		const { registered, notRegistered, errors } = await lookUpTwoRows(registry);
		expect(registered.map((item) => item.pairedItem)).toEqual([{ item: 0 }]);
		expect(notRegistered).toEqual([]);
		expect(
			errors.map((item) => [
				item.pairedItem,
				(item.json.details as { description: string; httpCode: string }).httpCode,
			]),
		).toEqual([[{ item: 1 }, '404']]);
		expect((errors[0].json.details as { description: string }).description).toContain(
			'The registry said: No company HRB2 in the register of Berlin',
		);
	});
});

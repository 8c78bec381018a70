import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { lookUpTwoRows } from '../../support/scriptedEngine';

// Red team: a registry, or an API gateway before it, that wraps the record (`{"data": {…}}`, as many
// REST APIs do) or answers a list of one. Each row failed "field 'isRegistered' is missing: expected
// true or false", which reads as a record with a field left out, or with the whole list as the message:
// the user could not tell that the record was there, one level down. It is not taken from the wrapper
// (the interface document has it at the top level, and a wrapper may hold something else), but the row
// now says where it was.

describe('a registry that wraps its record', () => {
	let registry: ScriptedRegistry;
	let body: unknown;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(_request, response) => json(response, 200, body),
	);

	it.each([
		[
			'under data',
			{ data: GOOD_RECORD },
			"The registry's answer is not a valid company record: the record is under field 'data', not at the top level of the answer (section 2.1)",
		],
		[
			'in a list',
			[GOOD_RECORD],
			"The registry's answer is not a valid company record: the response body is not a JSON object but a list of 1: a lookup answers one company record (section 2.1)",
		],
	])(
		'%s: each row fails saying where the record is, and none leaves by Registered',
		async (_shape, answer, message) => {
			body = answer;
			const { registered, notRegistered, errors } = await lookUpTwoRows(registry);
			expect([...registered, ...notRegistered]).toEqual([]);
			expect(errors.map((item) => [item.pairedItem, item.json.error])).toEqual([
				[{ item: 0 }, message],
				[{ item: 1 }, message],
			]);
		},
	);
});

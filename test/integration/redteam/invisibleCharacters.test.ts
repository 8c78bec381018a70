import { expectEachRowOnce, runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	NOT_REGISTERED_RECORD,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: control and bidi characters in a Company ID are refused before any request, but other
// invisible formatting characters were sent: a zero-width space, a word joiner or a soft hyphen that
// came along when an id was copied from a web page or a PDF, and a byte-order mark inside a cell of a
// joined CSV. The registry knows no company by that id and answers isRegistered false (interface
// document, 4.2 rule 2), so a registered company left by Not Registered, with nothing to see in the row.

describe('a Company ID with an invisible formatting character', () => {
	let registry: ScriptedRegistry;
	const asked: string[] = [];
	scriptedRegistryEachTest(
		(started) => {
			asked.length = 0;
			registry = started;
		},
		(request, response) => {
			const id = decodeURIComponent(String(request.url).split('?')[0].split('/').pop() ?? '');
			asked.push(id);
			json(response, 200, id === 'HRB12345' ? GOOD_RECORD : NOT_REGISTERED_RECORD);
		},
	);

	it.each([
		['a zero-width space', 'HRB12345\u200B', 'U+200B'],
		['a word joiner', 'HRB\u206012345', 'U+2060'],
		['a soft hyphen', 'HRB\u00AD12345', 'U+00AD'],
		['a byte-order mark inside', 'HRB\uFEFF12345', 'U+FEFF'],
	])('%s: the row fails as bad input, naming the character', async (_label, companyId, name) => {
		const engine = scriptedEngine(registry);
		const branches = await runRows(
			engine,
			[
				{ country: 'de', companyId },
				{ country: 'de', companyId: 'HRB12345' },
			],
			{ onError: 'continueErrorOutput' },
		);
		expectEachRowOnce(branches, 2);
		expect(asked).toEqual(['HRB12345']);
		expect(branches.notRegistered).toHaveLength(0);
		expect(branches.errors.map((item) => item.pairedItem)).toEqual([{ item: 0 }]);
		expect(String(branches.errors[0].json.error)).toBe(
			`Company ID contains the control character ${name}`,
		);
	});
});

import { expectEachRowOnce, runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	NOT_REGISTERED_RECORD,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: a sheet typed with a Japanese or Chinese input method holds full-width letters and digits
// (ＨＲＢ１２３４５, U+FF01-FF5E); a number formatted by a French or Swiss spreadsheet holds no-break
// spaces (732 829 320, U+202F or U+00A0 between the groups). They read as the id, yet the node sent them as
// typed: the registry knows no company by 'ＨＲＢ１２３４５' and answers isRegistered false (interface
// document, 4.2 rule 2), so a registered company left by Not Registered, with nothing to see in the row; a
// full-width Country failed as unknown. Unicode's compatibility mapping (NFKC) names the character each of
// these stands for: the id goes out in those.

const KNOWN = new Set(['HRB12345', '732 829 320']);

describe('a Company ID or Country written in compatibility characters', () => {
	let registry: ScriptedRegistry;
	const asked: string[] = [];
	scriptedRegistryEachTest(
		(started) => {
			asked.length = 0;
			registry = started;
		},
		(request, response) => {
			const path = String(request.url).split('?')[0].split('/');
			const id = decodeURIComponent(path.pop() ?? '');
			asked.push(`${path.pop()}/${id}`);
			json(response, 200, KNOWN.has(id) ? GOOD_RECORD : NOT_REGISTERED_RECORD);
		},
	);

	it.each([
		['full-width letters and digits', 'de', 'ＨＲＢ１２３４５', 'de/HRB12345'],
		['a full-width country code', 'ＤＥ', 'HRB12345', 'de/HRB12345'],
		['a full-width country name', 'Ｇｅｒｍａｎｙ', 'HRB12345', 'de/HRB12345'],
		['narrow no-break spaces between groups', 'fr', '732\u202F829\u202F320', 'fr/732 829 320'],
		['no-break spaces between groups', 'fr', '732\u00A0829\u00A0320', 'fr/732 829 320'],
	])(
		'%s: the registry is asked the id they stand for',
		async (_label, country, companyId, sent) => {
			const branches = await runRows(scriptedEngine(registry), [{ country, companyId }], {
				onError: 'continueErrorOutput',
			});
			expectEachRowOnce(branches, 1);
			expect(asked).toEqual([sent]);
			expect(branches.errors).toEqual([]);
			expect(branches.notRegistered).toEqual([]);
			expect(branches.registered.map((item) => item.json.lookup)).toEqual([
				{ countryCode: sent.split('/')[0], companyId: sent.split('/')[1] },
			]);
		},
	);
});

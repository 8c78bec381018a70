import { expectEachRowOnce, runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: a sheet of UK companies built from Companies House's own data names each company's country
// as its registered office does: England, Wales, Scotland, Northern Ireland. 'England' was read as the
// United Kingdom, the other three failed their rows as unknown countries, though their companies are in
// the same register. And sheets write codes with dots (U.K., U.S.A., D.C.) and names with "The" (The
// Netherlands): each row failed as unknown where the same text without the dots or "The" was read.

describe('a Country (or State) written as sheets write it', () => {
	let registry: ScriptedRegistry;
	const asked: string[] = [];
	scriptedRegistryEachTest(
		(started) => {
			asked.length = 0;
			registry = started;
		},
		(request, response) => {
			asked.push(String(request.url).replace(/^\/v1\/company\//, ''));
			json(response, 200, GOOD_RECORD);
		},
	);

	it.each([
		['England', {}, 'gb/01234567'],
		['Scotland', {}, 'gb/01234567'],
		['Wales', {}, 'gb/01234567'],
		['Northern Ireland', {}, 'gb/01234567'],
		['U.K.', {}, 'gb/01234567'],
		['The Netherlands', {}, 'nl/01234567'],
		['U.S.A.', { state: 'D.C.' }, 'us/01234567?stateCode=dc'],
		['U.S.', { state: 'N.Y.' }, 'us/01234567?stateCode=ny'],
	])('%s: the row is looked up in its register', async (country, extra, sent) => {
		const branches = await runRows(
			scriptedEngine(registry),
			[{ country, companyId: '01234567', ...extra }],
			{ onError: 'continueErrorOutput' },
		);
		expectEachRowOnce(branches, 1);
		expect(branches.errors.map((item) => item.json.error)).toEqual([]);
		expect(asked).toEqual([sent]);
	});
});

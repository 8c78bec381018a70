import { expectEachRowOnce, runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: fields a registry adds to a record pass through, and a record is read up to 64 KB. Within
// that, a field nested 30,000 levels deep (`[[[[…]]]]`, 60 KB) passed the record check, and cleaning
// the record of secrets recursed into it until the stack overflowed: every row of the sheet failed
// with "Maximum call stack size exceeded", the rows the registry had answered well too.

const deepAnswer = (open: string, close: string, depth: number) =>
	`${JSON.stringify(GOOD_RECORD).slice(0, -1)},"history":${open.repeat(depth)}1${close.repeat(depth)}}`;

describe('a record with a field nested thousands of levels deep', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it.each([
		['lists', '[', ']', 30_000],
		['objects', '{"a":', '}', 9_000],
	])('of %s fails its own row only, saying why', async (_label, open, close, depth) => {
		registry.lookup = (request, response) => {
			if (!String(request.url).includes('DEEP')) return json(response, 200, GOOD_RECORD);
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(deepAnswer(open, close, depth));
		};
		const engine = scriptedEngine(registry);
		const branches = await runRows(
			engine,
			[
				{ country: 'de', companyId: 'HRB1' },
				{ country: 'de', companyId: 'DEEP' },
				{ country: 'de', companyId: 'HRB2' },
			],
			{ onError: 'continueErrorOutput' },
		);
		expectEachRowOnce(branches, 3);
		expect(branches.registered.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 2 }]);
		expect(branches.errors.map((item) => item.pairedItem)).toEqual([{ item: 1 }]);
		expect(String(branches.errors[0].json.error)).toMatch(
			/not a valid company record: field 'history' nests deeper than \d+ levels/,
		);
	});
});

import { runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: JSON is UTF-8, but an older register's API may write ISO-8859-1 (or windows-1252) and say
// so in its Content-Type. The node read every answer as UTF-8: "Müller & Söhne" came out as
// "M\uFFFDller & S\uFFFDhne", on Registered as the company's official name, and a registry whose
// servers differ in this had Watch for Changes report a name change that never happened. The charset
// the answer names is now the one it is read in; UTF-8 where it names none.

const NAME = 'Müller & Söhne Präzisionsteile GmbH';
const ADDRESS = 'Königstraße 12, 70173 Stuttgart';

describe('a registry that writes its answer in the charset its Content-Type names', () => {
	let registry: ScriptedRegistry;
	let charset = 'iso-8859-1';
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(_request, response) => {
			const body = JSON.stringify({
				...GOOD_RECORD,
				officialName: NAME,
				registeredAddress: ADDRESS,
			});
			response.writeHead(200, { 'content-type': `application/json; charset=${charset}` });
			response.end(
				Buffer.from(
					body,
					charset === 'utf-8' ? 'utf8' : charset === 'utf-16le' ? 'utf16le' : 'latin1',
				),
			);
		},
	);

	it.each(['iso-8859-1', 'windows-1252', 'utf-16le', 'utf-8'])(
		'%s: the official name and address come out as the registry wrote them',
		async (named) => {
			charset = named;
			const engine = scriptedEngine(registry);
			const { registered, errors } = await runRows(engine, [{ country: 'de', companyId: 'HRB1' }], {
				onError: 'continueErrorOutput',
			});
			expect(errors).toEqual([]);
			expect(
				registered.map((item) => [item.json.officialName, item.json.registeredAddress]),
			).toEqual([[NAME, ADDRESS]]);
		},
	);
});

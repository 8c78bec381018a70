import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Engine } from '../../../harness/engine';
import { loadWorkflow } from '../../../harness/engine';
import { REGISTRY_NODE, engineFor } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team, kept as a known failure: an alert pipeline on Watch for Changes, and a registry that
// answers the same name and address in another form from one lookup to the next: Unicode composed
// (NFC: "ü" one code point) or decomposed (NFD: "u" and a combining diaeresis), as registries behind
// several back ends or caches, or after a migration, do; or with its line break, a double space or a
// trailing space moved. snapshot.ts remembers the text as it came and compares it code point by code
// point, so each flip is a `detailsChanged` whose previous and current read the same to the person who
// gets the alert, every run the forms flip. The fix is to remember and compare a canonical form (NFC,
// runs of white space as one space, trimmed) in snapshotOf, in nodes/shared/watch/ (both memories
// derive from it); it costs one false change per company whose registry sends another form than the
// canonical one, on the first run after the upgrade (the processed-items store holds hashes of the text
// as it came), which is why it is reported, not changed here.

const NAME = 'Müller & Söhne Präzisionsteile GmbH';
const ADDRESS = 'Königstraße 12, 70173 Stuttgart';

async function watch(engine: Engine) {
	const workflow = loadWorkflow('test/workflows/watch-companies.json');
	const node = workflow.nodes.find((candidate) => candidate.name === REGISTRY_NODE)!;
	node.parameters = { ...node.parameters, options: { maxAttempts: 1 } } as INodeParameters;
	const rows: IDataObject[] = [{ country: 'de', companyId: 'HRB12345' }];
	const result = await engine.execute(workflow, { rows, mode: 'trigger' });
	const [changes = []] = result.outputOf(REGISTRY_NODE);
	return changes.map((item) => item.json);
}

describe('Watch for Changes, a registry that answers the same text in another form', () => {
	let registry: ScriptedRegistry;
	let answer = { officialName: NAME, registeredAddress: ADDRESS };
	scriptedRegistryEachTest(
		(started) => {
			registry = started;
			answer = { officialName: NAME, registeredAddress: ADDRESS };
		},
		(_request, response) => json(response, 200, { ...GOOD_RECORD, ...answer }),
	);

	it.failing('reports no change when only the form changed', async () => {
		const engine = engineFor({ baseUrl: registry.url, authUrl: registry.url });
		expect(await watch(engine)).toEqual([]);
		answer = {
			officialName: NAME.normalize('NFD'),
			registeredAddress: 'Königstraße 12,\n70173  Stuttgart '.normalize('NFD'),
		};
		expect(await watch(engine)).toEqual([]);
	});

	it('still reports a change of the name itself', async () => {
		const engine = engineFor({ baseUrl: registry.url, authUrl: registry.url });
		expect(await watch(engine)).toEqual([]);
		answer = { officialName: 'Müller & Söhne Präzisionsteile AG', registeredAddress: ADDRESS };
		expect((await watch(engine)).map((change) => [change.event, change.changedFields])).toEqual([
			['detailsChanged', ['officialName']],
		]);
	});
});

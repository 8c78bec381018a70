import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Engine } from '../../../harness/engine';
import { loadWorkflow } from '../../../harness/engine';
import { REGISTRY_NODE } from '../../../harness/fixtures';
import { scriptedEngine } from '../../support/scriptedEngine';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: an alert pipeline on Watch for Changes, and a registry that answers the same name and
// address in another form from one lookup to the next: Unicode composed (NFC: "ü" one code point) or
// decomposed (NFD: "u" and a combining diaeresis), as registries behind several back ends or caches, or
// after a migration, do; or with its line break, a double space or a trailing space moved. The watch
// compared the text code point by code point, so each flip was a `detailsChanged` whose previous and
// current read the same to the person who gets the alert. Now both memories compare a canonical form
// (NFC, runs of white space as one space, trimmed; snapshot.ts), and the alert shows the text as sent.
// The upgrade costs no false change: test/unit/watch/textForms.test.ts.

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

	it('reports no change when only the form changed', async () => {
		const engine = scriptedEngine(registry);
		expect(await watch(engine)).toEqual([]);
		answer = {
			officialName: NAME.normalize('NFD'),
			registeredAddress: 'Königstraße 12,\n70173  Stuttgart '.normalize('NFD'),
		};
		expect(await watch(engine)).toEqual([]);
	});

	it('still reports a change of the name itself', async () => {
		const engine = scriptedEngine(registry);
		expect(await watch(engine)).toEqual([]);
		answer = { officialName: 'Müller & Söhne Präzisionsteile AG', registeredAddress: ADDRESS };
		expect((await watch(engine)).map((change) => [change.event, change.changedFields])).toEqual([
			['detailsChanged', ['officialName']],
		]);
	});
});

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

// Red team: an alert pipeline on Watch for Changes, and a registry that moves its names and addresses
// from capitals (as Companies House keeps them) to Title Case, or back, in one migration: every company
// of the list was a `detailsChanged` whose previous and current read the same to the person who gets the
// alert, as text in another Unicode form did before it was compared in one form. A change of letter case
// alone is no change now (compared case-folded, shown as sent); a change of the letters still is.
// The fold is lower case (review, session 41): upper case wrote `Maße` and `Masse` both `MASSE`, hiding a
// change of letters; so `SS` in capitals moved to `ß` is reported now (a fold cannot tell `ß` from `ss`).
//
// On a queue-mode worker only n8n's processed-items store remembers: it holds hashes of each name and
// address in their canonical form, case-folded (processedItemsMemory.ts), so a case change is a hash held.

const NAME = 'MÜLLER & SÖHNE PRÄZISIONSTEILE GMBH';
const ADDRESS = 'KÖNIGSTRAẞE 12, 70173 STUTTGART';

async function watch(engine: Engine, onWorker = false) {
	const workflow = loadWorkflow('test/workflows/watch-companies.json');
	const node = workflow.nodes.find((candidate) => candidate.name === REGISTRY_NODE)!;
	node.parameters = { ...node.parameters, options: { maxAttempts: 1 } } as INodeParameters;
	const rows: IDataObject[] = [{ country: 'de', companyId: 'HRB12345' }];
	const result = await engine.execute(workflow, { rows, mode: 'trigger', onWorker });
	const [changes = []] = result.outputOf(REGISTRY_NODE);
	return changes.map((item) => [item.json.event, item.json.changedFields]);
}

describe('Watch for Changes, a registry that changes the letter case of its names', () => {
	let registry: ScriptedRegistry;
	let answer = { officialName: NAME, registeredAddress: ADDRESS };
	scriptedRegistryEachTest(
		(started) => {
			registry = started;
			answer = { officialName: NAME, registeredAddress: ADDRESS };
		},
		(_request, response) => json(response, 200, { ...GOOD_RECORD, ...answer }),
	);

	it('reports no change when only the case changed (capital ẞ included)', async () => {
		const engine = scriptedEngine(registry);
		expect(await watch(engine)).toEqual([]);
		answer = {
			officialName: 'Müller & Söhne Präzisionsteile GmbH',
			registeredAddress: 'Königstraße 12, 70173 Stuttgart',
		};
		expect(await watch(engine)).toEqual([]);
		answer = { officialName: 'müller & söhne präzisionsteile gmbh', registeredAddress: ADDRESS };
		expect(await watch(engine)).toEqual([]);
	});

	it('still reports a change of the letters', async () => {
		const engine = scriptedEngine(registry);
		expect(await watch(engine)).toEqual([]);
		answer = { officialName: 'Müller & Söhne Präzisionsteile AG', registeredAddress: ADDRESS };
		expect(await watch(engine)).toEqual([['detailsChanged', ['officialName']]]);
	});

	it('reports a change of letters that upper case would hide (Maße and Masse)', async () => {
		const engine = scriptedEngine(registry);
		answer = { officialName: 'Maße & Gewichte GmbH', registeredAddress: ADDRESS };
		expect(await watch(engine)).toEqual([]);
		answer = { officialName: 'Masse & Gewichte GmbH', registeredAddress: ADDRESS };
		expect(await watch(engine)).toEqual([['detailsChanged', ['officialName']]]);
	});

	it('on a queue-mode worker too, reports no change when only the case changed', async () => {
		const engine = scriptedEngine(registry);
		expect(await watch(engine, true)).toEqual([]);
		answer = { officialName: 'Müller & Söhne Präzisionsteile GmbH', registeredAddress: ADDRESS };
		expect(await watch(engine, true)).toEqual([]);
		answer = { officialName: NAME, registeredAddress: 'Königstraße 12, 70173 Stuttgart' };
		expect(await watch(engine, true)).toEqual([]);
	});

	it('on a queue-mode worker, still reports a change of the letters', async () => {
		const engine = scriptedEngine(registry);
		expect(await watch(engine, true)).toEqual([]);
		answer = { officialName: 'Müller & Söhne Präzisionsteile AG', registeredAddress: ADDRESS };
		expect(await watch(engine, true)).toEqual([['detailsChanged', ['officialName']]]);
	});
});

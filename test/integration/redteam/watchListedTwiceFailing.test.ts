import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Engine } from '../../../harness/engine';
import { loadWorkflow } from '../../../harness/engine';
import { REGISTRY_NODE } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: "A company listed twice counts once" (docs/watch.md), and an alert pipeline sends one email
// per item. A change of a company listed twice left once; but while it could not be checked, Watch for
// Changes said so once per row naming it: a sheet with one supplier on three rows sent three alerts a
// run for one outage.

const FAILING = 'HRB500';

async function watch(engine: Engine, rows: IDataObject[]) {
	const workflow = loadWorkflow('test/workflows/watch-companies.json');
	const node = workflow.nodes.find((candidate) => candidate.name === REGISTRY_NODE)!;
	node.parameters = { ...node.parameters, options: { maxAttempts: 1 } } as INodeParameters;
	const result = await engine.execute(workflow, { rows, mode: 'trigger' });
	const [changes = []] = result.outputOf(REGISTRY_NODE);
	return changes;
}

describe('Watch for Changes, a failing company listed on several rows', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(request, response) =>
			String(request.url).includes(`/${FAILING}`)
				? json(response, 500, { error: 'internal' })
				: json(response, 200, GOOD_RECORD),
	);

	it('says once per run that it could not be checked, on the first row naming it', async () => {
		const engine = scriptedEngine(registry);
		const rows = [
			{ country: 'de', companyId: FAILING },
			{ country: 'de', companyId: 'HRB1' },
			{ country: 'DE', companyId: ` ${FAILING}` },
			{ country: 'Germany', companyId: FAILING },
		];
		await watch(engine, rows);
		const changes = await watch(engine, rows);
		expect(changes.map((item) => [item.json.event, item.pairedItem])).toEqual([
			['checkFailed', { item: 0 }],
		]);
	});
});

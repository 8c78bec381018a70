import type { IDataObject } from 'n8n-workflow';

import type { Engine } from '../../../harness/engine';
import { TRIGGER_NODE, triggerWorkflow } from '../../../harness/fixtures';
import type { Sandbox } from '../../../sandbox/server';
import { sandboxEachTest } from '../../support/sandboxEachTest';

// Red team (held): the trigger across a restart during which the watchlist was edited (a company taken
// off, another put on, in the saved workflow) and a watched company changed. The first poll after the
// restart is an activation poll on a new definition, from the saved static data: the change of the
// company watched before is reported once, the company put on is a silent first sighting, the one taken
// off is forgotten (and not reported if it comes back changed later: a first sighting again).

const KEPT = { country: 'de', companyId: 'HRB12345' };
const TAKEN_OFF = { country: 'de', companyId: 'HRB20481' };
const PUT_ON = { country: 'gb', companyId: '04417982' };

describe('Company Registry Trigger, the list edited while n8n was down', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => ({ sandbox, engine } = running));

	const eventsOf = (result: Awaited<ReturnType<Engine['poll']>>) =>
		(result?.[0] ?? []).map(
			(item) => `${String(item.json.event)} ${String((item.json.lookup as IDataObject).companyId)}`,
		);

	it('reports the watched company that changed once, and nothing for the company put on or taken off', async () => {
		const before = triggerWorkflow([KEPT, TAKEN_OFF]);
		expect(eventsOf(await engine.poll(before, TRIGGER_NODE))).toEqual([]);
		expect(eventsOf(await engine.poll(before, TRIGGER_NODE))).toEqual([]);

		engine.restart();
		sandbox.changeCompany(KEPT, { status: 'Inactive' });
		sandbox.changeCompany(PUT_ON, { officialName: 'Renamed While Down Ltd' });
		const after = triggerWorkflow([KEPT, PUT_ON]);
		expect(eventsOf(await engine.poll(after, TRIGGER_NODE))).toEqual([
			`turnedInactive ${KEPT.companyId}`,
		]);
		expect(eventsOf(await engine.poll(after, TRIGGER_NODE))).toEqual([]);

		// Put back on, changed meanwhile: it was forgotten, so this is a first sighting, not a change.
		sandbox.changeCompany(TAKEN_OFF, { status: 'Inactive' });
		const again = triggerWorkflow([KEPT, PUT_ON, TAKEN_OFF]);
		expect(eventsOf(await engine.poll(again, TRIGGER_NODE))).toEqual([]);
		expect(eventsOf(await engine.poll(again, TRIGGER_NODE))).toEqual([]);
	}, 30_000);
});

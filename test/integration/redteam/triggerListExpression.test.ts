import type { Sandbox } from '../../../sandbox/server';
import type { Engine } from '../../../harness/engine';
import { TRIGGER_NODE, triggerWorkflow } from '../../../harness/fixtures';
import { sandboxEachTest } from '../../support/sandboxEachTest';

// Red team: the trigger's list takes expressions. One that reads the input (`{{ $json.id }}`, as in a
// Look Up node fed by a sheet) has nothing to read in a trigger, which has no input item: the poll
// failed with n8n's "Node 'Company Registry Trigger' hasn't been executed", naming neither the company
// of the list nor its field, nor why. It now names both and says a trigger has no input item.

describe('Company Registry Trigger, a list entry whose expression reads an input item', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => ({ sandbox, engine } = running));

	it.each([
		[{ country: 'de', companyId: '={{ $json.id }}' }, 'Company ID'],
		[{ country: '={{ $json.country.code }}', companyId: 'HRB12345' }, 'Country'],
	])(
		'%j fails the poll naming the entry and its field, before any lookup',
		async (entry, field) => {
			const workflow = triggerWorkflow([{ country: 'de', companyId: 'HRB20481' }, entry]);
			const error = await engine.poll(workflow, TRIGGER_NODE).then(
				() => undefined,
				(thrown: unknown) => thrown as { message: string; description?: string },
			);
			expect(error?.message).toMatch(
				new RegExp(`^Company 2 of the list: its ${field} expression failed: .+`),
			);
			expect(error?.description).toMatch(/a trigger has no input item/);
			expect(sandbox.counters.lookups).toBe(0);
		},
	);

	it('an expression that needs no input item is evaluated as before', async () => {
		const workflow = triggerWorkflow([
			{ country: '={{ "DE" }}', companyId: '={{ "HRB" + 12345 }}' },
		]);
		expect(await engine.poll(workflow, TRIGGER_NODE)).toBeNull();
		expect(sandbox.counters.lookups).toBe(1);
	});
});

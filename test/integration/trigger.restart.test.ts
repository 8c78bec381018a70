import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox/server';
import type { Engine } from '../../harness/engine';
import { triggerWorkflow } from '../../harness/fixtures';
import { lookupClock } from '../support/lookupClock';
import { sandboxEachTest } from '../support/sandboxEachTest';
import { savedCompanies } from '../support/savedCompanies';

const TRIGGER = 'Company Registry Trigger';

// The first twelve companies of sandbox/companies.json.
const WATCHLIST = [
	...['HRB12345', 'HRB20481', 'HRB73310', 'HRA40917', 'HRB55821', 'HRB60112', 'HRB31094'].map(
		(companyId) => ({ country: 'de', companyId }),
	),
	...['09876543', '04417982', 'SC318806', 'NI617203', '12045597'].map((companyId) => ({
		country: 'gb',
		companyId,
	})),
];

// n8n 2.41.1 (legacy scheduler, its default) saves a poll trigger's static data at activation and when a
// poll returns items, never after a poll that returns null; a restart activates the workflow anew from
// what was saved (harness/engine.ts `poll` follows this). The trigger has no other memory: n8n gives a
// poll no processed-items store (PollContext's helpers).
describe('Company Registry Trigger across a restart of n8n', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => ({ sandbox, engine } = running));

	const savedIds = () =>
		Object.keys(savedCompanies(engine.staticDataOf('trigger-workflow')[`node:${TRIGGER}`]));
	const eventsOf = (result: Awaited<ReturnType<Engine['poll']>>) =>
		(result?.[0] ?? []).map(
			(item) => `${String(item.json.event)} ${String((item.json.lookup as IDataObject).companyId)}`,
		);

	it('a company first recorded by a poll after activation keeps its baseline: its change before a restart is reported once after it', async () => {
		// Two lookups a second (on the registry's time), one at a time, a 2 s budget: the list takes several polls.
		engine.nodeTypes.useClock(lookupClock(sandbox, 500));
		const workflow = triggerWorkflow(WATCHLIST, { maxConcurrency: 1 });
		const poll = async () =>
			await engine.poll(workflow, TRIGGER, 'trigger', { pollBudgetMs: 2000 });

		expect(eventsOf(await poll())).toEqual([]);
		const atActivation = savedIds();
		expect(atActivation.length).toBeLessThan(WATCHLIST.length);
		const late = WATCHLIST.find(({ country, companyId }) => {
			return !atActivation.includes(`${country}/${companyId}`);
		})!;
		// The rest of the first round: first sightings are silent.
		for (let round = 0; round < 6; round++) expect(eventsOf(await poll())).toEqual([]);

		sandbox.changeCompany(late, { officialName: 'Renamed While Unsaved GmbH' });
		engine.restart();
		const reported: string[] = [];
		for (let round = 0; round < 12; round++) reported.push(...eventsOf(await poll()));
		expect(reported).toEqual([`detailsChanged ${late.companyId}`]);
	});

	it('a company whose first check failed at activation keeps the baseline it gets later (failed checks not reported)', async () => {
		const [mueller, northwind] = [WATCHLIST[0], WATCHLIST[7]];
		// Report Failed Checks Every 0: its failure starts nothing, so nothing is saved for it then.
		const workflow = triggerWorkflow([mueller, northwind], { failedCheckInterval: 0 });
		const poll = async () => eventsOf(await engine.poll(workflow, TRIGGER));
		sandbox.setCompanyFault(northwind, '500');
		expect(await poll()).toEqual([]);
		sandbox.setCompanyFault(northwind, undefined);
		expect(await poll()).toEqual([]);

		sandbox.changeCompany(northwind, { officialName: 'Renamed While Unsaved Ltd' });
		engine.restart();
		expect(await poll()).toEqual([`detailsChanged ${northwind.companyId}`]);
		expect(await poll()).toEqual([]);
	});

	it('a short list, recorded by the activation poll, never starts the workflow while nothing changes', async () => {
		const workflow = triggerWorkflow(WATCHLIST.slice(0, 3));
		for (let round = 0; round < 3; round++) expect(await engine.poll(workflow, TRIGGER)).toBeNull();
	});

	it('under the durable scheduler with durable cursors, n8n saves every poll: no items are needed', async () => {
		engine.nodeTypes.useClock(lookupClock(sandbox, 500));
		const workflow = triggerWorkflow(WATCHLIST, { maxConcurrency: 1 });
		const poll = async () =>
			await engine.poll(workflow, TRIGGER, 'trigger', {
				pollBudgetMs: 2000,
				scheduler: 'durableCursors',
			});
		for (let round = 0; round < 7; round++) expect(await poll()).toBeNull();
		expect(savedIds()).toHaveLength(WATCHLIST.length);
		const late = WATCHLIST[WATCHLIST.length - 1];
		sandbox.changeCompany(late, { officialName: 'Renamed Between Polls Ltd' });
		engine.restart();
		const reported: string[] = [];
		for (let round = 0; round < 12; round++) reported.push(...eventsOf(await poll()));
		expect(reported).toEqual([`detailsChanged ${late.companyId}`]);
	});
});

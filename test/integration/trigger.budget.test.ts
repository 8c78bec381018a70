import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox/server';
import type { Engine } from '../../harness/engine';
import { triggerWorkflow } from '../../harness/fixtures';
import { lookupClock } from '../support/lookupClock';
import { sandboxEachTest } from '../support/sandboxEachTest';
import { savedCompanies } from '../support/savedCompanies';

const TRIGGER = 'Company Registry Trigger';

// The first twelve companies of sandbox/companies.json: de/HRB12345 and gb/12045597 are Active.
const WATCHLIST = [
	'HRB12345',
	'HRB20481',
	'HRB73310',
	'HRA40917',
	'HRB55821',
	'HRB60112',
	'HRB31094',
].map((companyId) => ({ country: 'de', companyId }));
WATCHLIST.push(
	...['09876543', '04417982', 'SC318806', 'NI617203', '12045597'].map((companyId) => ({
		country: 'gb',
		companyId,
	})),
);

// n8n 2.41.1 gives each poll a time budget (getPollBudgetMs) and, under its durable scheduler, abandons a
// poll that runs past its timeout: its items and its static data are dropped. The trigger checks what
// the budget allows and goes on where it stopped at the next poll.
describe('Company Registry Trigger within n8n’s poll budget', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => ({ sandbox, engine } = running));

	const remembered = () =>
		Object.keys(savedCompanies(engine.staticDataOf('trigger-workflow')[`node:${TRIGGER}`])).length;

	it('checks what the budget allows, goes on where it stopped, and reports each change once, none falsely', async () => {
		// Two lookups a second (on the registry's time), one at a time: the twelve companies take 6 s, the
		// budget is 2 s. The budget's real timer: the next test.
		engine.nodeTypes.useClock(lookupClock(sandbox, 500));
		const workflow = triggerWorkflow(WATCHLIST, { maxConcurrency: 1 });
		const poll = async () =>
			await engine.poll(workflow, TRIGGER, 'trigger', { pollBudgetMs: 2000 });

		expect(await poll()).toBeNull();
		const firstPoll = remembered();
		expect(firstPoll).toBeGreaterThan(0);
		expect(firstPoll).toBeLessThan(WATCHLIST.length);

		// First sightings are silent, however many polls the first round takes. A poll after the activation
		// poll that records some returns no items, not null, so that n8n saves them (pollSave.ts).
		let polls = 1;
		while (remembered() < WATCHLIST.length && polls < 20) {
			expect(await poll()).toEqual([[]]);
			polls += 1;
		}
		expect(remembered()).toBe(WATCHLIST.length);
		expect(polls).toBeGreaterThan(1);

		sandbox.changeCompany({ country: 'de', companyId: 'HRB12345' }, { status: 'Inactive' });
		sandbox.changeCompany({ country: 'gb', companyId: '12045597' }, { status: 'Inactive' });
		const reported: string[] = [];
		// Enough polls for two whole rounds of the list: each change once, nothing else.
		for (let round = 0; round < 2 * polls + 2; round++) {
			const result = await poll();
			for (const item of result?.[0] ?? [])
				reported.push(
					`${String(item.json.event)} ${String((item.json.lookup as IDataObject).companyId)}`,
				);
		}
		expect(reported.sort()).toEqual(['turnedInactive 12045597', 'turnedInactive HRB12345']);
	});

	it('a registry too slow for any answer within the budget fails the poll saying so, and the memory stays', async () => {
		const workflow = triggerWorkflow(WATCHLIST.slice(0, 2));
		expect(await engine.poll(workflow, TRIGGER)).toBeNull();
		const before = engine.staticDataOf('trigger-workflow');
		sandbox.setFaults({ latencyMs: 1500 });
		await expect(engine.poll(workflow, TRIGGER, 'trigger', { pollBudgetMs: 1000 })).rejects.toThrow(
			'No company could be checked within the time n8n gives a poll (1 s)',
		);
		expect(engine.staticDataOf('trigger-workflow')).toEqual(before);
	});

	it('a poll started while the last one still runs leaves the list to it (n8n’s poll timer does not wait)', async () => {
		const workflow = triggerWorkflow(WATCHLIST.slice(0, 3));
		expect(await engine.poll(workflow, TRIGGER)).toBeNull();
		sandbox.changeCompany({ country: 'de', companyId: 'HRB12345' }, { status: 'Inactive' });
		sandbox.setFaults({ latencyMs: 500 });
		const lookupsBefore = sandbox.counters.lookups;
		const polls = await Promise.all([
			engine.poll(workflow, TRIGGER),
			engine.poll(workflow, TRIGGER),
		]);
		expect(sandbox.counters.lookups - lookupsBefore).toBe(3);
		expect(polls.flatMap((result) => result?.[0] ?? []).map((item) => item.json.event)).toEqual([
			'turnedInactive',
		]);
		// The next poll is not held back by the one that ended.
		sandbox.changeCompany({ country: 'de', companyId: 'HRB12345' }, { status: 'Active' });
		expect((await engine.poll(workflow, TRIGGER))?.[0].map((item) => item.json.event)).toEqual([
			'turnedActive',
		]);
	});
});

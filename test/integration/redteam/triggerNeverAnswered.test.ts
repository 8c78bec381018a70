import type { ServerResponse } from 'node:http';
import type { IDataObject } from 'n8n-workflow';

import type { Engine } from '../../../harness/engine';
import { TRIGGER_NODE, triggerWorkflow } from '../../../harness/fixtures';
import { budgetClock } from '../../support/budgetClock';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: an alert pipeline on the trigger. One watched company's lookup stops being answered within
// a poll (a registry that holds that id; under the durable scheduler a Request Timeout of 30 s with
// its retries outlasts the 36 s budget). The budget cancelled it at every poll, and a cancelled lookup
// counted as "not reached": neither a change nor a failed check. No `checkFailed` was ever output, so
// the pipeline heard nothing, for ever, of a company nobody could check (docs/watch.md: "Silence means
// nothing changed only if a company that cannot be checked is said"). A company the poll started with
// had the whole budget: its lookup is a failed check, reported when the spell starts, then once per
// Report Failed Checks Every (Hours).

const HELD = 'HRB0';
const LIST = ['HRB1', HELD, 'HRB2'];

describe('Company Registry Trigger, a company whose lookup is never answered within a poll', () => {
	let registry: ScriptedRegistry;
	let engine: Engine;
	const { clock, endBudget } = budgetClock();
	let holding = false;
	const inactive = new Set<string>();
	const held: ServerResponse[] = [];
	let answeredThisPoll = 0;
	let heldThisPoll = 0;
	const endWhenOnlyHeldLeft = () => {
		if (heldThisPoll === 1 && answeredThisPoll === LIST.length - 1) endBudget();
	};
	scriptedRegistryEachTest(
		(started) => {
			registry = started;
			engine = scriptedEngine(registry);
			engine.nodeTypes.useClock(clock);
		},
		(request, response) => {
			const companyId = decodeURIComponent(String(request.url).split('/').pop()!.split('?')[0]);
			if (holding && companyId === HELD) {
				held.push(response);
				heldThisPoll += 1;
			} else {
				answeredThisPoll += 1;
				json(response, 200, {
					...GOOD_RECORD,
					status: inactive.has(companyId) ? 'Inactive' : 'Active',
				});
			}
			if (holding) endWhenOnlyHeldLeft();
		},
	);
	afterEach(() => {
		for (const response of held.splice(0)) response.destroy();
		holding = false;
		inactive.clear();
	});

	/** Polls of the list with these options, under the durable scheduler's default budget (36 s). */
	const pollsOf = (options: IDataObject = {}) => {
		const workflow = triggerWorkflow(
			LIST.map((companyId) => ({ country: 'de', companyId })),
			options,
		);
		return async () => {
			answeredThisPoll = 0;
			heldThisPoll = 0;
			const result = await engine.poll(workflow, TRIGGER_NODE, 'trigger', {
				pollBudgetMs: 36_000,
			});
			return (result?.[0] ?? []).map((item) => item.json);
		};
	};
	const eventsOf = (poll: ReturnType<typeof pollsOf>) => async () =>
		(await poll()).map(
			(json) => `${String(json.event)} ${(json.lookup as { companyId: string }).companyId}`,
		);

	it('is reported once when its checks start failing, not at every poll; its change once it answers again', async () => {
		const poll = eventsOf(pollsOf());
		expect(await poll()).toEqual([]);

		holding = true;
		const reported: string[] = [];
		for (let round = 0; round < 6; round++) reported.push(...(await poll()));
		expect(reported).toEqual([`checkFailed ${HELD}`]);

		// It changed during the outage, and so did another company: each reported once.
		holding = false;
		inactive.add(HELD);
		inactive.add('HRB2');
		const after: string[] = [];
		for (let round = 0; round < 4; round++) after.push(...(await poll()));
		expect(after.sort()).toEqual([`turnedInactive ${HELD}`, 'turnedInactive HRB2']);
	});

	it('says why: the poll’s budget, with no-response as its kind and the day of its last check', async () => {
		const poll = pollsOf();
		await poll();
		holding = true;
		const items = [];
		for (let round = 0; round < 3; round++) items.push(...(await poll()));
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({
			event: 'checkFailed',
			error: {
				kind: 'no-response',
				message: "This company's lookup did not finish within the time n8n gives a poll (36 s)",
			},
			lookup: { countryCode: 'de', companyId: HELD },
			lastCheckedOn: new Date().toISOString().slice(0, 10),
		});
	});

	it('Report Failed Checks Every (Hours) 0: not reported, and nothing else is', async () => {
		const poll = eventsOf(pollsOf({ failedCheckInterval: 0 }));
		await poll();
		holding = true;
		const reported: string[] = [];
		for (let round = 0; round < 4; round++) reported.push(...(await poll()));
		expect(reported).toEqual([]);
	});
});

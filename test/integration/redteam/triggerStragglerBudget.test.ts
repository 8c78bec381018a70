import type { ServerResponse } from 'node:http';

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

// Red team: a long watchlist is checked over several polls; each poll goes on where the last stopped,
// at the first company it had not checked when n8n's budget ran out. A company whose lookup outlasts
// the budget (a registry that holds that one id, one whose Retry-After for it is long, a Request
// Timeout of 30 s under the durable scheduler's 36 s budget) was that company every poll: each poll
// started with it, checked as far as the budget went beside it, and stopped at the same place, so the
// companies beyond were never checked again (a change to them never reported). A company the poll
// started with and could not check had the whole budget: the next poll no longer starts with it.

const STRAGGLER = 'HRB0';
const LIST = ['HRB1', STRAGGLER, 'HRB2', 'HRB3', 'HRB4', 'HRB5', 'HRB6'];
/** Answers each poll's budget allows besides the straggler: the next lookup is held until the budget ends the poll. */
const PER_POLL = 2;

describe('Company Registry Trigger, a company whose lookup outlasts every poll’s budget', () => {
	let registry: ScriptedRegistry;
	let engine: Engine;
	const { clock, endBudget } = budgetClock();
	const asked: string[] = [];
	const inactive = new Set<string>();
	let answeredThisPoll = 0;
	/** With one lookup at a time nothing else is asked beside the straggler: it ends the budget itself. */
	let oneAtATime = false;
	const held: ServerResponse[] = [];
	scriptedRegistryEachTest(
		(started) => {
			registry = started;
			engine = scriptedEngine(registry);
			engine.nodeTypes.useClock(clock);
		},
		(request, response) => {
			const companyId = decodeURIComponent(String(request.url).split('/').pop()!.split('?')[0]);
			// The straggler is never answered within a poll.
			if (companyId === STRAGGLER) {
				held.push(response);
				if (oneAtATime) endBudget();
				return;
			}
			if (answeredThisPoll === PER_POLL) {
				held.push(response);
				endBudget();
				return;
			}
			answeredThisPoll += 1;
			asked.push(companyId);
			json(response, 200, {
				...GOOD_RECORD,
				status: inactive.has(companyId) ? 'Inactive' : 'Active',
			});
		},
	);
	afterEach(() => {
		for (const response of held.splice(0)) response.destroy();
		asked.length = 0;
		inactive.clear();
		oneAtATime = false;
	});

	it('does not hold back the rest of the list: every other company is checked, and a change to the last reported once', async () => {
		const workflow = triggerWorkflow(
			LIST.map((companyId) => ({ country: 'de', companyId })),
			{ maxConcurrency: 2 },
		);
		const poll = async () => {
			answeredThisPoll = 0;
			const result = await engine.poll(workflow, TRIGGER_NODE, 'trigger', {
				pollBudgetMs: 60_000,
			});
			return (result?.[0] ?? []).map(
				(item) =>
					`${String(item.json.event)} ${(item.json.lookup as { companyId: string }).companyId}`,
			);
		};
		// The poll that starts with the straggler gave it the whole budget: a failed check, said once
		// (triggerNeverAnswered.test.ts).
		const first: string[] = [];
		for (let round = 0; round < 6; round++) first.push(...(await poll()));
		expect(first).toEqual([`checkFailed ${STRAGGLER}`]);
		expect(new Set(asked)).toEqual(new Set(LIST.filter((companyId) => companyId !== STRAGGLER)));

		inactive.add('HRB6');
		const reported: string[] = [];
		for (let round = 0; round < 6; round++) reported.push(...(await poll()));
		expect(reported).toEqual(['turnedInactive HRB6']);
	});

	it('one lookup at a time: a poll that checked only the straggler still moves on past it', async () => {
		// The poll that starts with the straggler checks nothing and fails ("No company could be checked");
		// its next poll started with the straggler again, for ever, and the rest of the list went unchecked.
		oneAtATime = true;
		const workflow = triggerWorkflow(
			LIST.map((companyId) => ({ country: 'de', companyId })),
			{ maxConcurrency: 1 },
		);
		const poll = async () => {
			answeredThisPoll = 0;
			try {
				const result = await engine.poll(workflow, TRIGGER_NODE, 'trigger', {
					pollBudgetMs: 60_000,
				});
				return (result?.[0] ?? []).map(
					(item) =>
						`${String(item.json.event)} ${(item.json.lookup as { companyId: string }).companyId}`,
				);
			} catch (error) {
				expect((error as Error).message).toMatch(/^No company could be checked/);
				// Named, as it had the whole poll (the reviewer's find: the poll said nothing of it).
				expect((error as { description?: string }).description).toContain(
					`(de/${STRAGGLER}) had the whole poll and did not finish`,
				);
				return [];
			}
		};
		for (let round = 0; round < 8; round++) expect(await poll()).toEqual([]);
		expect(new Set(asked)).toEqual(new Set(LIST.filter((companyId) => companyId !== STRAGGLER)));

		inactive.add('HRB6');
		const reported: string[] = [];
		for (let round = 0; round < 8; round++) reported.push(...(await poll()));
		expect(reported).toEqual(['turnedInactive HRB6']);
	});
});

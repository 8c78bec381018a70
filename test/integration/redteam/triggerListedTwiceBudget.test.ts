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

// Red team: a long watchlist is checked over several polls, each going on where the last stopped
// (resumeAt, a company's key). "A company listed twice counts once" (docs/watch.md), so a list may
// hold one twice. When a poll stopped at the second listing of such a company, the next poll went back
// to its first listing, before the companies just checked: with a budget that reaches the same
// company each time, the polls went round the same stretch for ever, and the companies after it were
// never checked (a change to them never reported).

/** A company's id in the sandbox's words; C is listed twice. */
const LIST = ['HRB1', 'HRB2', 'HRB3', 'HRB4', 'HRB1', 'HRB5', 'HRB6'];
/** Lookups each poll's budget allows: the next one is held until the budget ends the poll. */
const PER_POLL = 2;

describe('Company Registry Trigger, a company listed twice in a list longer than a poll’s budget', () => {
	let registry: ScriptedRegistry;
	let engine: Engine;
	const { clock, endBudget } = budgetClock();
	const asked: string[] = [];
	const inactive = new Set<string>();
	let answeredThisPoll = 0;
	const held: ServerResponse[] = [];
	scriptedRegistryEachTest(
		(started) => {
			registry = started;
			engine = scriptedEngine(registry);
			engine.nodeTypes.useClock(clock);
		},
		(request, response) => {
			if (answeredThisPoll === PER_POLL) {
				// Held: the budget ends now, and the poll cancels this lookup.
				held.push(response);
				endBudget();
				return;
			}
			answeredThisPoll += 1;
			const companyId = decodeURIComponent(String(request.url).split('/').pop()!.split('?')[0]);
			asked.push(companyId);
			json(response, 200, {
				...GOOD_RECORD,
				status: inactive.has(companyId) ? 'Inactive' : 'Active',
			});
		},
	);
	afterEach(() => {
		for (const response of held.splice(0)) response.destroy();
	});

	it('checks every company of the list within a few rounds, and reports a change to the last one once', async () => {
		const workflow = triggerWorkflow(
			LIST.map((companyId) => ({ country: 'de', companyId })),
			{ maxConcurrency: 1 },
		);
		const poll = async () => {
			answeredThisPoll = 0;
			const result = await engine.poll(workflow, TRIGGER_NODE, 'trigger', { pollBudgetMs: 60_000 });
			return (result?.[0] ?? []).map(
				(item) =>
					`${String(item.json.event)} ${String((item.json.lookup as { companyId: string }).companyId)}`,
			);
		};
		for (let round = 0; round < 8; round++) expect(await poll()).toEqual([]);
		// Six companies at two a poll: every one is checked in eight polls, the last ones too.
		expect(new Set(asked)).toEqual(new Set(['HRB1', 'HRB2', 'HRB3', 'HRB4', 'HRB5', 'HRB6']));

		inactive.add('HRB6');
		const reported: string[] = [];
		for (let round = 0; round < 8; round++) reported.push(...(await poll()));
		expect(reported).toEqual(['turnedInactive HRB6']);
	});
});

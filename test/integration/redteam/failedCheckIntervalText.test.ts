import type { Sandbox } from '../../../sandbox/server';
import type { Engine } from '../../../harness/engine';
import { TRIGGER_NODE, triggerWorkflow } from '../../../harness/fixtures';
import { sandboxEachTest } from '../../support/sandboxEachTest';

// Red team: Report Failed Checks Every (Hours) 0 turns the trigger's checkFailed items off, and then "a
// company that can no longer be checked goes unnoticed" (docs/watch.md). A value that was no number of
// hours (an expression giving '24h' or 'abc', a negative number) was taken as 0: the reports went off
// unseen, and a company failing every poll started nothing. Such a value now fails the poll saying so,
// as a bad company of the list does.

const MUELLER = { country: 'de', companyId: 'HRB12345' };
const FAILING = { country: 'de', companyId: 'HRB20481' };

describe('Company Registry Trigger, Report Failed Checks Every (Hours) that is no number of hours', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => ({ sandbox, engine } = running));

	it.each(['={{ "24h" }}', '={{ -3 }}', 'abc'])(
		'%s fails the poll naming the option, before any lookup',
		async (interval) => {
			const workflow = triggerWorkflow([MUELLER, FAILING], { failedCheckInterval: interval });
			sandbox.setCompanyFault(FAILING, '500');
			await expect(engine.poll(workflow, TRIGGER_NODE)).rejects.toThrow(
				/^Report Failed Checks Every \(Hours\) must be a number of hours, 0 or more, not /,
			);
			expect(sandbox.counters.lookups).toBe(0);
		},
	);

	it.each([
		['={{ "12" }}', 1],
		['={{ "" }}', 1],
		[0, 0],
	] as const)(
		'%s is a number of hours: a failing company is reported %d time(s)',
		async (interval, items) => {
			const workflow = triggerWorkflow([MUELLER, FAILING], {
				failedCheckInterval: interval,
				maxAttempts: 1,
			});
			expect(await engine.poll(workflow, TRIGGER_NODE)).toBeNull();
			sandbox.setCompanyFault(FAILING, '500');
			const result = await engine.poll(workflow, TRIGGER_NODE);
			expect((result?.[0] ?? []).map((item) => item.json.event)).toEqual(
				Array.from({ length: items }, () => 'checkFailed'),
			);
		},
	);
});

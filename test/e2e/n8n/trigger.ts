// test:n8n, issue 26: the Company Registry Trigger in a real n8n, on 20 companies of which one fails
// every request for three polls (a 500, a record breaking the contract, a 500 again) and changes
// meanwhile. Expected, as test/integration/trigger.test.ts shows in the engine: one checkFailed (not one
// per poll), the other companies' changes reported as they happen, and the failing company's change
// reported once when it answers again.
//
// How the polls are driven: n8n polls at most once a minute (a shorter schedule is refused), and
// publishing (activating) a workflow runs its poll at once (n8n-core ActiveWorkflowTriggers
// .activatePollTrigger), starts an execution when the poll returns items, and saves the workflow's static
// data, where the trigger keeps its memory. So each poll here is one publish, deactivated in between,
// with the schedule set to once a year so that no scheduled poll interferes: n8n's own poll path and
// memory, seconds instead of minutes.
import { loadCompanies } from '../../../sandbox/registry';
import { startSandbox, type CompanyFault } from '../../../sandbox/server';
import { waitFor, type Checklist, type RunningN8n } from '../lib/realN8n';
import { Rest } from '../lib/rest';
import {
	noOp,
	registryTrigger,
	workflow,
	type CredentialRef,
	type WorkflowFile,
} from '../lib/workflows';

const TRIGGER = 'Company Registry Trigger';
/** How long after a publish a poll's execution must have appeared (it starts before publish returns). */
const EXECUTION_SETTLE_MS = 3000;

type Company = { country: string; companyId: string; state?: string };

function triggerWorkflow(companies: Company[], credential: CredentialRef): WorkflowFile {
	return workflow('Company Registry Trigger: 20 companies, one failing', [
		registryTrigger(credential, {
			pollTimes: { item: [{ mode: 'custom', cronExpression: '0 0 1 1 *' }] },
			companies: { company: companies.map((company) => ({ state: '', ...company })) },
			// One try, 2 s: a failing company costs a poll little time.
			options: { maxAttempts: 1, timeout: 2 },
		}),
		noOp('Changes', 240),
	]);
}

export async function checkTrigger(n8n: RunningN8n, checklist: Checklist): Promise<void> {
	const { check, log } = {
		check: checklist.check.bind(checklist),
		log: checklist.log.bind(checklist),
	};
	const rest = new Rest(n8n);
	const sandbox = await startSandbox({ port: 0 });
	const companies = loadCompanies().slice(0, 20);
	// Three Active companies of the twenty: one fails on every request, two change meanwhile.
	const [failing, other, third] = companies
		.filter((company, index) => company.status === 'Active' && index > 0)
		.map(({ country, companyId, state }): Company => ({ country, companyId, state }));
	let workflowId = '';
	let seen = 0;
	const events: string[][] = [];
	/** One poll: publish, wait for its execution (if any), deactivate; returns its events. */
	const poll = async (what: string): Promise<string[]> => {
		const { versionId } = await rest.call<{ versionId: string }>('GET', `/workflows/${workflowId}`);
		await rest.call('POST', `/workflows/${workflowId}/activate`, { versionId });
		await new Promise((done) => setTimeout(done, EXECUTION_SETTLE_MS));
		await waitFor(
			`the executions of poll ${what} to finish`,
			async () =>
				(await rest.executions(workflowId)).every(
					(execution) => !['new', 'running', 'waiting'].includes(execution.status),
				),
			60,
		);
		await rest.call('POST', `/workflows/${workflowId}/deactivate`, {});
		const finished = await rest.finishedExecutions(workflowId);
		const fresh = finished.slice(seen);
		seen = finished.length;
		const found: string[] = [];
		for (const execution of fresh) {
			const output = await rest.execution(execution.id);
			const items = output.data.resultData.runData[TRIGGER]?.at(-1)?.data?.main[0] ?? [];
			for (const item of items)
				found.push(
					`${String(item.json.event)} ${String((item.json.lookup as { companyId?: string }).companyId)}`,
				);
		}
		found.sort();
		events.push(found);
		log(`trigger poll ${what}: ${found.length === 0 ? 'no execution' : found.join(', ')}`);
		return found;
	};
	const sameEvents = (got: string[], expected: string[]) =>
		JSON.stringify(got) === JSON.stringify([...expected].sort());
	const setFault = (fault: CompanyFault | undefined) => sandbox.setCompanyFault(failing, fault);
	try {
		const credential = await rest.createSandboxCredential('Company Registry (trigger)', sandbox);
		const created = await rest.call<{ id: string }>(
			'POST',
			'/workflows',
			triggerWorkflow(companies, { id: credential.id, name: credential.name }),
		);
		workflowId = created.id;

		const baseline = await poll('1 (baseline)');
		check(baseline.length === 0, 'trigger: the first poll only records the 20 companies');

		setFault('500');
		sandbox.changeCompany(other, { status: 'Inactive' });
		const second = await poll('2 (one company gets 500s, another turned Inactive)');
		check(
			sameEvents(second, [`checkFailed ${failing.companyId}`, `turnedInactive ${other.companyId}`]),
			`trigger: the failing company is reported once, and the other company's change alongside (${second.join(', ')})`,
		);

		setFault('status');
		sandbox.changeCompany(third, { status: 'Inactive' });
		const thirdPoll = await poll(
			'3 (a record breaking the contract, a third company turned Inactive)',
		);
		check(
			sameEvents(thirdPoll, [`turnedInactive ${third.companyId}`]),
			`trigger: no second checkFailed while it keeps failing; the third company's change is reported (${thirdPoll.join(', ')})`,
		);

		setFault('500');
		sandbox.changeCompany(failing, { status: 'Inactive' });
		const fourth = await poll('4 (still failing; it turned Inactive meanwhile)');
		check(
			fourth.length === 0,
			`trigger: nothing new while it keeps failing (${fourth.join(', ')})`,
		);

		setFault(undefined);
		const fifth = await poll('5 (it answers again)');
		check(
			sameEvents(fifth, [`turnedInactive ${failing.companyId}`]),
			`trigger: once it answers, the change made during its failures is reported (${fifth.join(', ')})`,
		);
		const sixth = await poll('6');
		check(sixth.length === 0, `trigger: and reported once (${sixth.join(', ')})`);

		const all = events.flat();
		log(
			`trigger: polls=${events.length} companies=${companies.length} checkFailed=${all.filter((event) => event.startsWith('checkFailed')).length} ` +
				`changes=${all.filter((event) => !event.startsWith('checkFailed')).length} lookups=${sandbox.counters.lookups}`,
		);
	} finally {
		if (workflowId) {
			const { active } = await rest.call<{ active: boolean }>('GET', `/workflows/${workflowId}`);
			if (active) await rest.call('POST', `/workflows/${workflowId}/deactivate`, {});
		}
		await sandbox.close();
	}
	await checkTriggerRestart(n8n, checklist);
}

/**
 * The trigger's memory across a re-activation (built anew from the saved static data, as at a start of
 * n8n): a company whose first check failed at activation (failed checks not reported, so that poll
 * starts nothing) is first recorded by a scheduled poll, which n8n 2.41.1 saves only if it returns
 * items. Its change made before the re-activation must be reported after it (docs/watch.md).
 */
export async function checkTriggerRestart(n8n: RunningN8n, checklist: Checklist): Promise<void> {
	const rest = new Rest(n8n);
	const sandbox = await startSandbox({ port: 0 });
	const [first, late] = loadCompanies()
		.filter((company) => company.status === 'Active')
		.slice(0, 2)
		.map(({ country, companyId, state }): Company => ({ country, companyId, state }));
	let workflowId = '';
	const eventsOf = async (executions: Array<{ id: string }>) => {
		const found: string[] = [];
		for (const execution of executions) {
			const output = await rest.execution(execution.id);
			const items = output.data.resultData.runData[TRIGGER]?.at(-1)?.data?.main[0] ?? [];
			for (const item of items)
				found.push(
					`${String(item.json.event)} ${String((item.json.lookup as { companyId?: string }).companyId)}`,
				);
		}
		return found;
	};
	const publish = async () => {
		const { versionId } = await rest.call<{ versionId: string }>('GET', `/workflows/${workflowId}`);
		await rest.call('POST', `/workflows/${workflowId}/activate`, { versionId });
		await new Promise((done) => setTimeout(done, EXECUTION_SETTLE_MS));
	};
	const lookupsOfLate = () =>
		sandbox.lookupLog.filter((target) => target.includes(`/${late.companyId}`)).length;
	try {
		const credential = await rest.createSandboxCredential('Company Registry (restart)', sandbox);
		const definition = workflow('Company Registry Trigger: across a re-activation', [
			registryTrigger(
				{ id: credential.id, name: credential.name },
				{
					pollTimes: { item: [{ mode: 'everyMinute' }] },
					companies: { company: [first, late].map((company) => ({ state: '', ...company })) },
					options: { maxAttempts: 1, timeout: 2, failedCheckInterval: 0 },
				},
			),
			noOp('Changes', 240),
		]);
		workflowId = (await rest.call<{ id: string }>('POST', '/workflows', definition)).id;

		sandbox.setCompanyFault(late, '500');
		await publish();
		const afterActivation = await rest.finishedExecutions(workflowId);
		sandbox.setCompanyFault(late, undefined);
		const before = lookupsOfLate();
		// n8n's next scheduled poll (once a minute) checks it, for the first time with an answer.
		await waitFor('a scheduled poll', async () => lookupsOfLate() > before, 90);
		await new Promise((done) => setTimeout(done, EXECUTION_SETTLE_MS));
		await rest.call('POST', `/workflows/${workflowId}/deactivate`, {});
		const afterScheduled = await rest.finishedExecutions(workflowId);
		const scheduled = afterScheduled.slice(afterActivation.length);
		checklist.log(
			`trigger restart: activation executions=${afterActivation.length}, scheduled poll executions=${scheduled.length}, their items: ${(await eventsOf(scheduled)).length}`,
		);

		sandbox.changeCompany(late, { officialName: 'Renamed Before The Restart GmbH' });
		await publish();
		await rest.call('POST', `/workflows/${workflowId}/deactivate`, {});
		const found = await eventsOf(
			(await rest.finishedExecutions(workflowId)).slice(afterScheduled.length),
		);
		checklist.log(`trigger restart: after re-activation: ${found.join(', ') || 'no execution'}`);
		checklist.check(
			JSON.stringify(found) === JSON.stringify([`detailsChanged ${late.companyId}`]),
			`trigger: a company first recorded by a scheduled poll keeps its baseline across a re-activation (${found.join(', ')})`,
		);
	} finally {
		if (workflowId) {
			const { active } = await rest.call<{ active: boolean }>('GET', `/workflows/${workflowId}`);
			if (active) await rest.call('POST', `/workflows/${workflowId}/deactivate`, {});
		}
		await sandbox.close();
	}
}

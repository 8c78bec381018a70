// Scenario 1 (issue 22): a watch of 10,000 registered companies, in a sandbox of their own (rate limit
// off), five runs over both workers: each change reported exactly once. TEST_QUEUE_ONLY=watch runs it
// alone.
import type { StoredCompany } from '../../../../sandbox/registry';
import { startSandbox } from '../../../../sandbox/server';
import { waitFor } from '../../lib/realN8n';
import { Rest } from '../../lib/rest';
import type { Cluster } from '../cluster';
import {
	executionsOf,
	finished,
	outputs,
	postToWebhook,
	runDataOf,
	staticDataOf,
	startAndWait,
} from '../executions';
import type { Row } from '../sheets';
import { portfolioWorkflow } from '../workflows';

const PORTFOLIO_SIZE = 10_000;
const portfolioCompany = (index: number): StoredCompany => ({
	country: 'gb',
	companyId: String(50_000_000 + index),
	officialName: `Portfolio Holding ${index} Limited`,
	status: 'Active',
	registrationDate: '2001-02-03',
	registeredAddress: `${index} High Street, London`,
});

export async function scenarioPortfolioWatch(cluster: Cluster): Promise<void> {
	const { check, log } = {
		check: cluster.checklist.check.bind(cluster.checklist),
		log: cluster.checklist.log.bind(cluster.checklist),
	};
	log(
		`--- scenario 1: a watch of ${PORTFOLIO_SIZE.toLocaleString('en')} companies, five runs over two workers`,
	);
	const companies = Array.from({ length: PORTFOLIO_SIZE }, (_, index) => portfolioCompany(index));
	const sandbox = await startSandbox({
		port: 0,
		companies,
		rateLimit: { ratePerSecond: 100_000, burst: 100_000 },
	});
	const rest = new Rest(cluster.main!);
	try {
		const credential = await rest.createSandboxCredential(
			'Company Registry (portfolio sandbox)',
			sandbox,
		);
		const path = 'queue-portfolio';
		const workflowId = await rest.createActiveWorkflow(portfolioWorkflow(path, credential));
		// Production webhooks register a moment after publishing: probe with an empty list (a run that
		// watches nothing), then let the probe runs finish before the measured ones.
		await waitFor(
			'the portfolio webhook',
			async () => (await postToWebhook(cluster, path, { rows: [] })).status !== 404,
			60,
		);
		await waitFor(
			'the probe runs',
			async () => {
				const probes = await executionsOf(cluster.pg, workflowId);
				return probes.length > 0 && probes.every(finished);
			},
			120,
		);
		const rows = companies.map(({ country, companyId }) => ({ country, companyId }));
		const id = (index: number) => companies[index].companyId;
		/** What changes before each run, and the events that run must report (none for the baseline). */
		const plan: Array<{ change: () => void; expected: string[] }> = [
			{ change: () => undefined, expected: [] },
			{
				change: () => {
					sandbox.changeCompany(companies[17], { status: 'Inactive' });
					sandbox.changeCompany(companies[4242], { officialName: 'Renamed Holding 4242 Limited' });
				},
				expected: [`turnedInactive ${id(17)}`, `detailsChanged ${id(4242)}`],
			},
			{
				change: () => sandbox.changeCompany(companies[9999], { deregistered: true }),
				expected: [`deregistered ${id(9999)}`],
			},
			{
				change: () => {
					sandbox.changeCompany(companies[17], { status: 'Active' });
					sandbox.changeCompany(companies[500], { registeredAddress: '1 New Road, Leeds' });
				},
				expected: [`turnedActive ${id(17)}`, `detailsChanged ${id(500)}`],
			},
			{ change: () => undefined, expected: [] },
		];
		const reported = new Map<string, number>();
		let expectedTotal = 0;
		for (const [index, step] of plan.entries()) {
			const runNumber = index + 1;
			step.change();
			expectedTotal += step.expected.length;
			sandbox.resetCounters();
			const { executions, postedAt } = await startAndWait(
				cluster,
				workflowId,
				path,
				[{ rows }],
				900,
			);
			const [execution] = executions;
			const run = await runDataOf(cluster.pg, execution.id);
			const [changes = [], failed = []] = outputs(run, 'Watch for Changes');
			const events = changes
				.map((item) => `${String(item.json.event)} ${String((item.json.lookup as Row).companyId)}`)
				.sort();
			for (const event of events) reported.set(event, (reported.get(event) ?? 0) + 1);
			const nodeSeconds =
				(run.resultData.runData['Watch for Changes']?.at(-1)?.executionTime ?? 0) / 1000;
			log(
				`FIGURES scenario 1 run ${runNumber}: execution ${execution.id} on ${cluster.ranOn.get(execution.id)?.join(',') ?? '?'}, ` +
					`${execution.status}; webhook to finished ${(execution.stoppedAt - postedAt).toFixed(1)} s, Watch for Changes ${nodeSeconds.toFixed(1)} s; ` +
					`lookups ${sandbox.counters.lookups}; events [${events.join(', ')}]; failed checks ${failed.length}`,
			);
			check(
				execution.status === 'success' &&
					failed.length === 0 &&
					JSON.stringify(events) === JSON.stringify([...step.expected].sort()),
				`scenario 1 run ${runNumber}: exactly the expected events [${step.expected.join(', ')}] (got [${events.join(', ')}], ${failed.length} failed checks, ${execution.status})`,
			);
		}
		const workers = new Set(
			[...cluster.ranOn.values()].flat().filter((worker) => worker.startsWith('worker')),
		);
		const memory = await staticDataOf(cluster.pg, workflowId);
		log(
			`FIGURES scenario 1: ${PORTFOLIO_SIZE} companies, ${plan.length} runs, ${expectedTotal} changes, ` +
				`${[...reported.values()].reduce((sum, count) => sum + count, 0)} events; static data ${(memory.length / 1024).toFixed(0)} KB; workers used ${[...workers].join(', ')}`,
		);
		check(
			reported.size === expectedTotal && [...reported.values()].every((count) => count === 1),
			`scenario 1: each of ${expectedTotal} changes reported exactly once over ${plan.length} runs`,
		);
		await rest.call('POST', `/workflows/${workflowId}/deactivate`, {});
	} finally {
		await sandbox.close();
	}
}

// Scenario 3: three 1,000-row sheets at once spread over both workers against one 100/s limit: no row
// lost, the aggregate time beside the floor.
import type { Sandbox } from '../../../../sandbox/server';
import type { Cluster } from '../cluster';
import { outputs, runDataOf, startAndWait } from '../executions';
import { checkSheetRun, floorSeconds, isInvalid, makeSheet, uniqueValid } from '../sheets';

export async function scenarioThreeSheets(cluster: Cluster, sandbox: Sandbox): Promise<void> {
	const { check, log } = {
		check: cluster.checklist.check.bind(cluster.checklist),
		log: cluster.checklist.log.bind(cluster.checklist),
	};
	log('--- scenario 3: three 1,000-row sheets at once, one 100/s limit');
	sandbox.resetCounters();
	const sheets = [30_000_000, 40_000_000, 50_000_000].map((first) => makeSheet(1000, first));
	const { executions, postedAt } = await startAndWait(
		cluster,
		'queueSheet',
		'queue-sheet',
		sheets.map((rows) => ({ rows })),
	);
	const workers = new Set(executions.flatMap((execution) => cluster.ranOn.get(execution.id) ?? []));
	check(
		workers.size === 2,
		`the three executions spread over both workers (${executions.map((execution) => `${execution.id}: ${cluster.ranOn.get(execution.id)?.join(',')}`).join('; ')})`,
	);
	let lost = 0;
	let failedBeyondInvalid = 0;
	for (const execution of executions) {
		check(
			execution.status === 'success',
			`execution ${execution.id} succeeded (status ${execution.status})`,
		);
		const run = await runDataOf(cluster.pg, execution.id);
		// Which sheet an execution ran: the first generated id of its Not Registered rows.
		const firstNotRegistered = (outputs(run, 'Company Registry')[1] ?? [])[0];
		const first = Number(
			(firstNotRegistered?.json.lookup as { companyId?: string } | undefined)?.companyId ?? 0,
		);
		const sheet =
			sheets.find((candidate) => candidate.some((row) => row.companyId === String(first))) ??
			sheets[0];
		const { registered, notRegistered, failed } = checkSheetRun(
			cluster.checklist,
			run,
			sheet,
			`scenario 3, execution ${execution.id}`,
		);
		lost += sheet.length - registered.length - notRegistered.length - failed.length;
		failedBeyondInvalid += failed.length - sheet.filter(isInvalid).length;
	}
	check(lost === 0, `0 rows lost (lost ${lost})`);
	const lookups = sheets.reduce((sum, sheet) => sum + uniqueValid(sheet), 0);
	const first = Math.min(...executions.map((execution) => execution.startedAt));
	const last = Math.max(...executions.map((execution) => execution.stoppedAt));
	const floor = floorSeconds(lookups);
	log(
		`FIGURES scenario 3: 3 x 1,000 rows, ${lookups} unique valid lookups; webhook to last finished ${(last - postedAt).toFixed(2)} s, ` +
			`first start to last stop ${(last - first).toFixed(2)} s; floor ${floor.toFixed(2)} s; aggregate / floor ${((last - first) / floor).toFixed(3)}; ` +
			`429s ${sandbox.counters.lookupsByStatus[429] ?? 0}; lookups sent ${sandbox.counters.lookups}; token requests ${sandbox.counters.tokenRequests}; ` +
			`rows lost ${lost}; failed beyond the invalid rows ${failedBeyondInvalid}; per execution ${executions.map((execution) => `${(execution.stoppedAt - execution.startedAt).toFixed(1)} s on ${cluster.ranOn.get(execution.id)?.join(',')}`).join(', ')}`,
	);
}

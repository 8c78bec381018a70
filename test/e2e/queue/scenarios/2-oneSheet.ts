// Scenario 2: a 2,000-row sheet started by a webhook runs on a worker: every row answered, one token
// request, the node's time beside the floor.
import type { Sandbox } from '../../../../sandbox/server';
import type { Cluster } from '../cluster';
import { runDataOf, startAndWait } from '../executions';
import { checkSheetRun, floorSeconds, makeSheet, uniqueValid } from '../sheets';

export async function scenarioOneSheet(cluster: Cluster, sandbox: Sandbox): Promise<void> {
	const { check, log } = {
		check: cluster.checklist.check.bind(cluster.checklist),
		log: cluster.checklist.log.bind(cluster.checklist),
	};
	log('--- scenario 2: a 2,000-row sheet started by a webhook');
	sandbox.resetCounters();
	const sheet = makeSheet(2000, 20_000_000);
	const { executions, postedAt } = await startAndWait(cluster, 'queueSheet', 'queue-sheet', [
		{ rows: sheet },
	]);
	const [execution] = executions;
	const run = await runDataOf(cluster.pg, execution.id);
	check(execution.status === 'success', `the execution succeeded (status ${execution.status})`);
	const workers = cluster.ranOn.get(execution.id) ?? [];
	check(
		workers.length === 1 && workers[0].startsWith('worker'),
		`it ran on a worker, not the main (${workers.join(', ') || 'no worker log line'})`,
	);
	checkSheetRun(cluster.checklist, run, sheet, 'scenario 2');
	check(
		sandbox.counters.tokenRequests === 1,
		`one token request (got ${sandbox.counters.tokenRequests})`,
	);
	const lookups = uniqueValid(sheet);
	const nodeSeconds = (run.resultData.runData['Company Registry']?.[0]?.executionTime ?? 0) / 1000;
	const floor = floorSeconds(lookups);
	log(
		`FIGURES scenario 2: ${sheet.length} rows, ${lookups} unique valid lookups; webhook to finished ${(execution.stoppedAt - postedAt).toFixed(2)} s, ` +
			`execution ${(execution.stoppedAt - execution.startedAt).toFixed(2)} s, node ${nodeSeconds.toFixed(2)} s; floor ${floor.toFixed(2)} s; ` +
			`node / floor ${(nodeSeconds / floor).toFixed(3)}; 429s ${sandbox.counters.lookupsByStatus[429] ?? 0}; token requests ${sandbox.counters.tokenRequests}; worker ${workers.join(',')}`,
	);
}

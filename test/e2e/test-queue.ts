// npm run test:queue: the packed package on n8n's own distributed engine. Out of CI, like test:n8n (it
// reuses its Node 24 + n8n preparation). It starts the cluster (queue/cluster.ts: Redis and Postgres 15
// on loopback with throwaway data folders, one n8n main and two `n8n worker`s, each holding the package in
// its own .n8n/nodes), the sandbox registry (100 requests/s, bursts of 100, 45 ms latency), imports the
// workflows (queue/workflows.ts), then runs the scenarios of queue/scenarios/ in their order:
//   1. a watch of 10,000 companies, five runs over both workers: each change reported once
//      (TEST_QUEUE_ONLY=watch runs it alone);
//   2. a 2,000-row sheet started by a webhook runs on a worker: every row answered, time beside the floor
//      (TEST_QUEUE_ONLY=sheet runs it alone);
//   3. three 1,000-row sheets at once spread over both workers against one 100/s limit
//      (TEST_QUEUE_ONLY=sheets runs it alone);
//   4. two executions of one watch workflow at once: is an event lost or repeated?
//   5. a worker SIGKILLed in the middle of a sheet: what n8n does with the execution, Registered, watch state;
//   6. the Company Registry Trigger (every minute, n8n's fastest poll) and a Schedule Trigger running
//      Watch for Changes: one turnedInactive from each, never repeated, state kept across a restart of all.
// TEST_QUEUE_ONLY=overlap runs scenarios 4 and 6 alone (runs of one watch at once: the store's turns).
// Everything it starts is stopped by process id at the end, and the data folders are removed.
import { startSandbox } from '../../sandbox/server';
import { ensureRedisServer } from './lib/queueServices';
import { Checklist, isN8nPrepared, N8N_VERSION, prepareN8n, Processes } from './lib/realN8n';
import {
	createCluster,
	removeClusterFolders,
	startN8nProcesses,
	stopCluster,
} from './queue/cluster';
import { scenarioPortfolioWatch } from './queue/scenarios/1-portfolioWatch';
import { scenarioOneSheet } from './queue/scenarios/2-oneSheet';
import { scenarioThreeSheets } from './queue/scenarios/3-threeSheets';
import { scenarioOverlappingWatch } from './queue/scenarios/4-overlappingWatch';
import { scenarioKilledWorker } from './queue/scenarios/5-killedWorker';
import { scenarioWatchersRestart } from './queue/scenarios/6-watchersRestart';
import { RATE } from './queue/sheets';
import { importQueueWorkflows } from './queue/workflows';

const checklist = new Checklist('test:queue');
const processes = new Processes();

async function main(): Promise<void> {
	const total = performance.now();
	const log = checklist.log.bind(checklist);
	await checklist.timed(isN8nPrepared() ? 'prepare n8n (warm)' : 'prepare n8n (cold)', () =>
		prepareN8n(log),
	);
	ensureRedisServer(log);
	const cluster = await createCluster(checklist, processes);
	const sandbox = await startSandbox({
		port: 0,
		rateLimit: RATE,
		faults: { latencyMs: 45, jitterMs: 10 },
	});
	try {
		await checklist.timed('import credential and workflows', () =>
			importQueueWorkflows(cluster, sandbox),
		);
		await startN8nProcesses(cluster);
		// TEST_QUEUE_ONLY=watch runs scenario 1 alone (about 10 minutes less), =sheet scenario 2, =sheets
		// scenario 3, =overlap scenarios 4 and 6; a comma list runs several in order (=sheet,sheets: 3 after a
		// worker learned alone).
		const only = process.env.TEST_QUEUE_ONLY?.split(',');
		if (!only || only.includes('watch'))
			await checklist.timed('scenario 1', () => scenarioPortfolioWatch(cluster));
		if (!only || only.includes('sheet'))
			await checklist.timed('scenario 2', () => scenarioOneSheet(cluster, sandbox));
		if (!only || only.includes('sheets'))
			await checklist.timed('scenario 3', () => scenarioThreeSheets(cluster, sandbox));
		if (!only || only.includes('overlap'))
			await checklist.timed('scenario 4', () => scenarioOverlappingWatch(cluster, sandbox));
		if (!only) await checklist.timed('scenario 5', () => scenarioKilledWorker(cluster, sandbox));
		if (!only || only.includes('overlap'))
			await checklist.timed('scenario 6', () => scenarioWatchersRestart(cluster, sandbox));
	} finally {
		await stopCluster(cluster);
		await processes.stopAll();
		await sandbox.close();
	}
	checklist.timings.total = (performance.now() - total) / 1000;
	log(`n8n ${N8N_VERSION} in queue mode, timings (s): ${checklist.summary()}`);
	if (checklist.failures > 0) {
		log(`${checklist.failures} check(s) failed; logs kept in ${cluster.logDir}`);
		process.exitCode = 1;
	} else log('all checks passed');
	removeClusterFolders(cluster, checklist.failures > 0);
}

main().catch((error: unknown) => {
	console.error(error);
	processes.killAll();
	process.exit(1);
});

// Scenario 4: two executions of one watch workflow at once, on the two workers: is an event lost or
// repeated?
//
// n8n 2.41.1 starts every execution on a worker without the static data the last run saved: the
// execution's stored workflow snapshot has no staticData (toWorkflowSnapshot in
// executions/execution-data/types.js) and a new execution is enqueued with loadStaticData false
// (workflow-runner.js: only resumed executions reload it), so job-processor.js starts it with none. Watch
// for Changes therefore also remembers in n8n's processed-items store, which workers read and write per
// call (nodes/shared/watch/processedItemsMemory.ts).
import type { Sandbox } from '../../../../sandbox/server';
import type { Cluster } from '../cluster';
import {
	describeEvents,
	eventsIn,
	processedEntriesOf,
	runDataOf,
	startAndWait,
	savedSnapshotOf,
} from '../executions';
import { REGISTERED } from '../sheets';

export async function scenarioOverlappingWatch(cluster: Cluster, sandbox: Sandbox): Promise<void> {
	const { check, log } = {
		check: cluster.checklist.check.bind(cluster.checklist),
		log: cluster.checklist.log.bind(cluster.checklist),
	};
	log('--- scenario 4: two executions of one watch workflow at once');
	// Long enough (about 2 s at the limit) that two executions started together certainly overlap.
	const list = [
		...REGISTERED,
		...Array.from({ length: 190 }, (_, index) => ({
			country: 'gb',
			companyId: String(70_000_000 + index),
		})),
	];
	const baseline = await startAndWait(cluster, 'queueWatch', 'queue-watch', [{ rows: list }]);
	check(
		baseline.executions[0].status === 'success',
		`the baseline watch run succeeded (${baseline.executions[0].status})`,
	);
	check(
		(await savedSnapshotOf(cluster.pg, 'queueWatch', 'fr/809123458'))?.s === 'A',
		"the baseline run saved fr/809123458 as Active in the workflow's static data",
	);
	const entries = await processedEntriesOf(cluster.pg, 'queueWatch');
	check(
		entries.startsWith('n:'),
		`the baseline run saved its entries in n8n's processed-items store (${entries.length} characters)`,
	);
	sandbox.changeCompany({ country: 'fr', companyId: '809123458' }, { status: 'Inactive' });
	const pair = await startAndWait(cluster, 'queueWatch', 'queue-watch', [
		{ rows: list },
		{ rows: list },
	]);
	const [a, b] = pair.executions;
	const overlapped = a.startedAt < b.stoppedAt && b.startedAt < a.stoppedAt;
	const pairEvents = (
		await Promise.all(pair.executions.map((execution) => runDataOf(cluster.pg, execution.id)))
	).map((run) => eventsIn(run, 'Watch for Changes'));
	const after = await startAndWait(cluster, 'queueWatch', 'queue-watch', [{ rows: list }]);
	const afterEvents = eventsIn(
		await runDataOf(cluster.pg, after.executions[0].id),
		'Watch for Changes',
	);
	check(
		pair.executions.every((execution) => execution.status === 'success') && overlapped,
		`both executions succeeded and overlapped in time`,
	);
	const all = [...pairEvents.flat(), ...afterEvents];
	const total = all.length;
	check(
		all.every((item) => item.json.event === 'turnedInactive'),
		`no event other than the one change (${describeEvents(all)})`,
	);
	const verdict =
		total === 1
			? 'reported exactly once'
			: total === 0
				? 'NEVER REPORTED'
				: `REPEATED (${total} times)`;
	log(
		`FIGURES scenario 4: executions ${a.id} (${cluster.ranOn.get(a.id)?.join(',')}, ${a.startedAt.toFixed(2)}-${a.stoppedAt.toFixed(2)}) and ${b.id} ` +
			`(${cluster.ranOn.get(b.id)?.join(',')}, ${b.startedAt.toFixed(2)}-${b.stoppedAt.toFixed(2)}): events [${pairEvents.map(describeEvents).join(' | ')}]; ` +
			`the run after: [${describeEvents(afterEvents)}]; one turnedInactive was ${verdict}`,
	);
	check(
		total === 1,
		`two overlapping runs on the workers and the run after report the change exactly once (${verdict})`,
	);
}

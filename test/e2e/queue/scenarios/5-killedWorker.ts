// Scenario 5: a worker SIGKILLed in the middle of a sheet: what n8n does with the execution, that nothing
// wrong reached Registered, and that the watch state is whole for the next run.
import type { Sandbox } from '../../../../sandbox/server';
import { waitFor } from '../../lib/realN8n';
import { killWorker, type Cluster } from '../cluster';
import {
	describeEvents,
	eventsIn,
	executionsOf,
	finished,
	outputs,
	postToWebhook,
	runDataOf,
	startAndWait,
	savedSnapshotOf,
	watchMemoryOf,
	type Execution,
} from '../executions';
import { checkSheetRun, makeSheet } from '../sheets';

export async function scenarioKilledWorker(cluster: Cluster, sandbox: Sandbox): Promise<void> {
	const { check, log } = {
		check: cluster.checklist.check.bind(cluster.checklist),
		log: cluster.checklist.log.bind(cluster.checklist),
	};
	log('--- scenario 5: a worker SIGKILLed in the middle of a sheet');
	const sheet = makeSheet(1000, 60_000_000);
	const baseline = await startAndWait(cluster, 'queueSheetWatch', 'queue-sheet-watch', [
		{ rows: sheet },
	]);
	check(
		baseline.executions[0].status === 'success',
		`the baseline run succeeded (${baseline.executions[0].status})`,
	);
	const stateBefore = await watchMemoryOf(cluster.pg, 'queueSheetWatch');
	check(
		stateBefore.includes('de/HRB20481') && stateBefore.includes('| n:'),
		'the baseline run saved the watch state (static data and processed-items entries)',
	);
	sandbox.changeCompany({ country: 'de', companyId: 'HRB20481' }, { status: 'Inactive' });

	const before = new Set(
		(await executionsOf(cluster.pg, 'queueSheetWatch')).map((execution) => execution.id),
	);
	let lookups = 0;
	sandbox.onLookup(() => lookups++);
	await postToWebhook(cluster, 'queue-sheet-watch', { rows: sheet });
	let execution: Execution | undefined;
	await waitFor(
		'the sheet half looked up',
		async () => {
			execution = (await executionsOf(cluster.pg, 'queueSheetWatch')).find(
				(candidate) => !before.has(candidate.id),
			);
			return (
				execution !== undefined &&
				(cluster.ranOn.get(execution.id)?.length ?? 0) > 0 &&
				lookups >= 400
			);
		},
		120,
	);
	sandbox.onLookup(undefined);
	const victim = cluster.ranOn.get(execution!.id)![0];
	const killedAt = Date.now();
	killWorker(cluster, victim);
	log(`SIGKILLed ${victim} after ${lookups} lookups of execution ${execution!.id}`);
	let current: Execution | undefined;
	await waitFor(
		`execution ${execution!.id} to leave "running"`,
		async () => {
			current = (await executionsOf(cluster.pg, 'queueSheetWatch')).find(
				(candidate) => candidate.id === execution!.id,
			);
			return current !== undefined && finished(current);
		},
		300,
	);
	const rerun = (cluster.ranOn.get(execution!.id) ?? []).length > 1;
	log(
		`FIGURES scenario 5: execution ${execution!.id} became "${current!.status}" ${((Date.now() - killedAt) / 1000).toFixed(0)} s after the kill; ` +
			`${rerun ? `re-run on ${cluster.ranOn.get(execution!.id)!.slice(1).join(',')}` : 'not re-queued to the surviving worker'}`,
	);
	const killedRun = await runDataOf(cluster.pg, execution!.id).catch(() => undefined);
	log(`FIGURES scenario 5: n8n's message: ${killedRun?.resultData.error?.message ?? '(none)'}`);
	check(
		['crashed', 'error'].includes(current!.status) && !rerun,
		`n8n gives the killed execution up (status ${current!.status}), it does not run it again`,
	);
	const killedRegistered = killedRun ? (outputs(killedRun, 'Company Registry')[0] ?? []) : [];
	check(
		killedRegistered.every((item) => item.json.isRegistered === true),
		`nothing wrong reached Registered in the killed execution (${killedRegistered.length} items kept)`,
	);
	check(
		(await watchMemoryOf(cluster.pg, 'queueSheetWatch')) === stateBefore,
		'the watch state (static data and processed-items entries) is exactly as the last finished run left it',
	);

	const next = await startAndWait(cluster, 'queueSheetWatch', 'queue-sheet-watch', [
		{ rows: sheet },
	]);
	const nextRun = await runDataOf(cluster.pg, next.executions[0].id);
	checkSheetRun(cluster.checklist, nextRun, sheet, 'scenario 5, the next run');
	const events = eventsIn(nextRun, 'Watch for Changes');
	check(
		events.length === 1 &&
			events[0].json.event === 'turnedInactive' &&
			(events[0].json.lookup as { companyId?: string }).companyId === 'HRB20481',
		`the next run reports de/HRB20481 turning Inactive once (${describeEvents(events)})`,
	);
	check(
		(await savedSnapshotOf(cluster.pg, 'queueSheetWatch', 'de/HRB20481'))?.s === 'I',
		'the next run saved de/HRB20481 as Inactive: the state is whole again',
	);
	const again = await startAndWait(cluster, 'queueSheetWatch', 'queue-sheet-watch', [
		{ rows: sheet },
	]);
	const againEvents = eventsIn(
		await runDataOf(cluster.pg, again.executions[0].id),
		'Watch for Changes',
	);
	check(
		againEvents.length === 0,
		`the run after that reports nothing (${describeEvents(againEvents)})`,
	);
}

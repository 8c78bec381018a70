// Scenario 6: the Company Registry Trigger (every minute, n8n's fastest poll) and a Schedule Trigger
// running Watch for Changes: one turnedInactive from each, never repeated, and their state kept across a
// restart of every n8n process. Run last: the watchers go live only here, so their polls and schedules
// stay out of the other scenarios' figures.
import type { Sandbox } from '../../../../sandbox/server';
import { waitFor } from '../../lib/realN8n';
import { startN8nProcesses, stopN8nProcesses, type Cluster } from '../cluster';
import {
	describeEvents,
	eventsIn,
	eventsSince,
	executionsOf,
	finished,
	runDataOf,
	staticDataOf,
	type Item,
} from '../executions';
import { publishWorkflows } from '../workflows';

const settle = (ms: number) => new Promise((done) => setTimeout(done, ms));

export async function scenarioWatchersRestart(cluster: Cluster, sandbox: Sandbox): Promise<void> {
	const { checklist } = cluster;
	const { check, log } = {
		check: checklist.check.bind(checklist),
		log: checklist.log.bind(checklist),
	};
	await stopN8nProcesses(cluster);
	await publishWorkflows(cluster, ['queuePoll', 'queueSchedule']);
	await startN8nProcesses(cluster);

	log('--- scenario 6: the trigger and a scheduled watch, across a restart of every n8n process');
	const polls = () =>
		sandbox.lookupLog.filter((path) => path.startsWith('/v1/company/nl/68750123')).length;
	const scheduled = () =>
		sandbox.lookupLog.filter((path) => path.startsWith('/v1/company/nl/34120977')).length;
	const count = (items: Item[], event: string) =>
		items.filter(
			(item) =>
				item.json.event === event &&
				(item.json.lookup as { companyId?: string }).companyId === '04417982',
		).length;
	const trigger = async () =>
		await eventsSince(cluster, 'queuePoll', 'Company Registry Trigger', 0);
	const schedule = async () => await eventsSince(cluster, 'queueSchedule', 'Watch for Changes', 0);
	// Which runs reported the company's events, where and when: a repeated event is told by its runs.
	const reporters = async () => {
		const lines: string[] = [];
		for (const [workflowId, nodeName] of [
			['queuePoll', 'Company Registry Trigger'],
			['queueSchedule', 'Watch for Changes'],
		]) {
			for (const execution of await executionsOf(cluster.pg, workflowId)) {
				if (!finished(execution)) continue;
				const events = eventsIn(await runDataOf(cluster.pg, execution.id), nodeName);
				if (count(events, 'turnedInactive') + count(events, 'turnedActive') === 0) continue;
				lines.push(
					`${workflowId} execution ${execution.id} (${cluster.ranOn.get(execution.id)?.join(', ') ?? 'main'}, ${execution.startedAt.toFixed(2)}-${execution.stoppedAt.toFixed(2)}): ${describeEvents(events)}`,
				);
			}
		}
		return lines.join('; ');
	};

	await waitFor(
		'the activation poll and a scheduled run',
		async () =>
			polls() >= 1 &&
			scheduled() >= 1 &&
			(await executionsOf(cluster.pg, 'queueSchedule')).some(finished),
		120,
	);
	const triggerStateAtBaseline = await staticDataOf(cluster.pg, 'queuePoll');
	log(
		`the trigger's baseline poll saved its state in Postgres: ${triggerStateAtBaseline.includes('04417982') ? 'yes' : "no (kept in the main's memory until a poll emits)"}`,
	);
	const changedAt = Date.now();
	sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Inactive' });
	await waitFor(
		'turnedInactive from the trigger',
		async () => count(await trigger(), 'turnedInactive') >= 1,
		150,
	);
	log(
		`FIGURES scenario 6: turnedInactive from the trigger ${((Date.now() - changedAt) / 1000).toFixed(0)} s after the change`,
	);
	const [pollsAtEvent, scheduledAtEvent] = [polls(), scheduled()];
	await waitFor(
		'one more poll and scheduled run',
		async () => polls() > pollsAtEvent && scheduled() > scheduledAtEvent + 1,
		150,
	);
	// The executions those later runs started (if any) have to be finished before counting.
	await settle(5000);
	check(
		count(await trigger(), 'turnedInactive') === 1,
		`the trigger reported turnedInactive exactly once (${count(await trigger(), 'turnedInactive')})`,
	);
	check(
		count(await schedule(), 'turnedInactive') === 1,
		`the scheduled watch reported turnedInactive exactly once (${count(await schedule(), 'turnedInactive')})`,
	);

	const [pollsBeforeRestart, scheduledBeforeRestart] = [polls(), scheduled()];
	await checklist.timed('restart of every n8n process', async () => {
		await stopN8nProcesses(cluster);
		await startN8nProcesses(cluster);
	});
	// n8n polls once on activation: that poll, and a scheduled run, compare against the state kept before the restart.
	await waitFor(
		'a poll and a scheduled run after the restart',
		async () => polls() > pollsBeforeRestart && scheduled() > scheduledBeforeRestart,
		150,
	);
	await settle(5000);
	sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Active' });
	const reactivatedAt = Date.now();
	await waitFor(
		'turnedActive from the trigger',
		async () => count(await trigger(), 'turnedActive') >= 1,
		150,
	);
	// Two more scheduled runs (every 10 s) and the executions they started finished.
	await settle(25_000);
	const [triggerEvents, scheduleEvents] = [await trigger(), await schedule()];
	check(
		count(triggerEvents, 'turnedInactive') === 1 && count(scheduleEvents, 'turnedInactive') === 1,
		`after the restart, no turnedInactive was repeated (trigger ${count(triggerEvents, 'turnedInactive')}, schedule ${count(scheduleEvents, 'turnedInactive')})`,
	);
	check(
		count(triggerEvents, 'turnedActive') === 1 && count(scheduleEvents, 'turnedActive') === 1,
		`the state survived the restart: the change back is reported once by each (trigger ${count(triggerEvents, 'turnedActive')}, schedule ${count(scheduleEvents, 'turnedActive')})`,
	);
	check(
		[...triggerEvents, ...scheduleEvents].every((item) =>
			['turnedInactive', 'turnedActive'].includes(String(item.json.event)),
		),
		`no other event (${describeEvents([...triggerEvents, ...scheduleEvents])})`,
	);
	log(`FIGURES scenario 6: the runs that reported an event: ${await reporters()}`);
	if (count(scheduleEvents, 'turnedInactive') !== 1) {
		const spans = (await executionsOf(cluster.pg, 'queueSchedule')).map(
			(execution) =>
				`${execution.id} ${cluster.ranOn.get(execution.id)?.join('+') ?? 'main'} ${execution.startedAt.toFixed(2)}-${execution.stoppedAt.toFixed(2)} ${execution.status}`,
		);
		log(`FIGURES scenario 6: every scheduled run: ${spans.join('; ')}`);
	}
	log(
		`FIGURES scenario 6: turnedActive from the trigger within ${((Date.now() - reactivatedAt) / 1000 - 25).toFixed(0)} s of the change; polls seen ${polls()}; scheduled runs seen ${scheduled()}`,
	);
}

// The workflows test:queue imports into the main before its processes start, with the credential they
// use, and how they are imported and published.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Sandbox } from '../../../sandbox/server';
import { importCredential, n8nCli } from '../lib/realN8n';
import { sandboxCredential } from '../lib/sandboxCredential';
import {
	chain,
	lookUp,
	node,
	noOp,
	registryTrigger,
	splitRows,
	watch,
	webhook,
	workflow,
	type WorkflowFile,
	type WorkflowNode,
} from '../lib/workflows';
import type { Cluster } from './cluster';

const credential = { id: 'company-registry-sandbox', name: 'Company Registry sandbox' };

/** Every run's data saved, so the scenarios can read each execution's output back from Postgres. */
const queueWorkflow = (
	name: string,
	nodes: WorkflowNode[],
	active: boolean,
	connections?: Record<string, unknown>,
): WorkflowFile => ({
	...workflow(name, nodes, connections, { saveDataSuccessExecution: 'all' }),
	active,
});

/** Its fields from a Look Up's output: the company as the registry identified it. */
const lookedUpCompany = {
	country: '={{ $json.lookup.countryCode }}',
	companyId: '={{ $json.lookup.companyId }}',
	state: '={{ $json.lookup.stateCode }}',
};

export const WORKFLOWS = {
	/** Scenarios 2 and 3: a sheet posted to a webhook, looked up row by row. */
	queueSheet: queueWorkflow(
		'Queue: sheet lookup',
		[webhook('queue-sheet'), splitRows(), lookUp(credential)],
		true,
	),
	/** Scenario 4: a watch list posted to a webhook. */
	queueWatch: queueWorkflow(
		'Queue: watch list',
		[webhook('queue-watch'), splitRows(), watch(credential)],
		true,
	),
	/** Scenario 5: a sheet looked up, its registered companies watched. */
	queueSheetWatch: queueWorkflow(
		'Queue: sheet then watch',
		[
			webhook('queue-sheet-watch'),
			splitRows(),
			lookUp(credential),
			watch(credential, 660, lookedUpCompany),
		],
		true,
		{
			...chain('Webhook', 'Rows', 'Company Registry'),
			'Company Registry': {
				main: [[{ node: 'Watch for Changes', type: 'main', index: 0 }], [], []],
			},
		},
	),
	/** Scenario 6: the trigger, on n8n's fastest poll (every minute). nl/68750123 only it watches: its lookups count the polls. */
	queuePoll: queueWorkflow(
		'Queue: registry trigger',
		[
			registryTrigger(credential, {
				pollTimes: { item: [{ mode: 'everyMinute' }] },
				companies: {
					company: [
						{ country: 'gb', companyId: '04417982' },
						{ country: 'nl', companyId: '68750123' },
					],
				},
				options: {},
			}),
			noOp('Changes', 220),
		],
		false,
	),
	/** Scenario 6: Watch for Changes on a schedule, every 10 seconds. */
	queueSchedule: queueWorkflow(
		'Queue: scheduled watch',
		[
			node(
				'Schedule',
				'n8n-nodes-base.scheduleTrigger',
				1.2,
				{ rule: { interval: [{ field: 'seconds', secondsInterval: 10 }] } },
				0,
			),
			node(
				'List',
				'n8n-nodes-base.set',
				3.4,
				{
					mode: 'raw',
					jsonOutput: JSON.stringify({
						rows: [
							{ country: 'gb', companyId: '04417982' },
							{ country: 'nl', companyId: '34120977' },
						],
					}),
					options: {},
				},
				220,
			),
			splitRows('rows', 440),
			watch(credential, 660),
		],
		false,
	),
};

/** Scenario 1's portfolio watch, created over the REST API with a credential of its own. */
export const portfolioWorkflow = (
	path: string,
	portfolioCredential: { id: string; name: string },
) =>
	queueWorkflow(
		'Queue: portfolio watch',
		[webhook(path), splitRows(), watch(portfolioCredential)],
		true,
	);

/**
 * The sandbox credential, then one `n8n import:workflow` for all workflows (each CLI start costs about
 * 10 s here), then `publish:workflow` for those marked active: in 2.41.1, --activeState=fromJson imports
 * them without registering their webhooks (measured: 404), publishing does.
 */
export async function importQueueWorkflows(cluster: Cluster, sandbox: Sandbox): Promise<void> {
	const folder = cluster.folders.main;
	await importCredential(folder, sandboxCredential(credential, sandbox), cluster.env);
	const path = join(folder, 'workflows.json');
	writeFileSync(
		path,
		JSON.stringify(Object.entries(WORKFLOWS).map(([id, definition]) => ({ ...definition, id }))),
	);
	await n8nCli(folder, ['import:workflow', `--input=${path}`], cluster.env);
	for (const [id, definition] of Object.entries(WORKFLOWS))
		if (definition.active) await n8nCli(folder, ['publish:workflow', `--id=${id}`], cluster.env);
}

/** Publishes imported workflows (the watchers of scenario 6); n8n must be stopped meanwhile. */
export async function publishWorkflows(cluster: Cluster, ids: string[]): Promise<void> {
	for (const id of ids)
		await n8nCli(cluster.folders.main, ['publish:workflow', `--id=${id}`], cluster.env);
}

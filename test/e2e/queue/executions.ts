// Executions in queue mode, read where n8n keeps them: Postgres (execution_entity, execution_data in
// n8n's `flatted` form, workflow_entity's static data, processed_data), and started over a webhook.
import { createRequire } from 'node:module';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { savedCompanies } from '../../support/savedCompanies';
import { n8nDir, waitFor } from '../lib/realN8n';
import type { RunningPostgres } from '../lib/queueServices';
import type { Cluster } from './cluster';

/** n8n's own run-data format, read with the `flatted` n8n ships: required once n8n is prepared (a cold run installs it first). */
const flatted = {
	parse: (text: string) =>
		(
			createRequire(join(n8nDir, 'package.json'))('flatted') as { parse(text: string): unknown }
		).parse(text),
};

export interface Execution {
	id: string;
	status: string;
	startedAt: number;
	stoppedAt: number;
}

export type Item = { json: Record<string, unknown> };
export interface RunData {
	resultData: {
		error?: { message: string };
		runData: Record<
			string,
			Array<{ executionTime?: number; data?: { main: Array<Item[] | null> } }>
		>;
	};
}

export async function executionsOf(pg: RunningPostgres, workflowId: string): Promise<Execution[]> {
	const rows = await pg.sql(
		`select id, status, coalesce(extract(epoch from "startedAt"), 0), coalesce(extract(epoch from "stoppedAt"), 0) from execution_entity where "workflowId" = '${workflowId}' order by id`,
	);
	return rows
		.trim()
		.split('\n')
		.filter(Boolean)
		.map((line) => {
			const [id, status, startedAt, stoppedAt] = line.split('\t');
			return { id, status, startedAt: Number(startedAt), stoppedAt: Number(stoppedAt) };
		});
}

export async function runDataOf(pg: RunningPostgres, executionId: string): Promise<RunData> {
	const text = (
		await pg.sql(`select data from execution_data where "executionId" = ${executionId}`)
	).trim();
	return flatted.parse(text) as RunData;
}

export function outputs(run: RunData, nodeName: string): Item[][] {
	return (run.resultData.runData[nodeName]?.at(-1)?.data?.main ?? []).map((items) => items ?? []);
}

export const finished = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

/** POSTs a body to the main's production webhook. */
export async function postToWebhook(
	cluster: Cluster,
	path: string,
	body: unknown,
): Promise<Response> {
	return await fetch(`${cluster.main!.base}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
}

/** Posts bodies to a webhook at once; resolves with the executions they started, once all have finished. */
export async function startAndWait(
	cluster: Cluster,
	workflowId: string,
	path: string,
	bodies: unknown[],
	seconds = 300,
): Promise<{ executions: Execution[]; postedAt: number }> {
	const before = new Set(
		(await executionsOf(cluster.pg, workflowId)).map((execution) => execution.id),
	);
	const postedAt = Date.now() / 1000;
	const responses = await Promise.all(bodies.map((body) => postToWebhook(cluster, path, body)));
	if (!responses.every((response) => response.ok)) {
		throw new Error(
			`the webhook ${path} refused: HTTP ${responses.map((response) => response.status).join(', ')}`,
		);
	}
	let executions: Execution[] = [];
	await waitFor(
		`${bodies.length} execution(s) of ${workflowId}`,
		async () => {
			executions = (await executionsOf(cluster.pg, workflowId)).filter(
				(execution) => !before.has(execution.id),
			);
			return executions.length === bodies.length && executions.every(finished);
		},
		seconds,
	);
	return { executions, postedAt };
}

export const eventsIn = (run: RunData, nodeName: string) =>
	(outputs(run, nodeName)[0] ?? []).filter((item) => item.json.event !== undefined);
export const describeEvents = (items: Item[]) =>
	items.map((item) => `${String(item.json.event)} ${JSON.stringify(item.json.lookup)}`).join(', ');

/** Events of a workflow's finished executions after `after` (an execution id). */
export async function eventsSince(
	cluster: Cluster,
	workflowId: string,
	nodeName: string,
	after: number,
): Promise<Item[]> {
	const executions = (await executionsOf(cluster.pg, workflowId)).filter(
		(execution) => Number(execution.id) > after && finished(execution),
	);
	const runs = await Promise.all(
		executions.map((execution) => runDataOf(cluster.pg, execution.id)),
	);
	return runs.flatMap((run) => eventsIn(run, nodeName));
}

export async function staticDataOf(pg: RunningPostgres, workflowId: string): Promise<string> {
	return (
		await pg.sql(
			`select coalesce("staticData"::text, '') from workflow_entity where id = '${workflowId}'`,
		)
	).trim();
}

/**
 * A company's snapshot as a node of the workflow saved it in the static data (memory.ts saves the
 * companies as one JSON text), or undefined.
 */
export async function savedSnapshotOf(
	pg: RunningPostgres,
	workflowId: string,
	companyKey: string,
): Promise<IDataObject | undefined> {
	const text = await staticDataOf(pg, workflowId);
	const nodes = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
	for (const state of Object.values(nodes)) {
		const snapshot = savedCompanies(state)[companyKey];
		if (snapshot) return snapshot;
	}
	return undefined;
}

/** The watch's entries in n8n's processed-items store (the deduplication helpers' table), as text. */
export async function processedEntriesOf(pg: RunningPostgres, workflowId: string): Promise<string> {
	return (
		await pg.sql(
			`select coalesce(string_agg(context || ' ' || value::text, '; ' order by context), '') from processed_data where "workflowId" = '${workflowId}'`,
		)
	).trim();
}

/** What the watch remembers, in both places it keeps it. */
export const watchMemoryOf = async (pg: RunningPostgres, workflowId: string) =>
	`${await staticDataOf(pg, workflowId)} | ${await processedEntriesOf(pg, workflowId)}`;

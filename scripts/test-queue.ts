// npm run test:queue: the packed package on n8n's own distributed engine. Out of CI, like test:n8n (it
// reuses its Node 24 + n8n preparation). It starts Redis and Postgres 15 on loopback with throwaway data
// folders, the sandbox registry (100 requests/s, bursts of 100, 45 ms latency), then n8n in queue mode:
// one main (editor, webhooks, schedules, polls) and two `n8n worker`s, each with its own user folder
// holding the package installed in .n8n/nodes, as a self-hoster does on every instance. Scenarios:
//   1. a 2,000-row sheet started by a webhook runs on a worker: every row answered, wall time beside the floor;
//   2. three 1,000-row sheets at once spread over both workers against one 100/s limit;
//   overlap: two executions of one watch workflow at once: is an event lost or repeated?
//   4. a worker SIGKILLed in the middle of a sheet: what n8n does with the execution, Registered, watch state;
//   3. the Company Registry Trigger (every minute, n8n's fastest poll) and a Schedule Trigger running
//      Watch for Changes: one turnedInactive from each, never repeated, state kept across a restart of all;
//   5. (run first) a watch of 10,000 companies, five runs over both workers: each change reported once.
//      TEST_QUEUE_ONLY=watch runs it alone.
// Everything it starts is stopped by process id at the end, and the data folders are removed.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';

import type { StoredCompany } from '../sandbox/registry';
import { DEMO_CLIENT, startSandbox, type Sandbox } from '../sandbox/server';
import {
	ensureRedisServer,
	startPostgres,
	startRedis,
	stopChild,
	type RunningPostgres,
} from './lib/queueServices';
import {
	Checklist,
	freePort,
	importCredential,
	installTarball,
	isN8nPrepared,
	n8nBin,
	n8nCli,
	n8nDir,
	n8nEnv,
	N8N_VERSION,
	packPackage,
	prepareN8n,
	Processes,
	startN8n,
	waitFor,
	type RunningN8n,
} from './lib/realN8n';
import { Rest } from './lib/rest';

const RATE = { ratePerSecond: 100, burst: 100 };
const CREDENTIAL_ID = 'company-registry-sandbox';
const PACKAGE_NODE = 'n8n-nodes-company-registry.companyRegistry';
const checklist = new Checklist('test:queue');
const { check, log } = {
	check: checklist.check.bind(checklist),
	log: checklist.log.bind(checklist),
};
const processes = new Processes();
/** n8n's own run-data format, read with the `flatted` n8n ships: required once n8n is prepared (a cold run installs it first). */
const flatted = {
	parse: (text: string) =>
		(
			createRequire(join(n8nDir, 'package.json'))('flatted') as { parse(text: string): unknown }
		).parse(text),
};

/** Registered and Active in the sandbox (sandbox/companies.json); every other row is unknown or invalid. */
const REGISTERED = [
	{ country: 'de', companyId: 'HRB12345' },
	{ country: 'de', companyId: 'HRB20481' },
	{ country: 'gb', companyId: 'SC318806' },
	{ country: 'fr', companyId: '732829320' },
	{ country: 'fr', companyId: '809123458' },
	{ country: 'us', companyId: 'C0806592', state: 'ca' },
	{ country: 'jp', companyId: '1010001000001' },
	{ country: 'il', companyId: '514321983' },
	{ country: 'kr', companyId: '211-81-34977' },
	{ country: 'gr', companyId: '121856701000' },
];
type Row = { country: string; companyId: string; state?: string };
const rowKey = (row: Row) => `${row.country}/${row.companyId}/${row.state ?? ''}`;

/** 10% of rows repeat an earlier row, 2% have an invalid country, one in 100 is a registered company, the
 * rest are distinct well-formed ids the register does not know (ids from `first` up). */
function makeSheet(rows: number, first: number): Row[] {
	const sheet: Row[] = [];
	for (let index = 0; index < rows; index++) {
		if (index % 50 === 49) sheet.push({ country: 'Atlantis', companyId: `X${index}` });
		else if (index % 10 === 9) sheet.push({ ...sheet[Math.floor(index / 2)] });
		else if (index % 100 === 0) sheet.push({ ...REGISTERED[(index / 100) % REGISTERED.length] });
		else sheet.push({ country: 'gb', companyId: String(first + index) });
	}
	return sheet;
}
const uniqueValid = (sheet: Row[]) =>
	new Set(sheet.filter((row) => row.country !== 'Atlantis').map(rowKey)).size;
const registeredKeys = new Set(REGISTERED.map(rowKey));
/** The best any client can do: the first `burst` lookups at once, then one per 1/rate seconds. */
const floorSeconds = (lookups: number) => Math.max(0, lookups - RATE.burst) / RATE.ratePerSecond;

// ---- workflows -------------------------------------------------------------------------------------

const credentials = { companyRegistryApi: { id: CREDENTIAL_ID, name: 'Company Registry sandbox' } };
const node = (
	name: string,
	type: string,
	typeVersion: number,
	parameters: Record<string, unknown>,
	x: number,
	extra: Record<string, unknown> = {},
) => ({
	id: randomUUID(),
	name,
	type,
	typeVersion,
	position: [x, 0],
	parameters,
	...extra,
});
const webhook = (path: string) =>
	node(
		'Webhook',
		'n8n-nodes-base.webhook',
		2,
		{ httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		0,
		{ webhookId: randomUUID() },
	);
const splitRows = node(
	'Rows',
	'n8n-nodes-base.splitOut',
	1,
	{ fieldToSplitOut: 'body.rows', options: {} },
	220,
);
const companyFields = (prefix: string) => ({
	country: `={{ $json.${prefix}country }}`,
	companyId: `={{ $json.${prefix}companyId }}`,
	state: `={{ $json.${prefix}state }}`,
});
const lookUpNode = node(
	'Company Registry',
	PACKAGE_NODE,
	1,
	{ resource: 'company', operation: 'lookUp', ...companyFields(''), options: {} },
	440,
	{
		onError: 'continueErrorOutput',
		credentials,
	},
);
const watchNode = (fields: Record<string, string>, x: number) =>
	node(
		'Watch for Changes',
		PACKAGE_NODE,
		1,
		{ resource: 'company', operation: 'watch', ...fields, options: {} },
		x,
		{
			onError: 'continueErrorOutput',
			credentials,
		},
	);
const chain = (...names: string[]) =>
	Object.fromEntries(
		names
			.slice(0, -1)
			.map((name, index) => [
				name,
				{ main: [[{ node: names[index + 1], type: 'main', index: 0 }]] },
			]),
	);
const workflow = (
	name: string,
	nodes: unknown[],
	connections: Record<string, unknown>,
	active = true,
) => ({
	name,
	active,
	nodes,
	connections,
	settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all' },
});

const WORKFLOWS = {
	/** Scenarios 1 and 2: a sheet posted to a webhook, looked up row by row. */
	queueSheet: workflow(
		'Queue: sheet lookup',
		[webhook('queue-sheet'), splitRows, lookUpNode],
		chain('Webhook', 'Rows', 'Company Registry'),
	),
	/** The overlap measurement: a watch list posted to a webhook. */
	queueWatch: workflow(
		'Queue: watch list',
		[webhook('queue-watch'), splitRows, watchNode(companyFields(''), 440)],
		chain('Webhook', 'Rows', 'Watch for Changes'),
	),
	/** Scenario 4: a sheet looked up, its registered companies watched. */
	queueSheetWatch: workflow(
		'Queue: sheet then watch',
		[
			webhook('queue-sheet-watch'),
			splitRows,
			lookUpNode,
			watchNode(
				{
					country: '={{ $json.lookup.countryCode }}',
					companyId: '={{ $json.lookup.companyId }}',
					state: '={{ $json.lookup.stateCode }}',
				},
				660,
			),
		],
		{
			...chain('Webhook', 'Rows'),
			Rows: { main: [[{ node: 'Company Registry', type: 'main', index: 0 }]] },
			'Company Registry': {
				main: [[{ node: 'Watch for Changes', type: 'main', index: 0 }], [], []],
			},
		},
	),
	/** Scenario 3: the trigger, on n8n's fastest poll (every minute). nl/68750123 only it watches: its lookups count the polls. */
	queuePoll: workflow(
		'Queue: registry trigger',
		[
			node(
				'Company Registry Trigger',
				'n8n-nodes-company-registry.companyRegistryTrigger',
				1,
				{
					pollTimes: { item: [{ mode: 'everyMinute' }] },
					companies: {
						company: [
							{ country: 'gb', companyId: '04417982' },
							{ country: 'nl', companyId: '68750123' },
						],
					},
					options: {},
				},
				0,
				{ credentials },
			),
			node('Changes', 'n8n-nodes-base.noOp', 1, {}, 220),
		],
		chain('Company Registry Trigger', 'Changes'),
		false,
	),
	/** Scenario 3: Watch for Changes on a schedule, every 10 seconds. */
	queueSchedule: workflow(
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
			node('Rows', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'rows', options: {} }, 440),
			watchNode(companyFields(''), 660),
		],
		chain('Schedule', 'List', 'Rows', 'Watch for Changes'),
		false,
	),
};

/**
 * One `n8n import:workflow` for several workflows (each CLI start costs about 10 s here), then
 * `publish:workflow` for those marked active: in 2.41.1, --activeState=fromJson imports them without
 * registering their webhooks (measured: 404), publishing does.
 */
async function importWorkflows(
	folder: string,
	workflows: Record<string, Record<string, unknown>>,
	env: Record<string, string>,
): Promise<void> {
	const path = join(folder, `workflows-${Object.keys(workflows).join('-')}.json`);
	writeFileSync(
		path,
		JSON.stringify(Object.entries(workflows).map(([id, definition]) => ({ ...definition, id }))),
	);
	await n8nCli(folder, ['import:workflow', `--input=${path}`], env);
	for (const [id, definition] of Object.entries(workflows))
		if (definition.active) await n8nCli(folder, ['publish:workflow', `--id=${id}`], env);
}

// ---- the cluster -----------------------------------------------------------------------------------

interface Cluster {
	pg: RunningPostgres;
	env: Record<string, string>;
	folders: { main: string; worker1: string; worker2: string };
	logDir: string;
	main?: RunningN8n;
	workers: Map<string, ChildProcess>;
	/** Execution id → the worker whose log says it started it (several when re-run). */
	ranOn: Map<string, string[]>;
	starts: number;
}

function watchWorkerLog(cluster: Cluster, name: string, child: ChildProcess): void {
	let pending = '';
	child.stdout?.on('data', (chunk: Buffer) => {
		const lines = (pending + chunk.toString()).split('\n');
		pending = lines.pop() ?? '';
		for (const line of lines) {
			const started = /Worker started execution (\d+)/.exec(line);
			if (started) cluster.ranOn.set(started[1], [...(cluster.ranOn.get(started[1]) ?? []), name]);
		}
	});
}

async function startWorker(cluster: Cluster, name: 'worker1' | 'worker2'): Promise<void> {
	const [healthPort, brokerPort] = [await freePort(), await freePort()];
	const child = processes.spawn(
		n8nBin,
		['worker'],
		{
			cwd: n8nDir,
			env: n8nEnv(cluster.folders[name], {
				...cluster.env,
				N8N_RUNNERS_BROKER_PORT: String(brokerPort),
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(healthPort),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			}),
		},
		join(cluster.logDir, `${name}-${++cluster.starts}.log`),
	);
	watchWorkerLog(cluster, name, child);
	cluster.workers.set(name, child);
	await waitFor(
		`${name} readiness`,
		async () => (await fetch(`http://127.0.0.1:${healthPort}/healthz/readiness`)).ok,
		180,
	);
}

async function startCluster(cluster: Cluster): Promise<void> {
	await checklist.timed('main and two workers until ready', async () => {
		const brokerPort = await freePort();
		cluster.main = await startN8n(cluster.folders.main, processes, checklist, {
			...cluster.env,
			N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		});
		await Promise.all([startWorker(cluster, 'worker1'), startWorker(cluster, 'worker2')]);
	});
}

/** Children of a process (n8n's task runner), so a SIGKILLed worker leaves none behind. */
function descendants(pid: number): number[] {
	const children: number[] = [];
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			if (ppid === pid) children.push(Number(entry), ...descendants(Number(entry)));
		} catch {
			// gone meanwhile
		}
	}
	return children;
}

function killTree(child: ChildProcess): void {
	const orphans = child.pid ? descendants(child.pid) : [];
	child.kill('SIGKILL');
	for (const pid of orphans) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}
}

async function stopN8nProcesses(cluster: Cluster): Promise<void> {
	// Graceful first, so each n8n stops its own task runner; the main last, as in a rolling stop.
	await Promise.all([...cluster.workers.values()].map((child) => stopChild(child, 'SIGTERM', 40)));
	if (cluster.main) await stopChild(cluster.main.process, 'SIGTERM', 40);
}

// ---- executions, read from Postgres ----------------------------------------------------------------

interface Execution {
	id: string;
	status: string;
	startedAt: number;
	stoppedAt: number;
}

async function executionsOf(pg: RunningPostgres, workflowId: string): Promise<Execution[]> {
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

type Item = { json: Record<string, unknown> };
interface RunData {
	resultData: {
		error?: { message: string };
		runData: Record<
			string,
			Array<{ executionTime?: number; data?: { main: Array<Item[] | null> } }>
		>;
	};
}

async function runDataOf(pg: RunningPostgres, executionId: string): Promise<RunData> {
	const text = (
		await pg.sql(`select data from execution_data where "executionId" = ${executionId}`)
	).trim();
	return flatted.parse(text) as RunData;
}

function outputs(run: RunData, nodeName: string): Item[][] {
	return (run.resultData.runData[nodeName]?.at(-1)?.data?.main ?? []).map((items) => items ?? []);
}

const finished = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status);

/** Posts bodies to a webhook at once; resolves with the executions they started, once all have finished. */
async function startAndWait(
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
	const responses = await Promise.all(
		bodies.map((body) =>
			fetch(`${cluster.main!.base}/webhook/${path}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
			}),
		),
	);
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

const eventsIn = (run: RunData, nodeName: string) =>
	(outputs(run, nodeName)[0] ?? []).filter((item) => item.json.event !== undefined);
const describeEvents = (items: Item[]) =>
	items.map((item) => `${String(item.json.event)} ${JSON.stringify(item.json.lookup)}`).join(', ');

async function staticDataOf(pg: RunningPostgres, workflowId: string): Promise<string> {
	return (
		await pg.sql(
			`select coalesce("staticData"::text, '') from workflow_entity where id = '${workflowId}'`,
		)
	).trim();
}

/** The watch's entries in n8n's processed-items store (the deduplication helpers' table), as text. */
async function processedEntriesOf(pg: RunningPostgres, workflowId: string): Promise<string> {
	return (
		await pg.sql(
			`select coalesce(string_agg(context || ' ' || value::text, '; ' order by context), '') from processed_data where "workflowId" = '${workflowId}'`,
		)
	).trim();
}

/** What the watch remembers, in both places it keeps it. */
const watchMemoryOf = async (pg: RunningPostgres, workflowId: string) =>
	`${await staticDataOf(pg, workflowId)} | ${await processedEntriesOf(pg, workflowId)}`;

// ---- scenarios -------------------------------------------------------------------------------------

function checkSheetRun(
	run: RunData,
	sheet: Row[],
	label: string,
): { registered: number; notRegistered: number; failed: number } {
	const [registered = [], notRegistered = [], failed = []] = outputs(run, 'Company Registry');
	const invalid = sheet.filter((row) => row.country === 'Atlantis').length;
	const expectedRegistered = sheet.filter((row) => registeredKeys.has(rowKey(row))).length;
	check(
		run.resultData.error === undefined,
		`${label}: no workflow error ${run.resultData.error?.message ?? ''}`,
	);
	check(
		registered.length + notRegistered.length + failed.length === sheet.length,
		`${label}: every row answered: ${registered.length} + ${notRegistered.length} + ${failed.length} of ${sheet.length}`,
	);
	check(
		failed.length === invalid,
		`${label}: exactly the ${invalid} invalid rows failed (got ${failed.length}: ${String(failed.find((item) => !String(item.json.error).includes('Atlantis'))?.json.error ?? '')})`,
	);
	check(
		registered.length === expectedRegistered &&
			registered.every((item) => item.json.isRegistered === true),
		`${label}: Registered holds exactly the ${expectedRegistered} registered rows (got ${registered.length})`,
	);
	return {
		registered: registered.length,
		notRegistered: notRegistered.length,
		failed: failed.length,
	};
}

async function scenarioOneSheet(cluster: Cluster, sandbox: Sandbox): Promise<void> {
	log('--- scenario 1: a 2,000-row sheet started by a webhook');
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
	checkSheetRun(run, sheet, 'scenario 1');
	check(
		sandbox.counters.tokenRequests === 1,
		`one token request (got ${sandbox.counters.tokenRequests})`,
	);
	const lookups = uniqueValid(sheet);
	const nodeSeconds = (run.resultData.runData['Company Registry']?.[0]?.executionTime ?? 0) / 1000;
	const floor = floorSeconds(lookups);
	log(
		`FIGURES scenario 1: ${sheet.length} rows, ${lookups} unique valid lookups; webhook to finished ${(execution.stoppedAt - postedAt).toFixed(2)} s, ` +
			`execution ${(execution.stoppedAt - execution.startedAt).toFixed(2)} s, node ${nodeSeconds.toFixed(2)} s; floor ${floor.toFixed(2)} s; ` +
			`node / floor ${(nodeSeconds / floor).toFixed(3)}; 429s ${sandbox.counters.lookupsByStatus[429] ?? 0}; token requests ${sandbox.counters.tokenRequests}; worker ${workers.join(',')}`,
	);
}

async function scenarioThreeSheets(cluster: Cluster, sandbox: Sandbox): Promise<void> {
	log('--- scenario 2: three 1,000-row sheets at once, one 100/s limit');
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
		const [registered = [], notRegistered = [], failed = []] = outputs(run, 'Company Registry');
		const first = Number(
			(notRegistered[0]?.json.lookup as { companyId?: string } | undefined)?.companyId ?? 0,
		);
		const sheet =
			sheets.find((candidate) => candidate.some((row) => row.companyId === String(first))) ??
			sheets[0];
		checkSheetRun(run, sheet, `scenario 2, execution ${execution.id}`);
		lost += sheet.length - registered.length - notRegistered.length - failed.length;
		failedBeyondInvalid += failed.length - sheet.filter((row) => row.country === 'Atlantis').length;
	}
	check(lost === 0, `0 rows lost (lost ${lost})`);
	const lookups = sheets.reduce((sum, sheet) => sum + uniqueValid(sheet), 0);
	const first = Math.min(...executions.map((execution) => execution.startedAt));
	const last = Math.max(...executions.map((execution) => execution.stoppedAt));
	const floor = floorSeconds(lookups);
	log(
		`FIGURES scenario 2: 3 x 1,000 rows, ${lookups} unique valid lookups; webhook to last finished ${(last - postedAt).toFixed(2)} s, ` +
			`first start to last stop ${(last - first).toFixed(2)} s; floor ${floor.toFixed(2)} s; aggregate / floor ${((last - first) / floor).toFixed(3)}; ` +
			`429s ${sandbox.counters.lookupsByStatus[429] ?? 0}; lookups sent ${sandbox.counters.lookups}; token requests ${sandbox.counters.tokenRequests}; ` +
			`rows lost ${lost}; failed beyond the invalid rows ${failedBeyondInvalid}; per execution ${executions.map((execution) => `${(execution.stoppedAt - execution.startedAt).toFixed(1)} s on ${cluster.ranOn.get(execution.id)?.join(',')}`).join(', ')}`,
	);
}

/**
 * n8n 2.41.1 starts every execution on a worker without the static data the last run saved: the execution's
 * stored workflow snapshot has no staticData (toWorkflowSnapshot in executions/execution-data/types.js) and
 * a new execution is enqueued with loadStaticData false (workflow-runner.js: only resumed executions reload
 * it), so job-processor.js starts it with none. Watch for Changes therefore also remembers in n8n's
 * processed-items store, which workers read and write per call (nodes/shared/watch/processedItemsMemory.ts).
 */
async function measureOverlap(cluster: Cluster, sandbox: Sandbox): Promise<void> {
	log('--- overlap: two executions of one watch workflow at once');
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
		/"fr\/809123458":\{"s":"A"/.test(await staticDataOf(cluster.pg, 'queueWatch')),
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
		`FIGURES overlap: executions ${a.id} (${cluster.ranOn.get(a.id)?.join(',')}, ${a.startedAt.toFixed(2)}-${a.stoppedAt.toFixed(2)}) and ${b.id} ` +
			`(${cluster.ranOn.get(b.id)?.join(',')}, ${b.startedAt.toFixed(2)}-${b.stoppedAt.toFixed(2)}): events [${pairEvents.map(describeEvents).join(' | ')}]; ` +
			`the run after: [${describeEvents(afterEvents)}]; one turnedInactive was ${verdict}`,
	);
	check(
		total === 1,
		`two overlapping runs on the workers and the run after report the change exactly once (${verdict})`,
	);
}

async function scenarioKilledWorker(cluster: Cluster, sandbox: Sandbox): Promise<void> {
	log('--- scenario 4: a worker SIGKILLed in the middle of a sheet');
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
	await fetch(`${cluster.main!.base}/webhook/queue-sheet-watch`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ rows: sheet }),
	});
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
	killTree(cluster.workers.get(victim)!);
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
		`FIGURES scenario 4: execution ${execution!.id} became "${current!.status}" ${((Date.now() - killedAt) / 1000).toFixed(0)} s after the kill; ` +
			`${rerun ? `re-run on ${cluster.ranOn.get(execution!.id)!.slice(1).join(',')}` : 'not re-queued to the surviving worker'}`,
	);
	const killedRun = await runDataOf(cluster.pg, execution!.id).catch(() => undefined);
	log(`FIGURES scenario 4: n8n's message: ${killedRun?.resultData.error?.message ?? '(none)'}`);
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
	checkSheetRun(nextRun, sheet, 'scenario 4, the next run');
	const events = eventsIn(nextRun, 'Watch for Changes');
	check(
		events.length === 1 &&
			events[0].json.event === 'turnedInactive' &&
			(events[0].json.lookup as { companyId?: string }).companyId === 'HRB20481',
		`the next run reports de/HRB20481 turning Inactive once (${describeEvents(events)})`,
	);
	check(
		/"de\/HRB20481":\{"s":"I"/.test(await staticDataOf(cluster.pg, 'queueSheetWatch')),
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

/** Events of a workflow's executions after `after` (an execution id), by event name. */
async function eventsSince(
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
	return runs.flatMap((run) =>
		(outputs(run, nodeName)[0] ?? []).filter((item) => item.json.event !== undefined),
	);
}

async function scenarioWatchers(cluster: Cluster, sandbox: Sandbox): Promise<void> {
	log('--- scenario 3: the trigger and a scheduled watch, across a restart of every n8n process');
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
		`FIGURES scenario 3: turnedInactive from the trigger ${((Date.now() - changedAt) / 1000).toFixed(0)} s after the change`,
	);
	const [pollsAtEvent, scheduledAtEvent] = [polls(), scheduled()];
	await waitFor(
		'one more poll and scheduled run',
		async () => polls() > pollsAtEvent && scheduled() > scheduledAtEvent + 1,
		150,
	);
	// The executions those later runs started (if any) have to be finished before counting.
	await new Promise((done) => setTimeout(done, 5000));
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
		await startCluster(cluster);
	});
	// n8n polls once on activation: that poll, and a scheduled run, compare against the state kept before the restart.
	await waitFor(
		'a poll and a scheduled run after the restart',
		async () => polls() > pollsBeforeRestart && scheduled() > scheduledBeforeRestart,
		150,
	);
	await new Promise((done) => setTimeout(done, 5000));
	sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Active' });
	const reactivatedAt = Date.now();
	await waitFor(
		'turnedActive from the trigger',
		async () => count(await trigger(), 'turnedActive') >= 1,
		150,
	);
	// Two more scheduled runs (every 10 s) and the executions they started finished.
	await new Promise((done) => setTimeout(done, 25_000));
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
	log(
		`FIGURES scenario 3: turnedActive from the trigger within ${((Date.now() - reactivatedAt) / 1000 - 25).toFixed(0)} s of the change; polls seen ${polls()}; scheduled runs seen ${scheduled()}`,
	);
}

/** Issue 22: a portfolio of 10,000 registered companies, in a sandbox of their own (rate limit off). */
const PORTFOLIO_SIZE = 10_000;
const portfolioCompany = (index: number): StoredCompany => ({
	country: 'gb',
	companyId: String(50_000_000 + index),
	officialName: `Portfolio Holding ${index} Limited`,
	status: 'Active',
	registrationDate: '2001-02-03',
	registeredAddress: `${index} High Street, London`,
});

async function scenarioPortfolio(cluster: Cluster): Promise<void> {
	log(
		`--- scenario 5: a watch of ${PORTFOLIO_SIZE.toLocaleString('en')} companies, five runs over two workers`,
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
		const workflowId = await rest.createActiveWorkflow({
			name: 'Queue: portfolio watch',
			nodes: [
				webhook(path),
				splitRows,
				{
					...watchNode(companyFields(''), 440),
					credentials: { companyRegistryApi: { id: credential.id, name: credential.name } },
				},
			],
			connections: chain('Webhook', 'Rows', 'Watch for Changes'),
			settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all' },
		});
		// Production webhooks register a moment after publishing: probe with an empty list (a run that
		// watches nothing), then let the probe runs finish before the measured ones.
		await waitFor(
			'the portfolio webhook',
			async () =>
				(
					await fetch(`${cluster.main!.base}/webhook/${path}`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ rows: [] }),
					})
				).status !== 404,
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
				`FIGURES scenario 5 run ${runNumber}: execution ${execution.id} on ${cluster.ranOn.get(execution.id)?.join(',') ?? '?'}, ` +
					`${execution.status}; webhook to finished ${(execution.stoppedAt - postedAt).toFixed(1)} s, Watch for Changes ${nodeSeconds.toFixed(1)} s; ` +
					`lookups ${sandbox.counters.lookups}; events [${events.join(', ')}]; failed checks ${failed.length}`,
			);
			check(
				execution.status === 'success' &&
					failed.length === 0 &&
					JSON.stringify(events) === JSON.stringify([...step.expected].sort()),
				`scenario 5 run ${runNumber}: exactly the expected events [${step.expected.join(', ')}] (got [${events.join(', ')}], ${failed.length} failed checks, ${execution.status})`,
			);
		}
		const workers = new Set(
			[...cluster.ranOn.values()].flat().filter((worker) => worker.startsWith('worker')),
		);
		const memory = await staticDataOf(cluster.pg, workflowId);
		log(
			`FIGURES scenario 5: ${PORTFOLIO_SIZE} companies, ${plan.length} runs, ${expectedTotal} changes, ` +
				`${[...reported.values()].reduce((sum, count) => sum + count, 0)} events; static data ${(memory.length / 1024).toFixed(0)} KB; workers used ${[...workers].join(', ')}`,
		);
		check(
			reported.size === expectedTotal && [...reported.values()].every((count) => count === 1),
			`scenario 5: each of ${expectedTotal} changes reported exactly once over ${plan.length} runs`,
		);
		await rest.call('POST', `/workflows/${workflowId}/deactivate`, {});
	} finally {
		await sandbox.close();
	}
}

// ---- main ------------------------------------------------------------------------------------------

async function main(): Promise<void> {
	const total = performance.now();
	await checklist.timed(isN8nPrepared() ? 'prepare n8n (warm)' : 'prepare n8n (cold)', () =>
		prepareN8n(log),
	);
	ensureRedisServer(log);
	const base = mkdtempSync(join(tmpdir(), 'n8n-queue-'));
	const logDir = join(base, 'logs');
	mkdirSync(logDir);
	log(`data and logs under ${base}`);
	const folders = {
		main: join(base, 'main'),
		worker1: join(base, 'worker1'),
		worker2: join(base, 'worker2'),
	};
	await checklist.timed('pack, install on main and both workers', () => {
		const tarball = packPackage();
		for (const folder of Object.values(folders)) installTarball(tarball, folder);
	});
	const [pg, redis] = await checklist.timed('postgres and redis until ready', async () =>
		Promise.all([
			startPostgres(processes, join(base, 'pg'), logDir),
			startRedis(processes, join(base, 'redis'), logDir),
		]),
	);
	const sandbox = await startSandbox({
		port: 0,
		rateLimit: RATE,
		faults: { latencyMs: 45, jitterMs: 10 },
	});
	const cluster: Cluster = {
		pg,
		folders,
		logDir,
		workers: new Map(),
		ranOn: new Map(),
		starts: 0,
		env: {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(pg.port),
			DB_POSTGRESDB_DATABASE: 'n8n',
			DB_POSTGRESDB_USER: 'postgres',
			DB_POSTGRESDB_PASSWORD: '',
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			// One key everywhere: the credential is encrypted by the main's import and decrypted by the workers.
			N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
			// n8n marks executions of dead workers crashed on this check; its default is every 180 minutes.
			N8N_EXECUTIONS_QUEUE_RECOVERY_INTERVAL: '1',
		},
	};
	try {
		await checklist.timed('import credential and workflows', async () => {
			await importCredential(
				folders.main,
				{
					id: CREDENTIAL_ID,
					name: 'Company Registry sandbox',
					type: 'companyRegistryApi',
					data: {
						clientId: DEMO_CLIENT.clientId,
						clientSecret: DEMO_CLIENT.clientSecret,
						baseUrl: sandbox.baseUrl,
						authUrl: sandbox.authUrl,
					},
				},
				cluster.env,
			);
			await importWorkflows(folders.main, WORKFLOWS, cluster.env);
		});
		await startCluster(cluster);
		// TEST_QUEUE_ONLY=watch runs scenario 5 alone (about 10 minutes less).
		const only = process.env.TEST_QUEUE_ONLY;
		if (!only || only === 'watch')
			await checklist.timed('scenario 5', () => scenarioPortfolio(cluster));
		if (!only) {
			await checklist.timed('scenario 1', () => scenarioOneSheet(cluster, sandbox));
			await checklist.timed('scenario 2', () => scenarioThreeSheets(cluster, sandbox));
			await checklist.timed('overlap measurement', () => measureOverlap(cluster, sandbox));
			await checklist.timed('scenario 4', () => scenarioKilledWorker(cluster, sandbox));
			await checklist.timed('scenario 3', async () => {
				// The watchers go live only now, so their polls and schedules stay out of the figures above.
				await stopN8nProcesses(cluster);
				await n8nCli(folders.main, ['publish:workflow', '--id=queuePoll'], cluster.env);
				await n8nCli(folders.main, ['publish:workflow', '--id=queueSchedule'], cluster.env);
				await startCluster(cluster);
				await scenarioWatchers(cluster, sandbox);
			});
		}
	} finally {
		await stopN8nProcesses(cluster).catch(() => undefined);
		await stopChild(redis.process, 'SIGTERM', 10);
		// SIGINT: Postgres's fast shutdown, which also ends its own background processes.
		await stopChild(pg.process, 'SIGINT', 30);
		await processes.stopAll();
		await sandbox.close();
	}
	checklist.timings.total = (performance.now() - total) / 1000;
	log(`n8n ${N8N_VERSION} in queue mode, timings (s): ${checklist.summary()}`);
	if (checklist.failures > 0) {
		log(`${checklist.failures} check(s) failed; logs kept in ${logDir}`);
		rmSync(join(base, 'pg'), { recursive: true, force: true });
		rmSync(join(base, 'redis'), { recursive: true, force: true });
		process.exitCode = 1;
	} else {
		log('all checks passed');
		if (process.env.KEEP_N8N_USER_FOLDER !== 'true') rmSync(base, { recursive: true, force: true });
	}
}

main().catch((error: unknown) => {
	console.error(error);
	processes.killAll();
	process.exit(1);
});

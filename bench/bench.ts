// npm run bench [-- --rows 2000] [--scenario NAME] [--quick]
// The node on big sheets against the sandbox with 50 ms latency (with jitter), under each limiter family a
// registry may use (issue 10): a matrix of scenarios, each run two ways: (1) this node at its defaults
// inside n8n's engine; (2) the floor: the same unique lookups from a raw undici keep-alive client paced
// exactly at the family's admission schedule. The first scenario also runs (3) a naive node that awaits
// n8n's request helper row by row. Prints a table, one `bench: scenario=...` line per scenario, and as its
// last line the figures of the first scenario. --rows sizes the five family scenarios; --scenario runs one;
// --quick runs only the node and the floor of the first (or the chosen) scenario.
import { fork } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { Pool } from 'undici';

import { makeSheet, uniqueValid, type SheetRow } from '../sandbox/sheets';
import {
	DEMO_CLIENT,
	startSandbox,
	type RateLimitSettings,
	type SandboxCounters,
	type SandboxOptions,
} from '../sandbox/server';
import { REGISTRY_NODE, engineFor, lookupWorkflow } from '../harness/fixtures';
import { PACKAGE } from '../harness/nodeTypes';
import { matrixScenarios } from './sim/catalogue';
import { runScenario } from './sim/simulate';
import { watchBench } from './watch';

const { values } = parseArgs({
	options: {
		rows: { type: 'string', default: '2000' },
		// While tuning: only the first scenario's node and floor runs.
		quick: { type: 'boolean', default: false },
		scenario: { type: 'string' },
	},
});

interface Figures {
	name: string;
	/** Every lookup request the sandbox counted. */
	requests: number;
	seconds: number;
	rows: number;
	rateLimited: number;
	retries: number;
	tokenRequests: number;
	lost: number;
	failed: number;
	peakRssMb: number;
}

/** Samples resident memory while a scenario runs. */
function rssSampler() {
	let peak = process.memoryUsage.rss();
	const timer = setInterval(() => {
		peak = Math.max(peak, process.memoryUsage.rss());
	}, 20);
	return () => {
		clearInterval(timer);
		return Math.round(Math.max(peak, process.memoryUsage.rss()) / 1048576);
	};
}

/** The part of a sandbox the benchmark uses, living in a child process. */
interface RemoteSandbox {
	baseUrl: string;
	authUrl: string;
	audience: string;
	counters(): Promise<SandboxCounters>;
}

/** One cell of the matrix: a limiter family and its header habits, and the sheets run against it at once. */
interface Scenario {
	name: string;
	title: string;
	limits: RateLimitSettings;
	rateLimitHeaders: SandboxOptions['rateLimitHeaders'];
	retryAfterFormat: SandboxOptions['retryAfterFormat'];
	/** One sheet per execution; several run at once on one n8n instance (one credential). */
	sheets: SheetRow[][];
}

const windowLimit = (limits: RateLimitSettings) => limits.limit ?? limits.ratePerSecond;
const windowMs = (limits: RateLimitSettings) => limits.windowMs ?? 1000;

const wait = async (ms: number) => {
	if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
};

/** Paces a client that knows the limiter exactly: `acquire` resolves when the next request may leave. */
interface Pacer {
	/** Resolves with the request's slot when it may leave. */
	acquire(): Promise<number>;
	/** The request of that slot met a 429 after all: it was not admitted. */
	refused(slot: number): void;
}

/**
 * The token bucket's burst at once and then one per 1/rate s; a fixed window's limit in each window (runs
 * start at a window's start, see alignedStart); for a sliding window, a log of the client's own admitted
 * requests mirrors the server's, with a small margin for the time a request takes to arrive. A request
 * that meets a 429 anyway (timers are not exact) takes the next free slot.
 */
function pacer(limits: RateLimitSettings, t0: number): Pacer {
	if (limits.family === 'sliding-window') {
		const marginMs = 2;
		const log: number[] = [];
		return {
			async acquire() {
				for (;;) {
					const now = performance.now();
					while (log.length > 0 && log[0] <= now - windowMs(limits) - marginMs) log.shift();
					if (log.length < windowLimit(limits)) {
						log.push(now);
						return now;
					}
					await wait(log[0] + windowMs(limits) + marginMs - now + 0.5);
				}
			},
			refused(slot) {
				const at = log.indexOf(slot);
				if (at >= 0) log.splice(at, 1);
			},
		};
	}
	let slot = 0;
	const schedule =
		limits.family === 'fixed-window'
			? (index: number) => Math.floor(index / windowLimit(limits)) * windowMs(limits)
			: (index: number) =>
					index < limits.burst ? 0 : ((index - limits.burst + 1) * 1000) / limits.ratePerSecond;
	return {
		async acquire() {
			const index = slot++;
			await wait(t0 + schedule(index) - performance.now());
			return index;
		},
		refused: () => undefined,
	};
}

/**
 * Fixed windows are aligned to the clock, so where a run starts within one changes its time by up to a
 * window; both the node and the floor start just after a window begins, so they are compared fairly.
 */
async function alignedStart(limits: RateLimitSettings): Promise<void> {
	if (limits.family !== 'fixed-window') return;
	const length = windowMs(limits);
	await new Promise((resolve) => setTimeout(resolve, length - (Date.now() % length) + 5));
}

async function withSandbox<T>(
	scenario: Scenario,
	run: (sandbox: RemoteSandbox) => Promise<T>,
): Promise<T> {
	const child = fork(resolve('bench/sandboxProcess.ts'), {
		execArgv: ['--import', 'tsx'],
		stdio: 'inherit',
	});
	const next = async <M>(type: string) =>
		await new Promise<M>((done) => {
			const listener = (message: { type: string }) => {
				if (message.type !== type) return;
				child.off('message', listener);
				done(message as M);
			};
			child.on('message', listener);
		});
	const ready = next<{ baseUrl: string; authUrl: string; audience: string }>('ready');
	const options: SandboxOptions = {
		port: 0,
		rateLimit: scenario.limits,
		rateLimitHeaders: scenario.rateLimitHeaders,
		retryAfterFormat: scenario.retryAfterFormat,
		faults: { latencyMs: 45, jitterMs: 10 },
	};
	child.send(options);
	const { baseUrl, authUrl, audience } = await ready;
	const sandbox: RemoteSandbox = {
		baseUrl,
		authUrl,
		audience,
		counters: async () => {
			const reply = next<{ counters: SandboxCounters }>('counters');
			child.send({ type: 'counters' });
			return (await reply).counters;
		},
	};
	try {
		return await run(sandbox);
	} finally {
		const exited = new Promise((done) => child.once('exit', done));
		child.send({ type: 'close' });
		await exited;
	}
}

let warm = false;

/**
 * A running n8n has loaded its engine long before a sheet arrives: one small execution against a
 * throwaway sandbox loads the modules, so the timed run measures the node, not module loading. The
 * timed run then starts on a fresh Engine, whose rate controllers know nothing.
 */
async function warmUp(): Promise<void> {
	if (warm) return;
	warm = true;
	const sandbox = await startSandbox({ port: 0 });
	try {
		await engineFor(sandbox).execute(lookupWorkflow(), { rows: makeSheet(5) });
	} finally {
		await sandbox.close();
	}
}

async function nodeScenario(scenario: Scenario): Promise<Figures> {
	await warmUp();
	return await withSandbox(scenario, async (sandbox) => {
		// One n8n instance: concurrent executions share its credential, as in one n8n process.
		const engine = engineFor(sandbox);
		const rows = scenario.sheets.reduce((sum, sheet) => sum + sheet.length, 0);
		await alignedStart(scenario.limits);
		const peak = rssSampler();
		const started = performance.now();
		const results = await Promise.all(
			scenario.sheets.map(
				async (sheet) =>
					await engine.execute(lookupWorkflow({ onError: 'continueErrorOutput' }), { rows: sheet }),
			),
		);
		const seconds = (performance.now() - started) / 1000;
		let out = 0;
		let failed = 0;
		for (const result of results) {
			const [registered = [], notRegistered = [], errors = []] = result.outputOf(REGISTRY_NODE);
			out += registered.length + notRegistered.length + errors.length;
			failed += errors.length;
		}
		const unique = scenario.sheets.reduce((sum, sheet) => sum + uniqueValid(sheet).length, 0);
		const counters = await sandbox.counters();
		return {
			name:
				scenario.sheets.length > 1
					? `node (${scenario.sheets.length} executions at once)`
					: 'node (defaults, n8n engine)',
			requests: counters.lookups,
			seconds,
			rows,
			rateLimited: counters.lookupsByStatus[429] ?? 0,
			retries: counters.lookups - unique,
			tokenRequests: counters.tokenRequests,
			lost: rows - out,
			failed,
			peakRssMb: peak(),
		};
	});
}

async function floorScenario(scenario: Scenario): Promise<Figures> {
	return await withSandbox(scenario, async (sandbox) => {
		const lookups = scenario.sheets.flatMap((sheet) => uniqueValid(sheet));
		const { limits } = scenario;
		const burst =
			limits.family === 'fixed-window' || limits.family === 'sliding-window'
				? windowLimit(limits)
				: limits.burst;
		// Enough keep-alive connections for the whole burst to leave at once.
		const pool = new Pool(sandbox.baseUrl, { connections: burst + 28 });
		await alignedStart(limits);
		const peak = rssSampler();
		const started = performance.now();
		const tokenResponse = await pool.request({
			path: '/oauth/token',
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				client_id: DEMO_CLIENT.clientId,
				client_secret: DEMO_CLIENT.clientSecret,
				audience: sandbox.audience,
				grant_type: 'client_credentials',
			}),
		});
		const { access_token: token } = (await tokenResponse.body.json()) as { access_token: string };
		// Exactly the server's limiter (see pacer).
		const pace = pacer(limits, performance.now());
		let failed = 0;
		let retries = 0;
		await Promise.all(
			lookups.map(async (row) => {
				const query = row.state ? `?stateCode=${row.state}` : '';
				for (;;) {
					const slot = await pace.acquire();
					const response = await pool.request({
						path: `/v1/company/${encodeURIComponent(String(row.country))}/${encodeURIComponent(String(row.companyId))}${query}`,
						method: 'GET',
						headers: { authorization: `Bearer ${token}` },
					});
					await response.body.text();
					if (response.statusCode === 429) {
						retries++;
						pace.refused(slot);
						continue;
					}
					if (response.statusCode !== 200) failed++;
					break;
				}
			}),
		);
		const seconds = (performance.now() - started) / 1000;
		await pool.close();
		const counters = await sandbox.counters();
		return {
			name: 'floor (undici, paced at the limit)',
			requests: counters.lookups,
			seconds,
			rows: lookups.length,
			rateLimited: counters.lookupsByStatus[429] ?? 0,
			retries,
			tokenRequests: counters.tokenRequests,
			lost: 0,
			failed,
			peakRssMb: peak(),
		};
	});
}

/** What a simple node does: each row in turn through n8n's request helper, errors kept per row. */
class NaiveLookup implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Naive Lookup',
		name: 'naiveLookup',
		group: ['transform'],
		version: 1,
		description: 'Row by row',
		defaults: { name: 'Naive Lookup' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'companyRegistryApi', required: true }],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { baseUrl } = await this.getCredentials('companyRegistryApi');
		const out: INodeExecutionData[] = [];
		for (const [index, item] of this.getInputData().entries()) {
			const { country, companyId, state } = item.json;
			try {
				const json = await this.helpers.httpRequestWithAuthentication.call(
					this,
					'companyRegistryApi',
					{
						url: `${baseUrl}/v1/company/${encodeURIComponent(String(country).toLowerCase())}/${encodeURIComponent(String(companyId))}`,
						qs: state ? { stateCode: state } : {},
						json: true,
					},
				);
				out.push({ json, pairedItem: { item: index } });
			} catch (error) {
				out.push({ json: { error: (error as Error).message }, pairedItem: { item: index } });
			}
		}
		return [out];
	}
}

async function naiveScenario(scenario: Scenario): Promise<Figures> {
	const [sheet] = scenario.sheets;
	return await withSandbox(scenario, async (sandbox) => {
		const engine = engineFor(sandbox);
		const naiveType = `${PACKAGE}.naiveLookup`;
		(engine.nodeTypes as unknown as { types: Map<string, INodeType> }).types.set(
			naiveType,
			new NaiveLookup(),
		);
		const workflow = lookupWorkflow();
		const node = workflow.nodes.find((candidate) => candidate.name === REGISTRY_NODE)!;
		node.type = naiveType;
		node.parameters = {};
		const peak = rssSampler();
		const started = performance.now();
		const result = await engine.execute(workflow, { rows: sheet });
		const seconds = (performance.now() - started) / 1000;
		const [items = []] = result.outputOf(REGISTRY_NODE);
		const counters = await sandbox.counters();
		return {
			name: 'naive (row by row, n8n helper)',
			requests: counters.lookups,
			seconds,
			rows: sheet.length,
			rateLimited: counters.lookupsByStatus[429] ?? 0,
			retries: 0,
			tokenRequests: counters.tokenRequests,
			lost: sheet.length - items.length,
			failed: items.filter((item) => item.json.error !== undefined).length,
			peakRssMb: peak(),
		};
	});
}

function table(title: string, rows: Figures[]): void {
	console.log(`\n${title}`);
	console.log(
		'client                                wall s   rows/s  requests   429s  retries  tokens  lost  failed  peak RSS MB',
	);
	for (const row of rows) {
		console.log(
			`${row.name.padEnd(36)} ${row.seconds.toFixed(2).padStart(7)} ${(row.rows / row.seconds).toFixed(1).padStart(8)} ${String(row.requests).padStart(9)} ${String(row.rateLimited).padStart(6)} ${String(row.retries).padStart(8)} ${String(row.tokenRequests).padStart(7)} ${String(row.lost).padStart(5)} ${String(row.failed).padStart(7)} ${String(row.peakRssMb).padStart(12)}`,
		);
	}
}

/** The matrix of issue 10, in the order it runs; the first is the scenario of the final line. */
function scenarios(rows: number): Scenario[] {
	const perSecond = { ratePerSecond: 100, burst: 100 };
	const window = { ratePerSecond: 100, burst: 100, limit: 100, windowMs: 1000 };
	const sheet = makeSheet(rows);
	const family = (
		name: string,
		title: string,
		rest: Omit<Scenario, 'name' | 'title' | 'sheets'>,
	): Scenario => ({
		name,
		title: `${title}; ${rows} rows, 50 ms latency`,
		sheets: [sheet],
		...rest,
	});
	return [
		family('token-bucket', '1. token bucket 100/s, bursts of 100, X-RateLimit-* on every answer', {
			limits: perSecond,
			rateLimitHeaders: 'always',
			retryAfterFormat: 'seconds',
		}),
		family('token-bucket-429-only', '2. token bucket 100/s, bursts of 100, headers only on 429s', {
			limits: perSecond,
			rateLimitHeaders: '429-only',
			retryAfterFormat: 'seconds',
		}),
		family(
			'token-bucket-no-headers',
			'3. token bucket 100/s, bursts of 100, bare 429s (no headers at all)',
			{
				limits: perSecond,
				rateLimitHeaders: 'none',
				retryAfterFormat: 'none',
			},
		),
		family(
			'fixed-window',
			'4. fixed window 100 per 1 s, X-RateLimit-* on every answer, no Retry-After',
			{
				limits: { ...window, family: 'fixed-window' },
				rateLimitHeaders: 'always',
				retryAfterFormat: 'none',
			},
		),
		family('sliding-window', '5. sliding window (log) 100 per 1 s, headers only on 429s', {
			limits: { ...window, family: 'sliding-window' },
			rateLimitHeaders: '429-only',
			retryAfterFormat: 'seconds',
		}),
		{
			name: 'fixed-window-120-per-10s',
			title:
				'fixed window 120 per 10 s (scaled like Companies House), X-RateLimit-* on every answer, no Retry-After; 600 rows',
			limits: {
				ratePerSecond: 12,
				burst: 120,
				family: 'fixed-window',
				limit: 120,
				windowMs: 10_000,
			},
			rateLimitHeaders: 'always',
			retryAfterFormat: 'none',
			sheets: [makeSheet(600)],
		},
		{
			name: 'token-bucket-20-per-5s',
			title: 'token bucket 20 per 5 s (4/s, bursts of 20), X-RateLimit-* on every answer; 300 rows',
			limits: { ratePerSecond: 4, burst: 20 },
			rateLimitHeaders: 'always',
			retryAfterFormat: 'seconds',
			sheets: [makeSheet(300)],
		},
		{
			name: 'three-executions',
			title:
				'three executions of 1,000 rows started together on one n8n instance, one token bucket 100/s, bursts of 100',
			limits: perSecond,
			rateLimitHeaders: 'always',
			retryAfterFormat: 'seconds',
			sheets: [makeSheet(1000), makeSheet(1000, 1_000_000), makeSheet(1000, 2_000_000)],
		},
	];
}

const invalidRows = (scenario: Scenario) =>
	scenario.sheets.reduce(
		(sum, sheet) => sum + sheet.filter((row) => row.country === 'Atlantis').length,
		0,
	);
const uniqueLookups = (scenario: Scenario) =>
	scenario.sheets.reduce((sum, sheet) => sum + uniqueValid(sheet).length, 0);

/**
 * The same scenario in bench:sim (bench/sim: the controller and batch runner on a virtual clock against
 * a simulated registry), over as many distinct lookups as the real sheets hold: its node/floor beside
 * the real one shows whether the simulation is honest (issue 20: within 0.03).
 */
async function simulatedVsFloor(scenario: Scenario): Promise<number | undefined> {
	const simulated = matrixScenarios(Number(values.rows)).find(({ name }) => name === scenario.name);
	if (simulated === undefined) return undefined;
	const rows = uniqueValid(scenario.sheets[0]).length;
	return (await runScenario({ ...simulated, rows }, 1)).vsFloor;
}

async function scenarioLine(scenario: Scenario, node: Figures, floor: Figures): Promise<string> {
	const real = node.seconds / floor.seconds;
	const sim = await simulatedVsFloor(scenario);
	const beside =
		sim === undefined
			? 'sim_vs_floor=n/a'
			: `sim_vs_floor=${sim.toFixed(3)} sim_minus_real=${(sim - real).toFixed(3)}`;
	return `bench: scenario=${scenario.name} node_vs_floor=${real.toFixed(3)} ${beside} rate_limited=${node.rateLimited} lost=${node.lost} failed=${node.failed} token_requests=${node.tokenRequests}`;
}

async function main() {
	if (values.scenario === 'watch') return await watchBench(values.quick);
	const matrix = scenarios(Number(values.rows));
	const chosen =
		values.scenario === undefined
			? matrix
			: matrix.filter((scenario) => scenario.name === values.scenario);
	if (chosen.length === 0)
		throw new Error(`--scenario is one of ${matrix.map((scenario) => scenario.name).join(', ')}`);

	if (values.quick) {
		const [scenario] = chosen;
		const node = await nodeScenario(scenario);
		const floor = await floorScenario(scenario);
		table(`${scenario.title} (quick)`, [node, floor]);
		console.log(await scenarioLine(scenario, node, floor));
		console.log(
			`bench(quick): node_vs_floor=${(node.seconds / floor.seconds).toFixed(3)} lost=${node.lost} failed=${node.failed} token_requests=${node.tokenRequests} rss_mb=${node.peakRssMb}`,
		);
		return;
	}

	const lines: string[] = [];
	let first: { node: Figures; floor: Figures; naive: Figures; invalid: number } | undefined;
	for (const scenario of chosen) {
		const node = await nodeScenario(scenario);
		const floor = await floorScenario(scenario);
		// The naive node only where the final line needs it: row by row it takes minutes.
		const naive = scenario === matrix[0] ? await naiveScenario(scenario) : undefined;
		table(
			`${scenario.name}: ${scenario.title}; ${uniqueLookups(scenario)} unique valid lookups, ${invalidRows(scenario)} invalid rows`,
			naive ? [node, floor, naive] : [node, floor],
		);
		const share = node.requests > 0 ? (100 * node.rateLimited) / node.requests : 0;
		console.log(
			`429s: ${share.toFixed(2)}% of the node's ${node.requests} requests; failed rows ${node.failed} of which invalid ${invalidRows(scenario)}`,
		);
		lines.push(await scenarioLine(scenario, node, floor));
		if (naive) first = { node, floor, naive, invalid: invalidRows(scenario) };
	}

	console.log(`\nmatrix (${new Date().toISOString()})`);
	for (const line of lines) console.log(line);
	if (first) {
		const { node, floor, naive, invalid } = first;
		if (node.failed !== invalid)
			console.log(`(failed rows ${node.failed} differ from the ${invalid} invalid rows)`);
		console.log(
			`bench: node_vs_floor=${(node.seconds / floor.seconds).toFixed(3)} node_vs_naive=${(node.seconds / naive.seconds).toFixed(3)} lost=${node.lost} failed=${node.failed} token_requests=${node.tokenRequests} rss_mb=${node.peakRssMb}`,
		);
	}
}

void main();

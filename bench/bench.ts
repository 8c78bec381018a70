// npm run bench [-- --rows 2000]
// The node on a big sheet, against the sandbox with 50 ms latency (with jitter) and a rate limit, three
// ways in one run: (1) this node at its defaults inside n8n's engine; (2) the floor: the same unique
// lookups from a raw undici keep-alive client paced exactly at the rate limit; (3) a naive node that
// awaits n8n's request helper row by row. Then the same with 20 requests per 5 seconds over 300 rows.
// Prints a table, and as its last line the figures of the first scenario.
import { fork } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { Pool } from 'undici';

import { loadCompanies } from '../sandbox/registry';
import { DEMO_CLIENT, type SandboxCounters } from '../sandbox/server';
import { REGISTRY_NODE, engineFor, lookupWorkflow } from '../test/harness/fixtures';
import { PACKAGE } from '../test/harness/nodeTypes';

const { values } = parseArgs({
	options: {
		rows: { type: 'string', default: '2000' },
		// While tuning: only the first scenario's node and floor runs.
		quick: { type: 'boolean', default: false },
	},
});

interface Figures {
	name: string;
	seconds: number;
	rows: number;
	rateLimited: number;
	retries: number;
	tokenRequests: number;
	lost: number;
	failed: number;
	peakRssMb: number;
}

/** A sheet: 10% of its rows repeat an earlier row, 2% have an invalid country, the rest are distinct
 * companies, one in 32 of them registered in the sandbox. */
function makeSheet(rows: number): IDataObject[] {
	const companies = loadCompanies();
	const sheet: IDataObject[] = [];
	for (let index = 0; index < rows; index++) {
		if (index % 50 === 49) {
			sheet.push({ country: 'Atlantis', companyId: `X${index}` });
		} else if (index % 10 === 9) {
			sheet.push({ ...sheet[Math.floor(index / 2)] });
		} else if (index % 32 === 0 && index / 32 < companies.length) {
			const company = companies[index / 32];
			sheet.push({ country: company.country, companyId: company.companyId, state: company.state ?? '' });
		} else {
			sheet.push({ country: 'gb', companyId: String(20_000_000 + index) });
		}
	}
	return sheet;
}

const uniqueValid = (sheet: IDataObject[]) =>
	[...new Map(sheet.filter((row) => row.country !== 'Atlantis').map((row) => [JSON.stringify(row), row])).values()];

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

async function withSandbox<T>(rate: { ratePerSecond: number; burst: number }, run: (sandbox: RemoteSandbox) => Promise<T>): Promise<T> {
	const child = fork(resolve('bench/sandboxProcess.ts'), { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
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
	child.send({ port: 0, rateLimit: rate, faults: { latencyMs: 45, jitterMs: 10 } });
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

async function nodeScenario(sheet: IDataObject[], rate: { ratePerSecond: number; burst: number }): Promise<Figures> {
	return await withSandbox(rate, async (sandbox) => {
		const engine = engineFor(sandbox);
		const peak = rssSampler();
		const started = performance.now();
		const result = await engine.execute(lookupWorkflow({ onError: 'continueErrorOutput' }), { rows: sheet });
		const seconds = (performance.now() - started) / 1000;
		const [registered = [], notRegistered = [], errors = []] = result.outputOf(REGISTRY_NODE);
		const out = registered.length + notRegistered.length + errors.length;
		const unique = uniqueValid(sheet).length;
		const counters = await sandbox.counters();
		return {
			name: 'node (defaults, n8n engine)',
			seconds,
			rows: sheet.length,
			rateLimited: counters.lookupsByStatus[429] ?? 0,
			retries: counters.lookups - unique,
			tokenRequests: counters.tokenRequests,
			lost: sheet.length - out,
			failed: errors.length,
			peakRssMb: peak(),
		};
	});
}

async function floorScenario(sheet: IDataObject[], rate: { ratePerSecond: number; burst: number }): Promise<Figures> {
	return await withSandbox(rate, async (sandbox) => {
		const lookups = uniqueValid(sheet);
		// Enough keep-alive connections for the whole burst to leave at once.
		const pool = new Pool(sandbox.baseUrl, { connections: rate.burst + 28 });
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
		// Exactly the server's token bucket: the burst at once, then one request per 1/rate seconds. A
		// request that still meets a 429 (timers are not exact) takes the next free slot.
		const t0 = performance.now();
		let slot = 0;
		const nextSlotAt = () => {
			const index = slot++;
			return t0 + (index < rate.burst ? 0 : ((index - rate.burst + 1) * 1000) / rate.ratePerSecond);
		};
		let failed = 0;
		let retries = 0;
		await Promise.all(
			lookups.map(async (row) => {
				const query = row.state ? `?stateCode=${row.state}` : '';
				for (;;) {
					const delay = nextSlotAt() - performance.now();
					if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
					const response = await pool.request({
						path: `/v1/company/${encodeURIComponent(String(row.country))}/${encodeURIComponent(String(row.companyId))}${query}`,
						method: 'GET',
						headers: { authorization: `Bearer ${token}` },
					});
					await response.body.text();
					if (response.statusCode === 429) {
						retries++;
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
				const json = await this.helpers.httpRequestWithAuthentication.call(this, 'companyRegistryApi', {
					url: `${baseUrl}/v1/company/${encodeURIComponent(String(country).toLowerCase())}/${encodeURIComponent(String(companyId))}`,
					qs: state ? { stateCode: state } : {},
					json: true,
				});
				out.push({ json, pairedItem: { item: index } });
			} catch (error) {
				out.push({ json: { error: (error as Error).message }, pairedItem: { item: index } });
			}
		}
		return [out];
	}
}

async function naiveScenario(sheet: IDataObject[], rate: { ratePerSecond: number; burst: number }): Promise<Figures> {
	return await withSandbox(rate, async (sandbox) => {
		const engine = engineFor(sandbox);
		const naiveType = `${PACKAGE}.naiveLookup`;
		(engine.nodeTypes as unknown as { types: Map<string, INodeType> }).types.set(naiveType, new NaiveLookup());
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
	console.log('scenario                              wall s   rows/s   429s  retries  tokens  lost  failed  peak RSS MB');
	for (const row of rows) {
		console.log(
			`${row.name.padEnd(36)} ${row.seconds.toFixed(2).padStart(7)} ${(row.rows / row.seconds).toFixed(1).padStart(8)} ${String(row.rateLimited).padStart(6)} ${String(row.retries).padStart(8)} ${String(row.tokenRequests).padStart(7)} ${String(row.lost).padStart(5)} ${String(row.failed).padStart(7)} ${String(row.peakRssMb).padStart(12)}`,
		);
	}
}

async function main() {
	const rows = Number(values.rows);
	const fast = { ratePerSecond: 100, burst: 100 };
	const sheet = makeSheet(rows);
	const invalid = sheet.filter((row) => row.country === 'Atlantis').length;
	const node = await nodeScenario(sheet, fast);
	const floor = await floorScenario(sheet, fast);
	if (values.quick) {
		table(`${rows} rows (quick)`, [node, floor]);
		console.log(`bench(quick): node_vs_floor=${(node.seconds / floor.seconds).toFixed(3)} lost=${node.lost} failed=${node.failed} token_requests=${node.tokenRequests} rss_mb=${node.peakRssMb}`);
		return;
	}
	const naive = await naiveScenario(sheet, fast);
	table(`${rows} rows, 100 requests/s with bursts of 100, 50 ms latency; ${uniqueValid(sheet).length} unique valid lookups, ${invalid} invalid rows`, [node, floor, naive]);

	const slow = { ratePerSecond: 4, burst: 20 };
	const smallSheet = makeSheet(300);
	const slowFigures = [await nodeScenario(smallSheet, slow), await floorScenario(smallSheet, slow), await naiveScenario(smallSheet, slow)];
	table(`300 rows, 20 requests per 5 s (4/s, bursts of 20), 50 ms latency; ${uniqueValid(smallSheet).length} unique valid lookups`, slowFigures);

	console.log(
		`\nbench: node_vs_floor=${(node.seconds / floor.seconds).toFixed(3)} node_vs_naive=${(node.seconds / naive.seconds).toFixed(3)} lost=${node.lost} failed=${node.failed} token_requests=${node.tokenRequests} rss_mb=${node.peakRssMb}`,
	);
	if (node.failed !== invalid) console.log(`(failed rows ${node.failed} differ from the ${invalid} invalid rows)`);
}

void main();

// npm run bench -- --scenario watch (issue 22): Watch for Changes over 1,000 / 10,000 / 100,000 registered
// companies. Per size a baseline run (the first: the store holds nothing), a run after 1% of the companies
// changed status, another such run (as every later run is), and one in which nothing changed; per run the node's own CPU time outside
// lookups, and events that are not one of the changes made; per size the process's peak RSS (the kernel's
// high-water mark) and what of it was there before the runs.
// 1. The memory: the change detector with n8n's processed-items store (the harness's copy of n8n 2.41.1's
//    code, and n8n's own where npm run test:n8n installed it) and the static data as notebook, given each
//    company's record as the sandbox answers it; own time = reading and writing the memory, the
//    comparison, and n8n serialising the static data it saves. At 100,000 also as a queue-mode worker
//    (no static data: the store alone).
// 2. End to end against the sandbox (rate limit off) in n8n's engine, for 1,000 and 10,000 companies: own
//    time from the sandbox's last lookup to the end of the run (the sandbox runs in this process; its
//    100,000 lookups take minutes on a shared machine, so that size runs only in part 1).
// The last line is part 1's 100,000 run (n8n's own store code where installed).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import {
	ObservableObject,
	type IDataDeduplicator,
	type IDataObject,
	type INodeParameters,
} from 'n8n-workflow';

import { ProcessedItemsStore as HarnessStore } from '../harness/processedItems';
import type { CompanyRecord } from '../nodes/shared/model/companyRecord';
import { detectChanges } from '../nodes/shared/watch/detector';
import { StaticDataMemory, type WatchMemory } from '../nodes/shared/watch/memory';
import { ProcessedItemsMemory } from '../nodes/shared/watch/processedItemsMemory';
import { StoreTurn } from '../nodes/shared/watch/storeTurns';
import type { ProcessedItemsStore } from '../nodes/shared/watch/storeRow';
import type { StoredCompany } from '../sandbox/registry';
import { n8nDir } from '../test/e2e/lib/realN8n';

const SIZES = [1_000, 10_000, 100_000];
const ENGINE_SIZES = [1_000, 10_000];

function companies(count: number): StoredCompany[] {
	return Array.from({ length: count }, (_, index) => ({
		country: 'gb',
		companyId: String(40_000_000 + index),
		officialName: `Example Trading Company ${index} Limited`,
		status: 'Active',
		registrationDate: '2015-10-28',
		registeredAddress: `${index} High Street, Leeds, LS1 ${index % 9}AB`,
	}));
}

/**
 * Part 2's tools, loaded only there: n8n's engine harness and the sandbox hold some 45 MB (RSS) that the
 * memory runs' processes, whose peak is the figure, never use (a real n8n's own modules are n8n's, not a run's).
 */
async function engineTools() {
	const [{ REGISTRY_NODE, engineFor }, { loadWorkflow }, { startSandbox }] = await Promise.all([
		import('../harness/fixtures'),
		import('../harness/engine'),
		import('../sandbox/server'),
	]);
	return { REGISTRY_NODE, engineFor, loadWorkflow, startSandbox };
}

function watchWorkflow({
	loadWorkflow,
	REGISTRY_NODE,
}: Pick<Awaited<ReturnType<typeof engineTools>>, 'loadWorkflow' | 'REGISTRY_NODE'>) {
	const workflow = loadWorkflow('test/workflows/watch-companies.json');
	const node = workflow.nodes.find((candidate) => candidate.name === REGISTRY_NODE)!;
	node.parameters = { ...node.parameters, options: { maxConcurrency: 100 } } as INodeParameters;
	return workflow;
}

let peakRss = 0;
const sampleRss = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));

interface RunFigures {
	ownCpuS: number;
	/** The memory run by run, per phase: recall (read), the comparison, remember (write); each with n8n's store share. */
	phases?: Phases;
	events: number;
	falseEvents: number;
	missed: number;
	/** Of ownCpuS, in n8n's store code. */
	storeCpuS?: number;
	/** Of ownCpuS, n8n reading and writing the static data (JSON). */
	staticCpuS?: number;
}

/** The record the sandbox answers for a stored company. */
const recordOf = (company: StoredCompany): CompanyRecord =>
	({
		isRegistered: true,
		officialName: company.officialName,
		status: company.status,
		registrationDate: company.registrationDate,
		registeredAddress: company.registeredAddress,
	}) as CompanyRecord;

interface Phases {
	readS: number;
	readStoreS: number;
	compareS: number;
	writeS: number;
	writeStoreS: number;
}

/** CPU seconds of a call, and of n8n's store code within it. */
async function phase<T>(call: () => Promise<T>): Promise<[T, number, number]> {
	const [started, storeBefore] = [process.cpuUsage(), storeCpuUs];
	const result = await call();
	const used = process.cpuUsage(started);
	return [result, (used.user + used.system) / 1e6, (storeCpuUs - storeBefore) / 1e6];
}

/** The memory, its calls timed per phase (what the detector spends between them is the comparison). */
function phased(memory: WatchMemory, phases: Phases): WatchMemory {
	return {
		recall: async (current, unchecked) => {
			const [known, cpu, store] = await phase(async () => await memory.recall(current, unchecked));
			[phases.readS, phases.readStoreS] = [cpu, store];
			return known;
		},
		remember: async (current, unchecked) => {
			const [, cpu, store] = await phase(async () => await memory.remember(current, unchecked));
			[phases.writeS, phases.writeStoreS] = [cpu, store];
		},
	};
}

/** The key n8n gives a node's static data (`getWorkflowStaticData('node')`). */
const NODE_STATIC_DATA = 'node:Company Registry';

/** CPU time spent in n8n's store code (hashing, its Set, copying the row): part of own time, shown apart. */
let storeCpuUs = 0;
/** CPU time n8n spends loading and saving the static data (JSON, its proxies): part of own time, shown apart. */
let staticCpuUs = 0;
async function timedStatic<T>(call: () => T): Promise<T> {
	const started = process.cpuUsage();
	try {
		return call();
	} finally {
		const used = process.cpuUsage(started);
		staticCpuUs += used.user + used.system;
	}
}
async function timed<T>(call: () => Promise<T>): Promise<T> {
	const started = process.cpuUsage();
	try {
		return await call();
	} finally {
		const used = process.cpuUsage(started);
		storeCpuUs += used.user + used.system;
	}
}

/**
 * n8n 2.41.1's own DeduplicationHelper (with an empty table of its own), from the real n8n that npm run test:n8n prepares (absent: none),
 * with its database table stood in for by a map of JSON text: n8n keeps the row's value in a JSON column,
 * so each call reads and parses the whole row and writes it back serialised. The SQL itself is not timed.
 */
export function realN8nStore(): IDataDeduplicator | undefined {
	const n8n = join(n8nDir, 'node_modules', 'n8n');
	if (!existsSync(join(n8n, 'dist', 'deduplication', 'deduplication-helper.js'))) return undefined;
	const load = createRequire(join(n8n, 'package.json'));
	const { Container } = load('@n8n/di') as {
		Container: { set(token: unknown, value: unknown): void };
	};
	const { ProcessedDataRepository } = load('@n8n/db') as { ProcessedDataRepository: unknown };
	const { DeduplicationHelper } = load('./dist/deduplication/deduplication-helper.js') as {
		DeduplicationHelper: new () => IDataDeduplicator;
	};
	interface Where {
		workflowId: string;
		context: string;
	}
	const table = new Map<string, string>();
	const keyOf = (where: Where) => `${where.workflowId} ${where.context}`;
	Container.set(ProcessedDataRepository, {
		findOne: async ({ where }: { where: Where }) => {
			const text = table.get(keyOf(where));
			return text === undefined ? null : { ...where, value: JSON.parse(text) as unknown };
		},
		insert: async (row: Where & { value: unknown }) =>
			void table.set(keyOf(row), JSON.stringify(row.value)),
		update: async (where: Where, row: { value: unknown }) =>
			void table.set(keyOf(where), JSON.stringify(row.value)),
		delete: async (where: Where) => void table.delete(keyOf(where)),
	});
	return new DeduplicationHelper();
}

function helpersOf(store: IDataDeduplicator): ProcessedItemsStore {
	const context = { workflow: { id: 'watch-workflow' }, node: { id: 'watch-node' } } as never;
	return {
		checkProcessedAndRecord: async (items, scope, options) =>
			await timed(async () => await store.checkProcessedAndRecord(items, scope, context, options)),
		clearAllProcessedItems: async (scope, options) =>
			await timed(async () => await store.clearAllProcessedItems(scope, context, options)),
		getProcessedDataCount: async (scope, options) =>
			await timed(async () => await store.getProcessedDataCount(scope, context, options)),
		removeProcessed: async (items, scope, options) =>
			await timed(async () => await store.removeProcessed(items, scope, context, options)),
	};
}

/**
 * Own time, and how much of it is n8n's: its store code, its static data JSON; the rest is the package's.
 * By phase: read (checking the loaded static data, recall), compare, write (remember).
 */
const split = (run: RunFigures) => {
	const p = run.phases!;
	const f = (seconds: number) => seconds.toFixed(3);
	return `own_cpu_s=${f(run.ownCpuS)} (n8n store ${f(run.storeCpuS!)}, n8n static data ${f(run.staticCpuS!)}, package ${f(run.ownCpuS - run.storeCpuS! - run.staticCpuS!)}; by phase, beside the static data JSON: read ${f(p.readS)} [n8n store ${f(p.readStoreS)}], compare ${f(p.compareS)}, write ${f(p.writeS)} [n8n store ${f(p.writeStoreS)}])`;
};

const mb = (bytes: number) => Math.round(bytes / 1_048_576);

/**
 * `worker`: a queue-mode worker, which n8n starts without the static data (the store alone is the
 * memory, three entries a company); else a main process, where the static data is the notebook.
 */
export async function memoryRuns(
	size: number,
	store: IDataDeduplicator = new HarnessStore(),
	label = 'harness store',
	worker = false,
	/** Told when each of the four runs starts (bench/watchCalls.ts counts the store calls per run). */
	onRun?: (run: string) => void,
	/** The memory of each run (bench/watchCalls.ts: a worker's after a main process's); the shipped one by default. */
	memoryOf: (
		store: ProcessedItemsStore,
		main?: { staticData: Record<string, unknown>; notebook: StaticDataMemory },
	) => WatchMemory = (helpers, main) => new ProcessedItemsMemory(helpers, main?.notebook),
): Promise<string> {
	// What the process holds before any run: Node, tsx and the modules.
	const rssAtStart = process.memoryUsage().rss;
	const stored = companies(size);
	const checkedOf = () =>
		stored.map((company, itemIndex) => ({
			key: { countryCode: 'gb', companyId: company.companyId },
			record: recordOf(company),
			itemIndex,
		}));
	// The bench's scaffolding, which n8n holds too (its input items): the companies and their records.
	let checked = checkedOf();
	const rssOfScaffolding = process.memoryUsage().rss - rssAtStart;
	let saved = '{}';
	const runNames = ['first', 'after 1% changes', 'after 1% more', 'nothing changed'];
	const run = async (changed: Set<string>, day: number): Promise<RunFigures> => {
		onRun?.(runNames[day - 1]);
		storeCpuUs = 0;
		staticCpuUs = 0;
		const phases: Phases = { readS: 0, readStoreS: 0, compareS: 0, writeS: 0, writeStoreS: 0 };
		const started = process.cpuUsage();
		// n8n loads the static data it saved, the node reads and writes its memory, n8n saves the static data.
		// As n8n 2.41.1 hands it to the node: its Workflow wraps the static data it loaded, every object in
		// it, in an ObservableObject (a Proxy each, to notice changes), and the node gets its own part.
		const staticData = worker
			? {}
			: await timedStatic(
					() =>
						ObservableObject.create(
							{ [NODE_STATIC_DATA]: JSON.parse(saved) as IDataObject },
							undefined,
							{ ignoreEmptyOnFirstChild: true },
						)[NODE_STATIC_DATA] as Record<string, unknown>,
				);
		// Checking the loaded static data (the package's): part of reading the memory.
		const [notebook, loadS] = await phase(
			async () => new StaticDataMemory(staticData, { warn: () => undefined }, () => true),
		);
		// In its turn over the store, as Watch for Changes runs it (storeTurns.ts): its take and release are
		// two calls more on the whole row.
		const turn = new StoreTurn(helpersOf(store));
		const [found, detectS] = await phase(
			async () =>
				await turn.during(
					async () =>
						await detectChanges(
							phased(memoryOf(turn, worker ? undefined : { staticData, notebook }), phases),
							checked,
							[],
							{
								now: new Date(Date.UTC(2026, 10, day)),
								reportFirstSightings: false,
							},
						),
				),
		);
		phases.compareS = detectS - phases.readS - phases.writeS;
		phases.readS += loadS;
		if (!worker) saved = await timedStatic(() => JSON.stringify(staticData));
		const own = process.cpuUsage(started);
		const falseEvents = found.filter(
			(change) => change.change.event !== 'turnedInactive' || !changed.has(change.key.companyId),
		).length;
		return {
			ownCpuS: (own.user + own.system) / 1e6,
			storeCpuS: storeCpuUs / 1e6,
			staticCpuS: staticCpuUs / 1e6,
			phases,
			events: found.length,
			falseEvents,
			missed: changed.size - (found.length - falseEvents),
		};
	};
	/** 1% of the companies, from `first` on, turn Inactive. */
	const change = (first: number) => {
		const changed = new Set<string>();
		for (let index = first; index < size; index += 100) {
			stored[index].status = 'Inactive';
			changed.add(stored[index].companyId);
		}
		checked = checkedOf();
		return changed;
	};
	const baseline = await run(new Set(), 1);
	const changed = change(0);
	const second = await run(changed, 2);
	// A run like every later one: the store's row and the static data as the last run left them.
	const changedAgain = change(50);
	const third = await run(changedAgain, 3);
	// A run in which nothing changed (most runs of a watch): it asks and writes what the row needs, no more.
	const quiet = await run(new Set(), 4);
	// The process's true peak (the kernel's high-water mark), not a sample.
	const peak = process.resourceUsage().maxRSS * 1024;
	const runs = [baseline, second, third, quiet];
	const entries = await store.getProcessedDataCount(
		'node',
		{ workflow: { id: 'watch-workflow' }, node: { id: 'watch-node' } } as never,
		{ mode: 'entries' },
	);
	console.log(
		`memory (${label}${worker ? ', queue-mode worker: no static data' : ''}) ${size} companies: baseline ${split(baseline)} events=${baseline.events}; after ${changed.size} changes ${split(second)} events=${second.events} false_events=${second.falseEvents} missed=${second.missed}; after ${changedAgain.size} more ${split(third)} events=${third.events} false_events=${third.falseEvents} missed=${third.missed}; then nothing changed ${split(quiet)} events=${quiet.events}; store entries ${entries}, static data ${(saved.length / 1_048_576).toFixed(1)} MB; peak rss_mb=${mb(peak)} (the whole process: ${mb(rssAtStart)} MB Node, tsx and modules before the runs, ${mb(rssOfScaffolding)} MB the bench's companies and records, which n8n holds as input items; the runs' own growth at most ${mb(peak - rssAtStart - rssOfScaffolding)} MB)`,
	);
	const ownCpu = Math.max(...runs.map((figures) => figures.ownCpuS));
	const falseEvents = runs.reduce((sum, figures) => sum + figures.falseEvents, 0);
	return `bench: scenario=watch${worker ? '-worker' : ''}-${size} companies=${size} own_cpu_s=${ownCpu.toFixed(3)} rss_mb=${mb(peak)} false_events=${falseEvents}`;
}

/** `memoryOnly`: part 1 alone (npm run bench -- --scenario watch --quick). */
export async function watchBench(memoryOnly = false): Promise<void> {
	const lines: string[] = [];
	// Each size in a process of its own: peak RSS is then that size's. n8n's own store code where it is
	// installed, after the harness's copy of it: the last lines are then n8n's figures.
	const stores: Array<'harness' | 'n8n'> = ['harness'];
	if (realN8nStore()) stores.push('n8n');
	else
		console.log('n8n 2.41.1 is not installed (npm run test:n8n prepares it): harness store only');
	const children: Array<[string, number, string]> = stores.flatMap((store) =>
		SIZES.map((size): [string, number, string] => [store, size, 'main']),
	);
	// The queue-mode worker's path (the store alone, three entries a company), at the largest size.
	children.splice(-1, 0, [stores[stores.length - 1], SIZES[SIZES.length - 1], 'worker']);
	for (const [store, size, where] of children) {
		const output = execFileSync(
			process.execPath,
			[...process.execArgv, __filename, CHILD, String(size), store, where],
			{ encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
		).trim();
		const line = output.split('\n');
		console.log(line.slice(0, -1).join('\n'));
		lines.push(line[line.length - 1]);
	}
	for (const size of memoryOnly ? [] : ENGINE_SIZES) {
		const tools = await engineTools();
		const { REGISTRY_NODE, engineFor, startSandbox } = tools;
		const stored = companies(size);
		const sandbox = await startSandbox({
			port: 0,
			rateLimit: { ratePerSecond: 1e9, burst: 1e9 },
			companies: stored,
		});
		const sampler = setInterval(sampleRss, 50);
		peakRss = 0;
		try {
			const engine = engineFor(sandbox);
			const rows: IDataObject[] = stored.map((company) => ({
				country: company.country,
				companyId: company.companyId,
			}));
			let lastLookupCpu = process.cpuUsage();
			sandbox.onLookup(() => (lastLookupCpu = process.cpuUsage()));
			const run = async (changed: Set<string>): Promise<RunFigures> => {
				const result = await engine.execute(watchWorkflow(tools), { rows, mode: 'trigger' });
				const own = process.cpuUsage(lastLookupCpu);
				sampleRss();
				const items = result.outputOf(REGISTRY_NODE)[0] ?? [];
				const falseEvents = items.filter(
					(item) =>
						item.json.event !== 'turnedInactive' ||
						!changed.has(String((item.json.lookup as IDataObject).companyId)),
				).length;
				return {
					ownCpuS: (own.user + own.system) / 1e6,
					events: items.length,
					falseEvents,
					missed: changed.size - (items.length - falseEvents),
				};
			};
			const baseline = await run(new Set());
			const changed = new Set<string>();
			for (let index = 0; index < size; index += 100) {
				sandbox.changeCompany(
					{ country: 'gb', companyId: stored[index].companyId },
					{ status: 'Inactive' },
				);
				changed.add(stored[index].companyId);
			}
			const second = await run(changed);
			const rssMb = Math.round(peakRss / 1_048_576);
			console.log(
				`engine ${size} companies: baseline own_cpu_s=${baseline.ownCpuS.toFixed(3)} events=${baseline.events}; after ${changed.size} changes own_cpu_s=${second.ownCpuS.toFixed(3)} events=${second.events} false_events=${second.falseEvents} missed=${second.missed}; peak rss_mb=${rssMb}`,
			);
		} finally {
			clearInterval(sampler);
			sandbox.onLookup(undefined);
			await sandbox.close();
		}
	}
	for (const line of lines) console.log(line);
}

const CHILD = '--watch-memory-run';
if (require.main === module && process.argv[2] === CHILD) {
	const [size, store, where] = [Number(process.argv[3]), process.argv[4], process.argv[5]];
	const worker = where === 'worker';
	void (
		store === 'n8n'
			? memoryRuns(size, realN8nStore(), "n8n 2.41.1's DeduplicationHelper", worker)
			: memoryRuns(size, new HarnessStore(), 'harness store', worker)
	).then((line) => console.log(line));
}

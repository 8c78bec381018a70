// Where a watch run's CPU time goes at 100,000 companies (issue 22): `npx tsx bench/watchProfile.ts main`
// (or `worker`; `harness` after it for the harness's copy of n8n's store). V8's sampling profiler runs over
// bench/watch.ts's four memory runs only (not the modules' loading), and each sample goes to its owner:
// the nearest frame on its stack that is n8n's store (n8n's DeduplicationHelper, or its stand-in table's
// JSON), the package (nodes/), n8n's static data JSON (the bench's load and save of it), or the garbage
// collector. A builtin (JSON.parse, a Set, a string join, MD5) counts for whoever called it. Writes the
// profile to /tmp (open it in Chrome's DevTools) and prints the split and the package's top functions.
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ProcessedItemsStore as HarnessStore } from '../harness/processedItems';
import { memoryRuns, realN8nStore } from './watch';

interface CallFrame {
	functionName: string;
	scriptId: string;
	url: string;
	lineNumber: number;
	columnNumber: number;
}
interface ProfileNode {
	id: number;
	callFrame: CallFrame;
	children?: number[];
}
interface Profile {
	nodes: ProfileNode[];
	samples: number[];
	timeDeltas: number[];
}

type Owner = 'n8n store' | 'n8n static data' | 'package' | 'gc' | 'bench' | 'other';

/** The owner of one frame, if it has one: a builtin has none, and counts for its caller. */
function ownerOfFrame(frame: CallFrame): Owner | undefined {
	const { url, functionName } = frame;
	if (functionName === '(garbage collector)') return 'gc';
	if (/node_modules\/(n8n|@n8n)\//.test(url) || url.includes('harness/processedItems'))
		return 'n8n store';
	if (url.includes('/nodes/')) return 'package';
	if (url.includes('/bench/watch.ts')) {
		// The stand-in for n8n's table: the JSON column it reads and writes whole each call.
		if (['findOne', 'insert', 'update', 'delete'].includes(functionName)) return 'n8n store';
		if (functionName === 'timedStatic') return 'n8n static data';
		return 'bench';
	}
	return undefined;
}

/** tsx hands V8 each module in one line: a frame is named by its function and the code where it starts. */
type Sources = Map<string, string>;

function split(
	profile: Profile,
	sources: Sources,
): { owners: Map<Owner, number>; packageTop: Map<string, number> } {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parent = new Map<number, number>();
	for (const node of profile.nodes)
		for (const child of node.children ?? []) parent.set(child, node.id);
	const ownerCache = new Map<number, Owner>();
	const ownerOf = (id: number): Owner => {
		const cached = ownerCache.get(id);
		if (cached) return cached;
		let owner: Owner = 'other';
		for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
			const found = ownerOfFrame(byId.get(at)!.callFrame);
			// The bench's frames hold n8n's and the package's: look further up for the static data's.
			if (found && found !== 'bench') {
				owner = found;
				break;
			}
			if (found === 'bench' && owner === 'other') owner = 'bench';
		}
		ownerCache.set(id, owner);
		return owner;
	};
	const owners = new Map<Owner, number>();
	const packageTop = new Map<string, number>();
	for (const [index, id] of profile.samples.entries()) {
		const micros = profile.timeDeltas[index] ?? 0;
		const node = byId.get(id)!;
		const { functionName } = node.callFrame;
		if (functionName === '(idle)' || functionName === '(program)' || functionName === '(root)')
			continue;
		const owner = ownerOf(id);
		owners.set(owner, (owners.get(owner) ?? 0) + micros);
		if (owner === 'package') {
			// The nearest package frame, with the builtin below it if any.
			let at: number | undefined = id;
			while (at !== undefined && ownerOfFrame(byId.get(at)!.callFrame) !== 'package')
				at = parent.get(at);
			const frame = byId.get(at!)!.callFrame;
			const builtin = at === id ? '' : ` > ${functionName || '(anonymous)'}`;
			const line = (sources.get(frame.scriptId) ?? '').split('\n')[frame.lineNumber] ?? '';
			const code = line.slice(frame.columnNumber, frame.columnNumber + 50);
			const name = `${frame.url.replace(/.*\/nodes\//, '')} ${frame.functionName || '(anonymous)'}${builtin} [${code.replace(/\s+/g, ' ')}]`;
			packageTop.set(name, (packageTop.get(name) ?? 0) + micros);
		}
	}
	return { owners, packageTop };
}

async function main(): Promise<void> {
	const worker = process.argv[2] === 'worker';
	const harness = process.argv[3] === 'harness';
	const store = harness ? new HarnessStore() : realN8nStore();
	if (!store)
		throw new Error('n8n 2.41.1 is not installed (npm run test:n8n prepares it); add `harness`');
	const session = new Session();
	session.connect();
	await session.post('Debugger.enable');
	await session.post('Profiler.enable');
	await session.post('Profiler.setSamplingInterval', { interval: 200 });
	await session.post('Profiler.start');
	const started = process.cpuUsage();
	const line = await memoryRuns(100_000, store, harness ? 'harness store' : 'n8n', worker);
	const used = process.cpuUsage(started);
	const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
	const file = join(tmpdir(), `watch-${worker ? 'worker' : 'main'}-${process.pid}.cpuprofile`);
	writeFileSync(file, JSON.stringify(profile));
	console.log(line);
	const sources: Sources = new Map();
	for (const scriptId of new Set(profile.nodes.map((node) => node.callFrame.scriptId)))
		if (
			profile.nodes.some(
				(node) => node.callFrame.scriptId === scriptId && node.callFrame.url.includes('/nodes/'),
			)
		)
			sources.set(
				scriptId,
				((await session.post('Debugger.getScriptSource', { scriptId })) as { scriptSource: string })
					.scriptSource,
			);
	const { owners, packageTop } = split(profile, sources);
	const total = [...owners.values()].reduce((sum, micros) => sum + micros, 0);
	// A sample's time is wall time (a loaded machine takes the thread away): shares, scaled to the CPU time.
	const cpuS = (used.user + used.system) / 1e6;
	const s = (micros: number) => ((micros / total) * cpuS).toFixed(3);
	console.log(
		`profile of the four runs (${file}): cpu_s=${cpuS.toFixed(3)} (sampled wall ${(total / 1e6).toFixed(3)} s, shares scaled to cpu_s); ` +
			[...owners.entries()]
				.sort((a, b) => b[1] - a[1])
				.map(([owner, micros]) => `${owner} ${s(micros)}`)
				.join(', '),
	);
	for (const [name, micros] of [...packageTop.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25))
		console.log(`  package ${s(micros)} ${name}`);
}

void main();

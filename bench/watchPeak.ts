// What is alive at the peak of a watch of 100,000 companies (issue 22): bench/watch.ts's four memory runs
// (n8n 2.41.1's own store code where installed, else the harness's copy), with memory read at every store
// call, before and after it, and at each run's start and end.
//   npx tsx bench/watchPeak.ts [size] [main|worker]
//     (`alloc` after it: what the runs allocate that outlives a scavenge, sampled by V8's heap profiler and
//     given to its owner, as bench/watchProfile.ts gives CPU samples: the package, n8n's store, n8n's static
//     data JSON, the bench; the package's top lines)
//     as the bench runs: rss, heap used and heap total as found (garbage included), and the kernel's
//     high-water mark so far: where the peak is reached, and how much of the heap is V8's slack.
//   node --expose-gc --import tsx bench/watchPeak.ts [size] [main|worker] live
//     the same points after a full GC each: what is alive there (the live set). The GCs change when V8
//     collects, so this run's rss is not the bench's; its heap used is what the run holds.
// Before the runs: the process (Node, tsx, n8n's modules) and the bench's own companies and records, each
// measured after a full GC where --expose-gc is given.
import { Session } from 'node:inspector/promises';
import { getHeapStatistics } from 'node:v8';

import type { IDataDeduplicator } from 'n8n-workflow';

import { ProcessedItemsStore as HarnessStore } from '../harness/processedItems';
import { memoryRuns, realN8nStore } from './watch';

const [size, where, live, alloc] = [
	Number(process.argv[2] ?? 100_000),
	process.argv[3] ?? 'main',
	process.argv[4] === 'live',
	process.argv[4] === 'alloc',
];
const gc = (globalThis as { gc?: () => void }).gc;
if (live && !gc) throw new Error('live needs node --expose-gc');

const mb = (bytes: number) => (bytes / 1_048_576).toFixed(0).padStart(5);
interface Point {
	at: string;
	rss: number;
	heapUsed: number;
	heapTotal: number;
	external: number;
	peak: number;
}
const points: Point[] = [];
function read(at: string): void {
	if (live) gc!();
	const usage = process.memoryUsage();
	points.push({
		at,
		rss: usage.rss,
		heapUsed: usage.heapUsed,
		heapTotal: usage.heapTotal,
		external: usage.external + usage.arrayBuffers,
		peak: process.resourceUsage().maxRSS * 1024,
	});
}

let run = '';
let call = 0;
function watched(store: IDataDeduplicator): IDataDeduplicator {
	const around =
		<A extends unknown[], R>(name: string, method: (...args: A) => Promise<R>) =>
		async (...args: A): Promise<R> => {
			call += 1;
			const values = Array.isArray(args[0]) ? ` ${(args[0] as unknown[]).length} values` : '';
			read(`${run} #${call} ${name}${values}: before`);
			const result = await method.apply(store, args);
			read(`${run} #${call} ${name}: after`);
			return result;
		};
	return {
		checkProcessedAndRecord: around('record', store.checkProcessedAndRecord),
		removeProcessed: around('remove', store.removeProcessed),
		clearAllProcessedItems: around('clear', store.clearAllProcessedItems),
		getProcessedDataCount: around('count', store.getProcessedDataCount),
	};
}

async function main(): Promise<void> {
	read('process: Node and tsx, before the store modules');
	const n8n = realN8nStore();
	read(`process: ${n8n ? "n8n 2.41.1's store modules" : 'the harness store'} loaded`);
	const store = watched(n8n ?? new HarnessStore());
	const session = new Session();
	if (alloc) {
		session.connect();
		await session.post('HeapProfiler.enable');
		// Objects a scavenge collects are left out: they never grow the old space, which is the peak.
		await session.post('HeapProfiler.startSampling', {
			samplingInterval: 4096,
			includeObjectsCollectedByMajorGC: true,
			includeObjectsCollectedByMinorGC: false,
		} as never);
	}
	const line = await memoryRuns(
		size,
		store,
		n8n ? 'n8n' : 'harness',
		where === 'worker',
		(name) => {
			if (run) read(`${run}: end`);
			run = name;
			call = 0;
			read(`${run}: start`);
		},
	);
	read(`${run}: end`);
	if (alloc)
		owners(((await session.post('HeapProfiler.stopSampling')) as { profile: HeapProfile }).profile);
	console.log(line);
	console.log(
		`${live ? 'live (a full GC at each point)' : 'as found'}; MB: rss heapUsed heapTotal external peakRss  point`,
	);
	for (const point of points)
		console.log(
			`${mb(point.rss)} ${mb(point.heapUsed)} ${mb(point.heapTotal)} ${mb(point.external)} ${mb(point.peak)}  ${point.at}`,
		);
	const heap = getHeapStatistics();
	console.log(
		`heap limit ${mb(heap.heap_size_limit)} MB; at the end: total ${mb(heap.total_heap_size)}, used ${mb(heap.used_heap_size)}`,
	);
}

void main();

interface HeapNode {
	callFrame: { functionName: string; url: string; lineNumber: number };
	selfSize: number;
	children: HeapNode[];
}
interface HeapProfile {
	head: HeapNode;
}

/** The owner of a frame, as bench/watchProfile.ts says it; a builtin has none and counts for its caller. */
function ownerOfFrame({ url, functionName }: HeapNode['callFrame']): string | undefined {
	if (/node_modules\/(n8n|@n8n)\//.test(url) || url.includes('harness/processedItems'))
		return 'n8n store';
	if (url.includes('/nodes/')) return 'package';
	if (url.includes('/bench/watch.ts')) {
		if (['findOne', 'insert', 'update', 'delete'].includes(functionName)) return 'n8n store';
		if (functionName === 'timedStatic') return 'n8n static data';
		return 'bench';
	}
	return undefined;
}

/** Bytes sampled per owner (the nearest owned frame up the stack), and the package's lines. */
function owners(profile: HeapProfile): void {
	const byOwner = new Map<string, number>();
	const packageLines = new Map<string, number>();
	const walk = (node: HeapNode, stack: Array<HeapNode['callFrame']>) => {
		const frames = [...stack, node.callFrame];
		if (node.selfSize > 0) {
			let owner = 'other';
			let packageFrame: HeapNode['callFrame'] | undefined;
			for (let at = frames.length - 1; at >= 0; at--) {
				const found = ownerOfFrame(frames[at]);
				if (found === 'package' && !packageFrame) packageFrame = frames[at];
				if (found && found !== 'bench') {
					owner = found;
					break;
				}
				if (found === 'bench' && owner === 'other') owner = 'bench';
			}
			byOwner.set(owner, (byOwner.get(owner) ?? 0) + node.selfSize);
			if (owner === 'package' && packageFrame) {
				const name = `${packageFrame.url.replace(/.*\/nodes\//, '')}:${packageFrame.lineNumber + 1} ${packageFrame.functionName || '(anonymous)'} > ${node.callFrame.functionName || '(builtin)'}`;
				packageLines.set(name, (packageLines.get(name) ?? 0) + node.selfSize);
			}
		}
		for (const child of node.children) walk(child, frames);
	};
	walk(profile.head, []);
	console.log(
		'allocated and outliving a scavenge, MB by owner: ' +
			[...byOwner.entries()]
				.sort((a, b) => b[1] - a[1])
				.map(([owner, bytes]) => `${owner} ${mb(bytes).trim()}`)
				.join(', '),
	);
	for (const [name, bytes] of [...packageLines.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20))
		console.log(`  package ${mb(bytes)} ${name}`);
}

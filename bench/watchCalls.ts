// What a watch run asks of n8n's processed-items store, call by call (issue 22): `npx tsx
// bench/watchCalls.ts [companies] [main|worker]` (100,000 and main by default). bench/watch.ts's four runs
// (the first; after 1% of the companies changed; after 1% more; nothing changed) with n8n 2.41.1's own
// DeduplicationHelper where npm run test:n8n installed it (else the harness's copy). Per call: the values
// handed over (n8n hashes each with MD5), the row before and after (n8n parses the whole row on every
// call but a clear, and writes it back whole on every record), what was new, and the call's CPU time.
// Then n8n's unit costs, measured apart in this process: an MD5 hash, and a row's parse and write per entry.
// The last run's last `count` is bench/watch.ts's own (the row's size for its line), not the package's.
// `npx tsx bench/watchCalls.ts 100000 main switch`: the last two runs on a worker (queue mode after regular
// mode): a worker's first reading of a row a main process patched (storePatches.ts).
import { createHash } from 'node:crypto';

import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
} from 'n8n-workflow';

import { ProcessedItemsStore as HarnessStore } from '../harness/processedItems';
import { StaticDataMemory } from '../nodes/shared/watch/memory';
import { ProcessedItemsMemory } from '../nodes/shared/watch/processedItemsMemory';
import { memoryRuns, realN8nStore } from './watch';

interface Call {
	run: string;
	call: string;
	values: number;
	rowBefore: number;
	rowAfter: number;
	isNew: number;
	cpuMs: number;
}

/** n8n's store, each call counted and timed (the row's length read apart, outside the timing). */
function counted(store: IDataDeduplicator, calls: Call[], runOf: () => string): IDataDeduplicator {
	const rowLength = async (
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	) => await store.getProcessedDataCount(scope, context, { ...options, mode: 'entries' });
	const timed = async <T>(
		call: string,
		values: number,
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
		body: () => Promise<T>,
		isNew: (result: T) => number,
	): Promise<T> => {
		const rowBefore = await rowLength(scope, context, options);
		const started = process.cpuUsage();
		const result = await body();
		const used = process.cpuUsage(started);
		const rowAfter = await rowLength(scope, context, options);
		calls.push({
			run: runOf(),
			call,
			values,
			rowBefore,
			rowAfter,
			isNew: isNew(result),
			cpuMs: (used.user + used.system) / 1000,
		});
		return result;
	};
	return {
		checkProcessedAndRecord: async (items, scope, context, options) =>
			await timed(
				'record',
				items.length,
				scope,
				context,
				options,
				async () => await store.checkProcessedAndRecord(items, scope, context, options),
				(result) => result.new.length,
			),
		removeProcessed: async (items, scope, context, options) =>
			await timed(
				'remove',
				items.length,
				scope,
				context,
				options,
				async () => await store.removeProcessed(items, scope, context, options),
				() => 0,
			),
		clearAllProcessedItems: async (scope, context, options) =>
			await timed(
				'clear',
				0,
				scope,
				context,
				options,
				async () => await store.clearAllProcessedItems(scope, context, options),
				() => 0,
			),
		getProcessedDataCount: async (scope, context, options) =>
			await timed(
				'count',
				0,
				scope,
				context,
				options,
				async () => await store.getProcessedDataCount(scope, context, options),
				() => 0,
			),
	};
}

/** n8n's unit costs, measured apart: an MD5 hash as n8n makes it; a row of base64 hashes parsed and written. */
function unitCosts(entries: number): string {
	const values: DeduplicationItemTypes[] = Array.from(
		{ length: entries },
		(_, index) => `["gb/${40_000_000 + index}","name","Example Trading Company ${index} Limited"]`,
	);
	const cpu = (body: () => unknown) => {
		const started = process.cpuUsage();
		body();
		const used = process.cpuUsage(started);
		return (used.user + used.system) / entries;
	};
	let hashes: string[] = [];
	const hashUs = cpu(
		() =>
			(hashes = values.map((value) => createHash('md5').update(value.toString()).digest('base64'))),
	);
	let text = '';
	const writeUs = cpu(() => (text = JSON.stringify({ mode: 'entries', data: hashes })));
	let row: { data: string[] } = { data: [] };
	const parseUs = cpu(() => (row = JSON.parse(text) as { data: string[] }));
	const setUs = cpu(() => new Set(row.data));
	const f = (us: number) => us.toFixed(2);
	return `n8n's unit costs at ${entries} entries (µs an entry): MD5 hash ${f(hashUs)}, row parse ${f(parseUs)}, Set of the row ${f(setUs)}, row write ${f(writeUs)}`;
}

async function main(): Promise<void> {
	const size = Number(process.argv[2] ?? 100_000);
	const worker = process.argv[3] === 'worker';
	// `switch`: the last two runs on a worker, as n8n runs one (its static data empty, and not kept).
	const switching = process.argv[4] === 'switch';
	let made = 0;
	const calls: Call[] = [];
	let run = '';
	const n8n = realN8nStore();
	const store = counted(n8n ?? new HarnessStore(), calls, () => run);
	const label = `${n8n ? "n8n 2.41.1's DeduplicationHelper" : 'harness store'}${switching ? ', the last two runs on a worker' : ''}`;
	console.log(
		await memoryRuns(
			size,
			store,
			label,
			worker,
			(name) => {
				run = name;
			},
			switching
				? (helpers, main) =>
						++made > 2
							? new ProcessedItemsMemory(
									helpers,
									new StaticDataMemory({}, { warn: () => undefined }, () => true),
								)
							: new ProcessedItemsMemory(helpers, main?.notebook)
				: undefined,
		),
	);
	for (const name of ['first', 'after 1% changes', 'after 1% more', 'nothing changed']) {
		const ofRun = calls.filter((call) => call.run === name);
		const hashed = ofRun.reduce(
			(sum, call) => sum + (call.call === 'record' || call.call === 'remove' ? call.values : 0),
			0,
		);
		// A clear deletes the row unread; every other call parses it, and a record writes it back whole.
		const parsed = ofRun.reduce(
			(sum, call) => sum + (call.call === 'clear' ? 0 : call.rowBefore),
			0,
		);
		const written = ofRun.reduce(
			(sum, call) => sum + (call.call === 'record' || call.call === 'remove' ? call.rowAfter : 0),
			0,
		);
		const cpu = ofRun.reduce((sum, call) => sum + call.cpuMs, 0);
		console.log(
			`${worker ? 'worker' : 'main'} ${size}, run "${name}": ${ofRun.length} calls, ${hashed} values hashed, ${parsed} row entries parsed, ${written} written; n8n store cpu ${cpu.toFixed(0)} ms`,
		);
		for (const call of ofRun)
			console.log(
				`  ${call.call.padEnd(6)} values=${call.values} new=${call.isNew} row ${call.rowBefore} -> ${call.rowAfter} cpu_ms=${call.cpuMs.toFixed(0)}`,
			);
	}
	console.log(unitCosts(size * 3));
}

void main();

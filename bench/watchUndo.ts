// What undoing a failed worker run's entries costs in n8n's processed-items store (issue 22): `npx tsx
// bench/watchUndo.ts [row] [values...]`. A row of `row` entries (330,000 by default: a worker's row at
// 100,000 companies), then removeProcessed of `values` entries, some held, with n8n 2.41.1's own
// DeduplicationHelper where npm run test:n8n installed it (else the harness's copy, which follows it):
// removeProcessed searches the whole row once per value, so it costs values × row.
import { ProcessedItemsStore as HarnessStore } from '../harness/processedItems';
import { realN8nStore } from './watch';

const CONTEXT = { workflow: { id: 'w' }, node: { id: 'n' } } as never;
const OPTIONS = { mode: 'entries', maxEntries: 500_000 } as const;

async function main(): Promise<void> {
	const [rowArg, ...valueArgs] = process.argv.slice(2);
	const row = Number(rowArg ?? 330_000);
	const sizes = valueArgs.length > 0 ? valueArgs.map(Number) : [100, 300, 1_000];
	const n8n = realN8nStore();
	const stores = [
		['harness', new HarnessStore()] as const,
		...(n8n ? [['n8n', n8n] as const] : []),
	];
	for (const [name, store] of stores) {
		for (const size of sizes) {
			await store.clearAllProcessedItems('node', CONTEXT, OPTIONS);
			const entries = Array.from({ length: row }, (_, index) => `["c${index}","status","A"]`);
			await store.checkProcessedAndRecord(entries, 'node', CONTEXT, OPTIONS);
			// Recorded by the failed run: the newest entries of the row, as an undo finds them.
			const removed = entries.slice(row - size);
			const started = process.cpuUsage();
			await store.removeProcessed(removed, 'node', CONTEXT, OPTIONS);
			const used = process.cpuUsage(started);
			const ms = (used.user + used.system) / 1000;
			console.log(
				`${name}: row ${row}, removeProcessed of ${size}: ${ms.toFixed(0)} ms CPU, ${((ms * 1000) / size).toFixed(0)} µs a value, ${((ms * 1e6) / size / row).toFixed(2)} ns a value × entry`,
			);
		}
	}
}

void main();

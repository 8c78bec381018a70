// What a watch writes per company (issue 22): `npx tsx bench/watchBytes.ts [companies] [main|worker]`
// (100,000 and main by default). bench/watch.ts's four runs on the harness's copy of n8n's store; per run
// the values handed to n8n's processed-items store by kind (count, characters; n8n keeps an MD5 hash of
// each, 24 characters of base64 whatever the value's length, but parses, hashes and answers every value
// passed), and after the runs the static data n8n saves (its JSON, by field). n8n's garbage per run is
// proportional to these: it JSON-parses and serialises the static data, and hashes and answers each value.
import type { IDataDeduplicator } from 'n8n-workflow';

import { ProcessedItemsStore as HarnessStore } from '../harness/processedItems';
import { ProcessedItemsMemory } from '../nodes/shared/watch/processedItemsMemory';
import { memoryRuns } from './watch';
import { savedCompanies } from '../test/support/savedCompanies';

const [size, where] = [Number(process.argv[2] ?? 100_000), process.argv[3] ?? 'main'];

/** The kind of an entry: its field (`["<id>","status","A"]`), or what a non-company entry says first. */
function kindOf(value: string): string {
	try {
		const parsed = JSON.parse(value) as unknown[];
		if (parsed[0] === 'companies') return 'block';
		if (parsed[0] === 'row written') return 'row mark';
		return String(parsed[1]);
	} catch {
		return 'other';
	}
}

interface Tally {
	values: number;
	chars: number;
}
let run = '';
const byRun = new Map<string, Map<string, Tally>>();
function tally(values: unknown[]): void {
	const kinds = byRun.get(run) ?? new Map<string, Tally>();
	byRun.set(run, kinds);
	for (const value of values) {
		const kind = kindOf(String(value));
		const counted = kinds.get(kind) ?? { values: 0, chars: 0 };
		counted.values += 1;
		counted.chars += String(value).length;
		kinds.set(kind, counted);
	}
}

function tallied(store: IDataDeduplicator): IDataDeduplicator {
	return {
		checkProcessedAndRecord: async (items, ...rest) => {
			tally(items);
			return await store.checkProcessedAndRecord(items, ...rest);
		},
		removeProcessed: async (items, ...rest) => {
			tally(items);
			await store.removeProcessed(items, ...rest);
		},
		clearAllProcessedItems: async (...args) => await store.clearAllProcessedItems(...args),
		getProcessedDataCount: async (...args) => await store.getProcessedDataCount(...args),
	};
}

/** The static data's JSON by part: the keys, each field with its name, and the rest (punctuation, the escapes of the companies' text, the row's mark). */
function staticDataBytes(staticData: Record<string, unknown>): string {
	const companies = savedCompanies(staticData);
	const ids = Object.keys(companies);
	const parts = new Map<string, number>([['key', 0]]);
	for (const id of ids) {
		parts.set('key', parts.get('key')! + JSON.stringify(id).length + 1);
		for (const [field, value] of Object.entries(companies[id]))
			parts.set(
				field,
				(parts.get(field) ?? 0) + JSON.stringify(field).length + 1 + JSON.stringify(value).length,
			);
	}
	const total = JSON.stringify(staticData).length;
	const named = [...parts.values()].reduce((sum, bytes) => sum + bytes, 0);
	const per = (bytes: number) => (bytes / Math.max(ids.length, 1)).toFixed(1);
	return `static data ${total} bytes, ${ids.length} companies, ${per(total)} a company: ${[...parts.entries()].map(([part, bytes]) => `${part} ${per(bytes)}`).join(', ')}, punctuation and the row's mark ${per(total - named)}`;
}

async function main(): Promise<void> {
	let staticData: Record<string, unknown> = {};
	await memoryRuns(
		size,
		tallied(new HarnessStore()),
		'harness',
		where === 'worker',
		(name) => (run = name),
		(helpers, main) => {
			if (main) staticData = main.staticData;
			return new ProcessedItemsMemory(helpers, main?.notebook);
		},
	);
	for (const [name, kinds] of byRun) {
		const total = [...kinds.values()].reduce((sum, kind) => sum + kind.values, 0);
		console.log(
			`${name}: ${total} values (${(total / size).toFixed(2)} a company); ${[...kinds.entries()].map(([kind, counted]) => `${kind} ${counted.values} x ${(counted.chars / counted.values).toFixed(1)} chars`).join(', ')}`,
		);
	}
	if (where !== 'worker') console.log(staticDataBytes(staticData));
}

void main();

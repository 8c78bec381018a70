// What a watch run keeps alive at 100,000 companies (issue 22): `node --expose-gc --import tsx
// bench/watchLive.ts main` (or `worker`). Four runs as in bench/watch.ts (a first, two after 1% changed,
// a quiet one) with n8n 2.41.1's own processed-items store (npm run test:n8n installs it); before each
// store call a full GC, and the heap then in use: what is live at that moment (the input items, n8n's
// row, the static data, the package's entries and maps), not the garbage V8 has not yet collected, which
// is what the process's peak RSS mostly is.
import type { CompanyRecord } from '../nodes/shared/model/companyRecord';
import { detectChanges } from '../nodes/shared/watch/detector';
import { StaticDataMemory } from '../nodes/shared/watch/memory';
import { ProcessedItemsMemory } from '../nodes/shared/watch/processedItemsMemory';
import type { ProcessedItemsStore } from '../nodes/shared/watch/storeRow';
import { realN8nStore } from './watch';

const COMPANIES = 100_000;
const gc = (globalThis as { gc?: () => void }).gc;
const mb = (bytes: number) => Math.round(bytes / 1_048_576);

async function liveRuns(worker: boolean, collect: () => void): Promise<void> {
	const n8n = realN8nStore();
	if (!n8n) throw new Error('n8n 2.41.1 is not installed (npm run test:n8n prepares it)');
	const live = () => {
		collect();
		return mb(process.memoryUsage().heapUsed);
	};
	const stored = Array.from({ length: COMPANIES }, (_, index) => ({
		companyId: String(40_000_000 + index),
		officialName: `Example Trading Company ${index} Limited`,
		status: 'Active',
		registeredAddress: `${index} High Street, Leeds, LS1 ${index % 9}AB`,
	}));
	const checkedOf = () =>
		stored.map((company, itemIndex) => ({
			key: { countryCode: 'gb', companyId: company.companyId },
			record: {
				isRegistered: true,
				officialName: company.officialName,
				status: company.status,
				registrationDate: '2015-10-28',
				registeredAddress: company.registeredAddress,
			} as CompanyRecord,
			itemIndex,
		}));
	const context = { workflow: { id: 'watch-workflow' }, node: { id: 'watch-node' } } as never;
	const calls: string[] = [];
	const store: ProcessedItemsStore = {
		checkProcessedAndRecord: async (items, scope, options) => {
			calls.push(`record(${items.length}) ${live()}`);
			return await n8n.checkProcessedAndRecord(items, scope, context, options);
		},
		clearAllProcessedItems: async (scope, options) => {
			calls.push(`clear ${live()}`);
			await n8n.clearAllProcessedItems(scope, context, options);
		},
		getProcessedDataCount: async (scope, options) => {
			calls.push(`count ${live()}`);
			return await n8n.getProcessedDataCount(scope, context, options);
		},
	};
	let saved = '{}';
	for (const [run, name] of ['first', 'after 1% changed', 'after 1% more', 'quiet'].entries()) {
		// Runs 1 and 2: 1% of the companies turn Inactive (other ones each time).
		if (run === 1 || run === 2)
			for (let index = (run - 1) * 50; index < COMPANIES; index += 100)
				stored[index].status = 'Inactive';
		const checked = checkedOf();
		const before = live();
		calls.length = 0;
		const staticData = worker ? {} : (JSON.parse(saved) as Record<string, unknown>);
		const notebook = new StaticDataMemory(staticData, { warn: () => undefined }, () => true);
		const memory = new ProcessedItemsMemory(store, worker ? undefined : notebook);
		await detectChanges(memory, checked, [], {
			now: new Date(Date.UTC(2026, 10, run + 1)),
			reportFirstSightings: false,
		});
		if (!worker) saved = JSON.stringify(staticData);
		console.log(
			`${worker ? 'worker' : 'main'} run ${run + 1} (${name}): live MB before the run ${before}; at each store call: ${calls.join(', ')}; after the run ${live()}`,
		);
	}
	const peak = process.resourceUsage().maxRSS * 1024;
	console.log(`peak rss_mb=${mb(peak)} (with a full GC before every store call)`);
}

if (!gc) console.log('run with node --expose-gc --import tsx bench/watchLive.ts main|worker');
else void liveRuns(process.argv[2] === 'worker', gc);

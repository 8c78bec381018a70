// What n8n itself makes a process hold at 100,000 watched companies, without the package (issue 22's floor):
// `npx tsx bench/watchFloor.ts main` (or `worker`). n8n's own processed-items store code (as in
// bench/watch.ts, npm run test:n8n installs it) does per run what a watch run asks of it: one call with
// the row's mark and 1% of the companies' entries into a 300,000-entry row, the row cleared and its
// 300,000 entries written anew (runs 1-3; run 4 the call alone), and on a main process n8n reads and writes
// the 11 MB static data. The entries and the static data are made once, before the runs: what the process
// peaks at beyond them is n8n's per-run garbage, which no change to the package can remove.
// `npx tsx bench/watchFloor.ts main patched`: docs/watch.md's patches, each run the one call alone (the
// mark and five values a changed company), with no clear and no write.
import type { IDataDeduplicator } from 'n8n-workflow';

import { realN8nStore } from './watch';

const COMPANIES = 100_000;
const mb = (bytes: number) => Math.round(bytes / 1_048_576);

async function floorRuns(
	store: IDataDeduplicator,
	worker: boolean,
	/** docs/watch.md's patches: a run's one call appends the changed companies' five values each; no clear, no write. */
	patched = false,
): Promise<string> {
	const rssAtStart = process.memoryUsage().rss;
	const entries: string[] = [];
	const companies: Record<string, unknown> = {};
	for (let index = 0; index < COMPANIES; index++) {
		const id = `gb/${40_000_000 + index}`;
		const [name, address] = [
			`Example Trading Company ${index} Limited`,
			`${index} High Street, Leeds, LS1 ${index % 9}AB`,
		];
		// Flat texts, as the package makes them (templates are ropes until hashed).
		entries.push(
			...[
				`["${id}","status","A"]`,
				`["${id}","name","${name}"]`,
				`["${id}","address","${address}"]`,
			]
				.join('\n')
				.split('\n'),
		);
		companies[id] = { s: 'A', n: name, a: address, d: 20_000 };
	}
	// As memory.ts saves them: the companies one JSON text in the static data, which n8n reads and writes.
	let saved = JSON.stringify({ companies: JSON.stringify(companies) });
	const changed = entries.filter((_, index) => index % 300 < 3);
	const rssOfScaffolding = process.memoryUsage().rss - rssAtStart;
	const context = { workflow: { id: 'floor' }, node: { id: 'floor' } } as never;
	const options = { mode: 'entries' as const, maxEntries: 500_000 };
	await store.checkProcessedAndRecord(entries, 'node', context, options);
	const times: string[] = [];
	for (let run = 0; run < 4; run++) {
		const started = process.cpuUsage();
		const staticData = worker ? {} : (JSON.parse(saved) as object);
		const patch = patched
			? changed.flatMap((entry) => [`${entry} ${run}`, `${entry} at ${run}`])
			: [];
		await store.checkProcessedAndRecord(
			[
				`mark ${run}`,
				...(patched ? [...changed, ...patch.slice(0, (changed.length * 2) / 3)] : changed),
			],
			'node',
			context,
			options,
		);
		if (run < 3 && !patched) {
			await store.clearAllProcessedItems('node', context, options);
			await store.checkProcessedAndRecord([...entries, `mark ${run}`], 'node', context, options);
		}
		if (!worker) saved = JSON.stringify(staticData);
		const used = process.cpuUsage(started);
		times.push(((used.user + used.system) / 1e6).toFixed(3));
	}
	const peak = process.resourceUsage().maxRSS * 1024;
	return `watch floor (n8n alone, ${worker ? 'queue-mode worker' : 'main process'}${patched ? ', patches' : ''}): cpu_s per run ${times.join(', ')}; peak rss_mb=${mb(peak)} (${mb(rssAtStart)} MB before the runs, ${mb(rssOfScaffolding)} MB the entries and static data made once, n8n's runs at most ${mb(peak - rssAtStart - rssOfScaffolding)} MB)`;
}

const store = realN8nStore();
if (!store) console.log('n8n 2.41.1 is not installed (npm run test:n8n prepares it)');
else
	void floorRuns(store, process.argv[2] === 'worker', process.argv[3] === 'patched').then((line) =>
		console.log(line),
	);

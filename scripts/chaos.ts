// npm run test:chaos: the chaos registry (issue 21). Seeded sheets (50-500 rows, every On Error mode and
// the tool variant) run in n8n's engine against a sandbox that draws, per request, among every
// misbehaviour it knows (sandbox/chaos.ts). Invariants (harness/chaos.ts): every row exactly once, in
// order, paired; nothing that failed its check on Registered; no token or client secret in any output,
// error or log; no credential at another origin; no socket left open at the registry; at most
// CHAOS_BOUNDS.requestsPerRow lookups a row; a sheet within CHAOS_BOUNDS.sheetMs; peak RSS under
// PEAK_RSS_BOUND_MB.
//   npm run test:chaos                  seeds 1 to 200
//   npm run test:chaos -- --seeds 500   seeds 1 to 500
//   npm run test:chaos -- --seed 17     replays seed 17 alone
// The last line: chaos: seeds=N rows=N violations=0 peak_rss_mb=N open_sockets=0 wall_s=N
import { CHAOS_BOUNDS, runChaosSheet } from '../harness/chaos';
import { elsewhereServer } from '../harness/elsewhereServer';
import { startSandbox } from '../sandbox/server';

/** n8n-core and the engine take about 300 MB; a gzip bomb read whole would add hundreds per row. */
const PEAK_RSS_BOUND_MB = 1024;

function argument(name: string): number | undefined {
	const index = process.argv.indexOf(`--${name}`);
	return index > 0 ? Number(process.argv[index + 1]) : undefined;
}

async function main(): Promise<void> {
	const only = argument('seed');
	const count = argument('seeds') ?? 200;
	const seeds =
		only !== undefined ? [only] : Array.from({ length: count }, (_, index) => index + 1);
	const sandbox = await startSandbox({ port: 0, rateLimit: { ratePerSecond: 1000, burst: 1000 } });
	const elsewhere = await elsewhereServer();
	let peakRss = process.memoryUsage().rss;
	const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
	const started = Date.now();
	let rows = 0;
	let violations = 0;
	let openSockets = 0;
	let mostPerRow = 0;
	let slowestMs = 0;
	try {
		for (const seed of seeds) {
			const result = await runChaosSheet(sandbox, elsewhere, seed);
			rows += result.sheet.rows.length;
			openSockets = Math.max(openSockets, sandbox.openSockets());
			mostPerRow = Math.max(mostPerRow, result.lookups / result.sheet.rows.length);
			slowestMs = Math.max(slowestMs, result.wallMs);
			for (const violation of result.violations)
				console.log(
					`chaos: seed ${seed} (${result.sheet.mode}, ${result.sheet.rows.length} rows): ${violation}`,
				);
			if (result.violations.length > 0)
				console.log(`chaos: replay with: npm run test:chaos -- --seed ${seed}`);
			violations += result.violations.length;
			if (seeds.length > 1 && seed % 20 === 0)
				console.log(
					`chaos: ${seed} seeds, ${rows} rows, ${Math.round((Date.now() - started) / 1000)} s`,
				);
		}
	} finally {
		clearInterval(sampler);
		await elsewhere.close();
		await sandbox.close();
	}
	const peakMb = Math.round(peakRss / 1024 / 1024);
	if (peakMb > PEAK_RSS_BOUND_MB) {
		console.log(`chaos: peak RSS ${peakMb} MB is above the bound of ${PEAK_RSS_BOUND_MB} MB`);
		violations += 1;
	}
	console.log(
		`chaos: at most ${mostPerRow.toFixed(2)} lookups a row (bound ${CHAOS_BOUNDS.requestsPerRow}), slowest sheet ${(slowestMs / 1000).toFixed(1)} s (bound ${CHAOS_BOUNDS.sheetMs / 1000} s), peak RSS bound ${PEAK_RSS_BOUND_MB} MB`,
	);
	console.log(
		`chaos: seeds=${seeds.length} rows=${rows} violations=${violations} peak_rss_mb=${peakMb} open_sockets=${openSockets} wall_s=${Math.round((Date.now() - started) / 1000)}`,
	);
	process.exitCode = violations > 0 ? 1 : 0;
}

void main();

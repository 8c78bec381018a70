// npm run test:loaded: the whole jest suite N times in a row on a loaded machine (issue 27). Two busy
// processes (a CPU-bound loop each) run for the whole time, as other work on a shared 2-core machine
// would; each run prints pass or fail and its seconds. The busy processes are killed however it ends.
//   npm run test:loaded                       20 runs of the whole suite
//   npm run test:loaded -- --runs 3           3 runs
//   npm run test:loaded -- --runs 2 -- test/integration/faults.test.ts   extra arguments go to jest
// The last line: loaded: runs=N passed=N failed=N median_s=N max_s=N
import { spawn, type ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';

const BUSY_PROCESSES = 2;
/** CPU-bound; it also ends when this script dies without cleaning up (its parent changes). */
const BUSY_LOOP =
	'const parent = process.ppid; for (;;) { for (let i = 0; i < 1e7; i++); if (process.ppid !== parent) process.exit(); }';

function options(): { runs: number; jestArgs: string[] } {
	const args = process.argv.slice(2);
	const separator = args.indexOf('--');
	const own = separator === -1 ? args : args.slice(0, separator);
	const jestArgs = separator === -1 ? [] : args.slice(separator + 1);
	const at = own.indexOf('--runs');
	const runs = at === -1 ? 20 : Number(own[at + 1]);
	if (!Number.isInteger(runs) || runs < 1)
		throw new Error('--runs takes a whole number, 1 or more');
	return { runs, jestArgs };
}

const median = (values: number[]): number => {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** The jest run under way, to stop with the busy loops if this script is stopped. */
let running: ChildProcess | undefined;

/** Runs jest once; resolves with its exit code and everything it printed. */
function jest(args: string[]): Promise<{ status: number | null; output: string }> {
	return new Promise((resolve, reject) => {
		// --ci: no snapshot writes; the summary reporter's line says how many tests passed.
		const child = spawn(process.execPath, [require.resolve('jest/bin/jest'), '--ci', ...args], {
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		running = child;
		let output = '';
		child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.on('error', reject);
		child.on('close', (status) => resolve({ status, output }));
	});
}

async function main(): Promise<void> {
	const { runs, jestArgs } = options();
	const busy: ChildProcess[] = [];
	const stopAll = () => {
		for (const child of [...busy, running])
			if (child && child.exitCode === null && child.signalCode === null) child.kill();
	};
	// Ctrl-C or a kill of this script ends the busy loops too.
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
		process.on(signal, () => {
			stopAll();
			process.exit(130);
		});
	const seconds: number[] = [];
	let passed = 0;
	const load = () =>
		loadavg()
			.map((value) => value.toFixed(2))
			.join(' ');
	console.log(`loaded: ${cpus().length} cores, load average ${load()} before the busy processes`);
	try {
		for (let index = 0; index < BUSY_PROCESSES; index++)
			busy.push(spawn(process.execPath, ['-e', BUSY_LOOP], { stdio: 'ignore' }));
		for (let run = 1; run <= runs; run++) {
			const started = process.hrtime.bigint();
			const result = await jest(jestArgs);
			const took = Number(process.hrtime.bigint() - started) / 1e9;
			seconds.push(took);
			const ok = result.status === 0;
			if (ok) passed += 1;
			const summary = result.output.match(/^jest: .*$/m)?.[0] ?? 'no summary';
			console.log(
				`loaded: run ${run}/${runs} ${ok ? 'pass' : 'FAIL'} ${took.toFixed(1)} s (${summary})`,
			);
			if (!ok) {
				const failures = result.output.split('\n').filter((line) => /^\s*(FAIL|●)/.test(line));
				for (const line of failures.slice(0, 20)) console.log(`loaded:   ${line.trim()}`);
			}
		}
	} finally {
		console.log(`loaded: load average ${load()} at the end`);
		stopAll();
	}
	console.log(
		`loaded: runs=${runs} passed=${passed} failed=${runs - passed} median_s=${median(seconds).toFixed(1)} max_s=${Math.max(...seconds).toFixed(1)}`,
	);
	process.exitCode = passed === runs ? 0 : 1;
}

void main();

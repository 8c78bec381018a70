// npm run test:cpu: where the suite's time goes. Runs jest (extra arguments go to it: files, -t ...) with
// test/fileCpu.js, then prints the files by their own CPU seconds, slowest first, beside their wall
// seconds and what the wall spent beyond the CPU (waits, or neighbours on a loaded machine), the run's
// total CPU, and the load average before and after (a figure on a shared machine means little without it).
//   npm run test:cpu                                   the whole suite, the 20 costliest files
//   npm run test:cpu -- --most 40 -- test/integration  40 rows, only the integration files
// The last line: cpu: files=N cpu_s=N wall_s=N load_before=N load_after=N
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';

interface FileCpu {
	file: string;
	cpuS: number;
	wallS: number;
}

const args = process.argv.slice(2);
const separator = args.indexOf('--');
const own = separator === -1 ? args : args.slice(0, separator);
const jestArgs = separator === -1 ? [] : args.slice(separator + 1);
const mostAt = own.indexOf('--most');
const most = mostAt === -1 ? 20 : Number(own[mostAt + 1]);
if (!Number.isInteger(most) || most < 1) throw new Error('--most takes a whole number, 1 or more');

const log = join(mkdtempSync(join(tmpdir(), 'file-cpu-')), 'files.jsonl');
const loadBefore = loadavg()[0];
const started = Date.now();
// Last: --setupFilesAfterEnv takes a list, and would take the file paths after it for setup files.
const jest = spawnSync(
	'npx',
	['jest', '--ci', ...jestArgs, '--setupFilesAfterEnv', '<rootDir>/test/fileCpu.js'],
	{ stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, FILE_CPU_LOG: log } },
);
const wallS = (Date.now() - started) / 1000;
const loadAfter = loadavg()[0];

const files = (existsSync(log) ? readFileSync(log, 'utf8') : '')
	.split('\n')
	.filter((line) => line !== '')
	.map((line) => JSON.parse(line) as FileCpu)
	.sort((a, b) => b.cpuS - a.cpuS);
const seconds = (value: number) => value.toFixed(1).padStart(6);
console.log(`\n   cpu_s  wall_s  waited_s  file (${files.length} files, the ${most} costliest)`);
for (const { file, cpuS, wallS: fileWall } of files.slice(0, most))
	console.log(
		`  ${seconds(cpuS)}  ${seconds(fileWall)}    ${seconds(fileWall - cpuS)}  ${relative(process.cwd(), file)}`,
	);
const cpuS = files.reduce((sum, { cpuS: each }) => sum + each, 0);
console.log(
	`cpu: files=${files.length} cpu_s=${cpuS.toFixed(1)} wall_s=${wallS.toFixed(1)} load_before=${loadBefore.toFixed(2)} load_after=${loadAfter.toFixed(2)}`,
);
process.exitCode = jest.status ?? 1;

// npm run test:mutation [-- --quick | --unit | --summary-only | stryker options, e.g. --mutate 'nodes/shared/model/**/*.ts']: runs StrykerJS
// (stryker.config.mjs), then reads its JSON report and prints the score per folder and, last, one line:
// `mutation: score=... mutants=... survived=... no_coverage=... wall_s=...`.
// Mutants listed in test/mutation/equivalent-mutants.json (each with the reason no test can tell it from
// the original) are left out of the score and counted apart; a listed mutant that a test kills is reported,
// so the list does not outlive the reason.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = join(__dirname, '..');
const REPORT = join(root, 'reports/mutation/mutation.json');
const EQUIVALENT = join(root, 'test/mutation/equivalent-mutants.json');

type Status =
	| 'Killed'
	| 'Survived'
	| 'NoCoverage'
	| 'Timeout'
	| 'CompileError'
	| 'RuntimeError'
	| 'Ignored'
	| 'Pending';
interface Position {
	line: number;
	column: number;
}
interface Mutant {
	mutatorName: string;
	replacement?: string;
	status: Status;
	location: { start: Position; end: Position };
}
interface Report {
	files: Record<string, { source: string; mutants: Mutant[] }>;
}
/** One equivalent mutant: where (file), which change (mutator, the original text and its replacement), why. */
interface Equivalent {
	file: string;
	/** The mutant's line, where the same change of the same text could be made elsewhere in the file. */
	line?: number;
	mutator: string;
	original: string;
	replacement: string;
	reason: string;
}

/** The source text a mutant replaces (lines and columns of the report are 1-based). */
function originalText(source: string, { start, end }: Mutant['location']): string {
	const lines = source.split('\n');
	if (start.line === end.line) return lines[start.line - 1].slice(start.column - 1, end.column - 1);
	return [
		lines[start.line - 1].slice(start.column - 1),
		...lines.slice(start.line, end.line - 1),
		lines[end.line - 1].slice(0, end.column - 1),
	].join('\n');
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

interface Tally {
	/** Static mutants Stryker left out (ignoreStatic) and other Ignored ones: not in the score. */
	ignored: number;
	detected: number;
	survived: number;
	noCoverage: number;
	equivalent: number;
	mutants: number;
}
const emptyTally = (): Tally => ({
	ignored: 0,
	detected: 0,
	survived: 0,
	noCoverage: 0,
	equivalent: 0,
	mutants: 0,
});
const score = (t: Tally) => {
	const valid = t.detected + t.survived + t.noCoverage;
	return valid === 0 ? 100 : (100 * t.detected) / valid;
};
const add = (into: Tally, from: Tally) => {
	for (const [key, value] of Object.entries(from)) into[key as keyof Tally] += value;
};
const tallyLine = (name: string, t: Tally) =>
	`  ${name.padEnd(52)} score=${score(t).toFixed(1)}% mutants=${t.mutants} survived=${t.survived} no_coverage=${t.noCoverage} equivalent=${t.equivalent} ignored_static=${t.ignored}`;

/** The modules that have their own targeting tests (test/mutation/targets.mjs). */
async function targets(): Promise<Record<string, string[]>> {
	const { TARGETS } = (await import(join(root, 'test/mutation/targets.mjs'))) as {
		TARGETS: Record<string, string[]>;
	};
	return TARGETS;
}

async function main(): Promise<number> {
	const started = Date.now();
	// --summary-only: the figures of the last report, without running Stryker again.
	const summaryOnly = process.argv.includes('--summary-only');
	// --each: every module of test/mutation/targets.mjs in turn, each against its own tests; then the
	// score per folder and in all, over every module.
	const each = process.argv.includes('--each');
	// --quick: without the tests that wait on real time (stryker.config.mjs, QUICK_SKIPS).
	// --unit: the unit tests alone.
	const selection = ['--quick', '--unit'].find((flag) => process.argv.includes(flag));
	let args = process.argv
		.slice(2)
		.filter((arg) => !['--quick', '--unit', '--summary-only', '--each'].includes(arg));
	const known = await targets();
	// --mutate <module> of targets.mjs: that module against its own tests (stryker.config.mjs reads
	// MUTATION_TARGET); any other pattern is Stryker's own, against the whole suite.
	const at = args.indexOf('--mutate');
	let target: string | undefined;
	if (at !== -1 && args[at + 1] in known) {
		target = args[at + 1];
		args = [...args.slice(0, at), ...args.slice(at + 2)];
	}
	const env = { ...process.env, ...(selection ? { MUTATION_TESTS: selection.slice(2) } : {}) };
	if (!each) return summarise(runStryker(summaryOnly, args, env, target), started).status;
	const totals = emptyTally();
	const folders = new Map<string, Tally>();
	let status = 0;
	for (const module of Object.keys(known)) {
		const moduleStarted = Date.now();
		const result = summarise(runStryker(false, args, env, module), moduleStarted);
		status ||= result.status;
		add(totals, result.total);
		for (const [folder, tally] of result.byFolder) {
			const into = folders.get(folder) ?? emptyTally();
			folders.set(folder, into);
			add(into, tally);
		}
	}
	console.log('mutation: each module against its own tests, by folder');
	for (const [folder, tally] of [...folders].sort()) console.log(tallyLine(folder, tally));
	console.log(
		`mutation: each module against its own tests: score=${score(totals).toFixed(1)}% mutants=${totals.mutants} survived=${totals.survived} no_coverage=${totals.noCoverage} equivalent=${totals.equivalent} ignored_static=${totals.ignored} wall_s=${Math.round((Date.now() - started) / 1000)}`,
	);
	return status;
}

function runStryker(
	summaryOnly: boolean,
	args: string[],
	env: NodeJS.ProcessEnv,
	target: string | undefined,
): number {
	if (summaryOnly) return 0;
	const withTarget = target ? { ...env, MUTATION_TARGET: target } : env;
	return (
		spawnSync('npx', ['stryker', 'run', ...args], { cwd: root, stdio: 'inherit', env: withTarget })
			.status ?? 1
	);
}

function readReport(): Report | undefined {
	return existsSync(REPORT) ? (JSON.parse(readFileSync(REPORT, 'utf8')) as Report) : undefined;
}

function summarise(
	strykerStatus: number,
	started: number,
): { status: number; total: Tally; byFolder: Map<string, Tally> } {
	const wallSeconds = Math.round((Date.now() - started) / 1000);
	const report = readReport();
	if (!report) {
		console.error('mutation: Stryker wrote no report');
		return { status: strykerStatus || 1, total: emptyTally(), byFolder: new Map<string, Tally>() };
	}
	const { total, byFile, byFolder, left } = tallyOf(report);
	if (left.length > 0)
		console.log(
			`mutation: ${left.length} mutants not detected and not listed as equivalent:\n${left.join('\n')}`,
		);
	console.log('mutation: by file');
	for (const [file, t] of [...byFile].sort()) console.log(tallyLine(file, t));
	console.log('mutation: by folder');
	for (const [folder, t] of [...byFolder].sort()) console.log(tallyLine(folder, t));
	console.log(
		`mutation: score=${score(total).toFixed(1)}% mutants=${total.mutants} survived=${total.survived} no_coverage=${total.noCoverage} equivalent=${total.equivalent} ignored_static=${total.ignored} wall_s=${wallSeconds}`,
	);
	return { status: strykerStatus, total, byFolder };
}

function tallyOf(report: Report) {
	const equivalents = JSON.parse(readFileSync(EQUIVALENT, 'utf8')) as Equivalent[];
	const used = new Set<Equivalent>();
	const total = emptyTally();
	const byFolder = new Map<string, Tally>();
	const byFile = new Map<string, Tally>();
	const left: string[] = [];
	for (const [file, { source, mutants }] of Object.entries(report.files)) {
		const folder = byFolder.get(dirname(file)) ?? emptyTally();
		byFolder.set(dirname(file), folder);
		const own = emptyTally();
		byFile.set(file, own);
		for (const mutant of mutants) {
			if (mutant.status === 'Ignored') for (const tally of [total, folder, own]) tally.ignored++;
			if (['CompileError', 'Ignored', 'Pending'].includes(mutant.status)) continue;
			const original = squash(originalText(source, mutant.location));
			const listed = equivalents.find(
				(e) =>
					e.file === file &&
					(e.line === undefined || e.line === mutant.location.start.line) &&
					e.mutator === mutant.mutatorName &&
					squash(e.original) === original &&
					squash(e.replacement) === squash(mutant.replacement ?? ''),
			);
			const detected =
				mutant.status === 'Killed' ||
				mutant.status === 'Timeout' ||
				mutant.status === 'RuntimeError';
			for (const tally of [total, folder, own]) {
				tally.mutants++;
				if (listed && !detected) tally.equivalent++;
				else if (detected) tally.detected++;
				else if (mutant.status === 'NoCoverage') tally.noCoverage++;
				else tally.survived++;
			}
			if (listed) {
				used.add(listed);
				if (detected)
					console.log(
						`mutation: listed as equivalent but killed: ${file}:${mutant.location.start.line} ${mutant.mutatorName}`,
					);
			} else if (!detected) {
				const where = `${file}:${mutant.location.start.line}:${mutant.location.start.column}`;
				left.push(
					`  ${mutant.status.padEnd(10)} ${where} ${mutant.mutatorName}: ${original.slice(0, 60)} -> ${squash(mutant.replacement ?? '').slice(0, 60)}`,
				);
			}
		}
	}
	return { total, byFile, byFolder, left };
}

void main().then((status) => (process.exitCode = status));

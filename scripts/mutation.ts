// npm run test:mutation: every module of the code that decides outcomes (OUTCOME_MODULES in
// stryker.config.mjs), each against its own tests (test/mutation/targets.mjs), static mutants included,
// one module after another (Stryker runs two test runners at once: the two cores); each module keeps its
// own incremental file, so a rerun after a small change retests only what changed. It prints each
// module's figures, the score per folder over every module and, last, one line:
// `mutation: score=... mutants=... survived=... no_coverage=... wall_s=...`.
// A module of the list with no targets entry is not run: it is named before the last line and the run
// fails. Options: --force (retest every mutant), --concurrency <n>, other Stryker options;
// --mutate <module of targets.mjs>: that module alone (report in reports/mutation/mutation.json);
// --mutate <other pattern>: Stryker's own, against the whole suite (with --quick: without the tests that
// wait on real time; --unit: the unit tests alone); --summary-only: the figures of the last run again.
// Mutants listed in test/mutation/equivalent-mutants.json (each with the reason no test can tell it from
// the original) are left out of the score and counted apart; a listed mutant that a test kills is reported,
// so the list does not outlive the reason (and npm run lint names an entry whose line no longer holds its
// text: scripts/equivalentLines.ts).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { type Equivalent, squash } from './equivalentLines';

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

/** A glob of the mutate list or of a targets key (`*` within a folder, `**` across folders). */
const globPattern = (glob: string) =>
	new RegExp(
		`^${glob
			.replace(/[.+^${}()|[\]\\]/g, '\\$&')
			.replace(/\*\*\//g, '\0')
			.replace(/\*/g, '[^/]*')
			.replace(/\0/g, '(?:.*/)?')}$`,
	);

function filesUnder(folder: string): string[] {
	return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory()
			? filesUnder(join(folder, entry.name))
			: entry.name.endsWith('.ts')
				? [join(folder, entry.name)]
				: [],
	);
}

/** The files of the outcome list (`!` patterns leave files out), and for each the targets key it is run by. */
async function outcomeModules(known: Record<string, string[]>) {
	const { OUTCOME_MODULES } = (await import(join(root, 'stryker.config.mjs'))) as {
		OUTCOME_MODULES: string[];
	};
	const include = OUTCOME_MODULES.filter((glob) => !glob.startsWith('!')).map(globPattern);
	const exclude = OUTCOME_MODULES.filter((glob) => glob.startsWith('!')).map((glob) =>
		globPattern(glob.slice(1)),
	);
	const files = [...filesUnder('nodes'), ...filesUnder('credentials')].filter(
		(file) => include.some((glob) => glob.test(file)) && !exclude.some((glob) => glob.test(file)),
	);
	const keys = Object.keys(known);
	const keyOf = (file: string) =>
		keys.find((key) => key === file) ?? keys.find((key) => globPattern(key).test(file));
	const modules = [...new Set(files.map(keyOf).filter((key) => key !== undefined))];
	const skipped = files.filter((file) => keyOf(file) === undefined).sort();
	return { modules, skipped };
}

const slug = (module: string) => module.replace(/[/.*]/g, '_');
const moduleReport = (module: string) =>
	join(root, `reports/mutation/modules/${slug(module)}.json`);

async function main(): Promise<number> {
	const started = Date.now();
	// --summary-only: the figures of the last run, without running Stryker again.
	const summaryOnly = process.argv.includes('--summary-only');
	// --quick: without the tests that wait on real time (stryker.config.mjs, QUICK_SKIPS).
	// --unit: the unit tests alone. Both for a run against the whole suite.
	const selection = ['--quick', '--unit'].find((flag) => process.argv.includes(flag));
	// --each: what a run without --mutate does (kept for the commands written before it did).
	let args = process.argv
		.slice(2)
		.filter((arg) => !['--quick', '--unit', '--summary-only', '--each'].includes(arg));
	const known = await targets();
	const env: NodeJS.ProcessEnv = {
		...process.env,
		...(selection ? { MUTATION_TESTS: selection.slice(2) } : {}),
	};
	// --mutate <module> of targets.mjs: that module against its own tests (stryker.config.mjs reads
	// MUTATION_TARGET); any other pattern is Stryker's own, against the whole suite.
	// <module>:<from>-<to> (Stryker's line range) mutates those lines of it alone, against its own tests.
	const at = args.indexOf('--mutate');
	if (at !== -1 || selection) {
		const [, module, lines] = /^(.*?)(?::(\d+-\d+))?$/.exec(args[at + 1] ?? '') ?? [];
		const target = at !== -1 && module in known ? module : undefined;
		if (target) args = [...args.slice(0, at), ...args.slice(at + 2)];
		if (target && lines) env.MUTATION_LINES = lines;
		if (target && !summaryOnly) rmSync(moduleReport(target), { force: true });
		const status = runStryker(summaryOnly, args, env, target);
		if (target && !summaryOnly && existsSync(moduleReport(target)))
			copyFileSync(moduleReport(target), REPORT);
		return summarise(status, started, readReport(REPORT)).status;
	}
	const { modules, skipped } = await outcomeModules(known);
	const skippedNote = () =>
		skipped.length > 0 &&
		console.log(
			`mutation: ${skipped.length} modules of the outcome list have no entry in test/mutation/targets.mjs and were not run:\n${skipped.map((file) => `  ${file}`).join('\n')}`,
		);
	skippedNote();
	const totals = emptyTally();
	const folders = new Map<string, Tally>();
	const lines: string[] = [];
	let status = 0;
	for (const module of modules) {
		const moduleStarted = Date.now();
		console.log(`mutation: ${module} against ${known[module].join(' ')}`);
		// A module whose run fails must not be summed from an earlier run's report.
		if (!summaryOnly) rmSync(moduleReport(module), { force: true });
		const result = summarise(
			runStryker(summaryOnly, args, env, module),
			moduleStarted,
			readReport(moduleReport(module)),
			`${module}: `,
		);
		status ||= result.status;
		add(totals, result.total);
		lines.push(tallyLine(module, result.total));
		for (const [folder, tally] of result.byFolder) {
			const into = folders.get(folder) ?? emptyTally();
			folders.set(folder, into);
			add(into, tally);
		}
	}
	console.log('mutation: each module against its own tests');
	for (const line of lines) console.log(line);
	console.log('mutation: by folder, over every module');
	for (const [folder, tally] of [...folders].sort()) console.log(tallyLine(folder, tally));
	skippedNote();
	console.log(
		`mutation: score=${score(totals).toFixed(1)}% mutants=${totals.mutants} survived=${totals.survived} no_coverage=${totals.noCoverage} equivalent=${totals.equivalent} ignored_static=${totals.ignored} modules=${modules.length} skipped=${skipped.length} wall_s=${Math.round((Date.now() - started) / 1000)}`,
	);
	return status || (skipped.length > 0 ? 1 : 0);
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
		// Stryker's own bin, not npx: npx costs about 0.6 s of CPU a module.
		spawnSync(join(root, 'node_modules/.bin/stryker'), ['run', ...args], {
			cwd: root,
			stdio: 'inherit',
			env: withTarget,
		}).status ?? 1
	);
}

function readReport(path: string): Report | undefined {
	return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Report) : undefined;
}

function summarise(
	strykerStatus: number,
	started: number,
	report: Report | undefined,
	// Before a module's own line in a run of every module, so that only the last line reads `mutation: score=`.
	label = '',
): { status: number; total: Tally; byFolder: Map<string, Tally> } {
	const wallSeconds = Math.round((Date.now() - started) / 1000);
	if (!report) {
		console.error('mutation: no report (Stryker failed, or the module was not run yet)');
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
		`mutation: ${label}score=${score(total).toFixed(1)}% mutants=${total.mutants} survived=${total.survived} no_coverage=${total.noCoverage} equivalent=${total.equivalent} ignored_static=${total.ignored} wall_s=${wallSeconds}`,
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

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

function main(): number {
	const started = Date.now();
	// --summary-only: the figures of the last report, without running Stryker again.
	const summaryOnly = process.argv.includes('--summary-only');
	// --quick: without the tests that wait on real time (stryker.config.mjs, QUICK_SKIPS).
	// --unit: the unit tests alone.
	const selection = ['--quick', '--unit'].find((flag) => process.argv.includes(flag));
	const args = process.argv
		.slice(2)
		.filter((arg) => !['--quick', '--unit', '--summary-only'].includes(arg));
	const env = { ...process.env, ...(selection ? { MUTATION_TESTS: selection.slice(2) } : {}) };
	const stryker = summaryOnly
		? { status: 0 }
		: spawnSync('npx', ['stryker', 'run', ...args], { cwd: root, stdio: 'inherit', env });
	const wallSeconds = Math.round((Date.now() - started) / 1000);
	if (!existsSync(REPORT)) {
		console.error('mutation: Stryker wrote no report');
		return stryker.status ?? 1;
	}
	const report = JSON.parse(readFileSync(REPORT, 'utf8')) as Report;
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
	if (left.length > 0)
		console.log(
			`mutation: ${left.length} mutants not detected and not listed as equivalent:\n${left.join('\n')}`,
		);
	const line = (name: string, t: Tally) =>
		`  ${name.padEnd(52)} score=${score(t).toFixed(1)}% mutants=${t.mutants} survived=${t.survived} no_coverage=${t.noCoverage} equivalent=${t.equivalent} ignored_static=${t.ignored}`;
	console.log('mutation: by file');
	for (const [file, t] of [...byFile].sort()) console.log(line(file, t));
	console.log('mutation: by folder');
	for (const [folder, t] of [...byFolder].sort()) console.log(line(folder, t));
	console.log(
		`mutation: score=${score(total).toFixed(1)}% mutants=${total.mutants} survived=${total.survived} no_coverage=${total.noCoverage} equivalent=${total.equivalent} ignored_static=${total.ignored} wall_s=${wallSeconds}`,
	);
	return stryker.status ?? 1;
}

process.exitCode = main();

// Test order and files for the mutation run. Stryker runs only the tests that reach a mutant (its name
// pattern), in band, and stops at the first failure; but jest still loads every test file the pattern
// leaves empty, with all it imports (n8n-workflow alone is most of a lookupPipeline.ts mutant's CPU), so
// a mutant also pays for files none of whose tests reach it.
// - Order: jest's own (slowest files first) would start every mutant with the long engine runs; here the
//   unit tests go first, then the engine tests, the ones that wait on real time last.
// - Files: after Stryker's dry run (no active mutant) the per-test coverage it gathered and the file of
//   each test are saved in the sandbox; for each mutant only the files holding a test that reached it are
//   loaded. Those are the tests Stryker would run anyway: a test elsewhere never ran the mutant's code. A
//   static mutant (run while a module loads), or anything unknown (no saved coverage, a test whose file is
//   not known), keeps every file, as before. Every test runner process reads the same saved file, so a
//   second runner (concurrency 2) or one restarted after a timeout filters too.
const Sequencer = require('@jest/test-sequencer').default;
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const LAST = [
	'reliability.test.ts',
	'faults.test.ts',
	'retryLimits.test.ts',
	'cancel.test.ts',
	'examples.test.ts',
];
const rank = (path) => {
	const last = LAST.findIndex((name) => path.endsWith(name));
	if (last !== -1) return 2 + last;
	return path.includes('/test/unit/') ? 0 : 1;
};

const ACTIVE_MUTANT = '__STRYKER_ACTIVE_MUTANT__';
// In the sandbox Stryker runs in (each test runner's working directory), gone with it.
const SAVED = join(process.cwd(), '.stryker-coverage-by-file.json');

/** The per-test coverage of Stryker's dry run, from the jest runner's state in this process (if any). */
function strykerCoverage() {
	try {
		const runner = dirname(require.resolve('@stryker-mutator/jest-runner/package.json'));
		return require(join(runner, 'dist/src/jest-plugins/messaging.cjs')).state.instrumenterContext
			?.mutantCoverage;
	} catch {
		return undefined;
	}
}

let saved;
/** For each mutant, the test files to load; undefined: every file. */
function filesFor(mutant) {
	if (!saved && existsSync(SAVED)) saved = JSON.parse(readFileSync(SAVED, 'utf8'));
	if (!saved || saved.staticMutants.includes(mutant)) return undefined;
	const files = new Set();
	for (const [test, mutants] of Object.entries(saved.perTest)) {
		if (!mutants.includes(mutant)) continue;
		const at = saved.filesByTest[test];
		if (!at) return undefined;
		for (const file of at) files.add(file);
	}
	return files.size > 0 ? files : undefined;
}

class FastFirstSequencer extends Sequencer {
	sort(tests) {
		const mutant = process.env[ACTIVE_MUTANT];
		const files = mutant === undefined ? undefined : filesFor(mutant);
		return [...tests]
			.filter((test) => !files || files.has(test.path))
			.sort((a, b) => rank(a.path) - rank(b.path) || a.path.localeCompare(b.path));
	}

	cacheResults(tests, results) {
		super.cacheResults(tests, results);
		const coverage = process.env[ACTIVE_MUTANT] === undefined ? strykerCoverage() : undefined;
		if (!coverage?.perTest) return;
		// The dry run: which file holds each test (by the full name Stryker calls it by), which mutants
		// each test reached, which ran while modules loaded.
		const filesByTest = {};
		for (const file of results.testResults)
			for (const test of file.testResults)
				(filesByTest[test.fullName] ??= []).includes(file.testFilePath) ||
					filesByTest[test.fullName].push(file.testFilePath);
		const hit = (counts) => Object.keys(counts ?? {}).filter((id) => counts[id] > 0);
		const perTest = Object.fromEntries(
			Object.entries(coverage.perTest).map(([test, counts]) => [test, hit(counts)]),
		);
		writeFileSync(
			SAVED,
			JSON.stringify({ staticMutants: hit(coverage.static), perTest, filesByTest }),
		);
	}
}

module.exports = FastFirstSequencer;

// Mutation testing (npm run test:mutation): StrykerJS breaks the code that decides outcomes on purpose,
// one change at a time, and runs the tests that reach the change; a change no test notices is a gap, or
// an equivalent mutant listed with its reason in test/mutation/equivalent-mutants.json.
// The harness loads the nodes from their TypeScript sources (harness/nodeTypes.ts), never from dist/, so
// the engine tests see every mutant and count.
import { TARGETS } from './test/mutation/targets.mjs';

/**
 * The code that decides outcomes: what `npm run test:mutation` mutates, each module against its own tests
 * (test/mutation/targets.mjs); `!` leaves out files that hold only types and re-exports (no mutants).
 */
export const OUTCOME_MODULES = [
	'nodes/shared/model/companyRecord.ts',
	'nodes/shared/model/lookupKey.ts',
	'nodes/shared/watch/*.ts',
	'nodes/shared/transport/registryError.ts',
	'nodes/shared/transport/serverMessage.ts',
	'nodes/shared/transport/accessToken.ts',
	'nodes/shared/transport/retryPolicy.ts',
	'nodes/shared/transport/retryDecision.ts',
	'nodes/shared/transport/answerReport.ts',
	'nodes/shared/transport/retryAfter.ts',
	'nodes/shared/transport/lookupSession.ts',
	'nodes/shared/transport/registryRequest.ts',
	'nodes/shared/transport/exactJson.ts',
	'nodes/shared/transport/rateControl/**/*.ts',
	'!nodes/shared/transport/rateControl/index.ts',
	'!nodes/shared/transport/rateControl/types.ts',
	'nodes/shared/lookupPipeline.ts',
	'nodes/shared/executionCancelSignal.ts',
	'credentials/CompanyRegistryApi.credentials.ts',
];

// MUTATION_TARGET=<module> (scripts/mutation.ts sets it for each module of the run, or --mutate <module>):
// that module alone, against its targeting tests (test/mutation/targets.mjs).
const target = process.env.MUTATION_TARGET;
// MUTATION_LINES=<from>-<to> (--mutate <module>:<from>-<to>): those lines of the module alone, with an
// incremental file of their own (the module's would keep only their mutants).
const lines = target && process.env.MUTATION_LINES;
const targetTests = target ? TARGETS[target] : undefined;
if (target && !targetTests)
	throw new Error(`MUTATION_TARGET ${target} is not in test/mutation/targets.mjs`);

const checker = process.env.MUTATION_CHECKER === 'on';

const QUICK_SKIPS = ['reliability', 'faults', 'retryLimits', 'cancel', 'examples'].map(
	(name) => `<rootDir>/test/integration/${name}.test.ts`,
);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
	packageManager: 'npm',
	testRunner: 'jest',
	jest: {
		projectType: 'custom',
		configFile: 'jest.config.js',
		enableFindRelatedTests: false,
		config: {
			// test/sandbox/ tests the stand-in registry, which no mutant reaches.
			testPathIgnorePatterns: [
				'/node_modules/',
				'<rootDir>/test/sandbox/',
				// MUTATION_TESTS=quick (npm run test:mutation -- --quick): without the tests that wait on real
				// time, for a first look on a busy machine; its score is a floor of the full run's.
				...(process.env.MUTATION_TESTS === 'quick' ? QUICK_SKIPS : []),
				// MUTATION_TESTS=unit (--unit): the unit tests alone, minutes instead of hours; a floor again.
				...(process.env.MUTATION_TESTS === 'unit' ? ['<rootDir>/test/integration/'] : []),
			],
			testSequencer: '<rootDir>/test/mutation/fastFirstSequencer.js',
			...(targetTests ? { testMatch: targetTests.map((path) => `<rootDir>/${path}`) } : {}),
		},
	},
	// jest's transform only strips the types (test/transform.js), so mutants need no @ts-nocheck; and a file left untouched
	// stays byte for byte what it was (test/unit/model/countries.test.ts compares the generated table).
	disableTypeChecks: false,
	// Each mutant runs only the tests that executed its code (the engine tests included).
	coverageAnalysis: 'perTest',
	// No type check of each mutant unless MUTATION_CHECKER=on: it costs more than the tests of one module,
	// and a mutant that would not compile counts by what the tests make of it (so were the figures of
	// docs/development.md measured).
	checkers: checker ? ['typescript'] : [],
	// Only the plugins in use: every Stryker process (the main one, the checker's, each test runner, again
	// after each restart) loads them, and the TypeScript checker's loads TypeScript, about 1.2 s of CPU.
	plugins: [
		'@stryker-mutator/jest-runner',
		...(checker ? ['@stryker-mutator/typescript-checker'] : []),
	],
	// Only the shipped code: type errors a mutant makes in a test do not matter (jest only strips types).
	tsconfigFile: 'tsconfig.mutation.json',
	// Its options only with its plugin (Stryker warns of an option no loaded plugin knows).
	...(checker ? { typescriptChecker: { prioritizePerformanceOverAccuracy: true } } : {}),
	mutate: target ? [lines ? `${target}:${lines}` : target] : OUTCOME_MODULES,
	// Two test runners, one a core (npm run test:mutation runs one module at a time).
	concurrency: 2,
	// The engine tests wait on loopback HTTP; on a loaded machine a slow run is not an endless loop.
	timeoutMS: 20_000,
	timeoutFactor: 2,
	dryRunTimeoutMinutes: 20,
	// Static mutants (module-level constants: zod schemas, patterns, tables) run only while a module loads,
	// outside any test, so each would run the whole suite (10 minutes here): 112 of nodes/shared/model's 593
	// would take half a day. They are left out (Stryker counts them as Ignored; the summary says how many).
	// With a module's own tests only, a static mutant costs seconds: then they are run and counted.
	ignoreStatic: !targetTests,
	incremental: true,
	incrementalFile: `reports/mutation/${target ? target.replace(/[/.]/g, '_') : 'all'}${lines ? `_${lines}` : ''}.incremental.json`,
	reporters: ['json', 'html', 'progress'],
	// A module's report of its own (scripts/mutation.ts sums them, and copies one module's to mutation.json).
	jsonReporter: {
		fileName: target
			? `reports/mutation/modules/${target.replace(/[/.*]/g, '_')}.json`
			: 'reports/mutation/mutation.json',
	},
	htmlReporter: { fileName: 'reports/mutation/mutation.html' },
	ignorePatterns: ['dist', 'coverage', 'reports', 'bench/results', '.n8n-cache', 'docs', '*.tgz'],
	tempDirName: '.stryker-tmp',
	cleanTempDir: 'always',
};

/** @type {import('jest').Config} */
module.exports = {
	// Node's, with one vm context per worker: n8n's modules are evaluated once per worker, not once per
	// test file (test/workerContextEnvironment.js, with the runtime below). A path, not `<rootDir>/`: Stryker
	// wraps the environment and requires it by the name the configuration gives.
	testEnvironment: `${__dirname}/test/workerContextEnvironment.js`,
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// The end-to-end checks run a real n8n (npm run test:n8n, test:queue), never under jest.
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	transform: {
		// Type checking is `npm run typecheck`'s job; here esbuild only strips the types (test/transform.js).
		'^.+\\.ts$': '<rootDir>/test/transform.js',
	},
	testTimeout: 60_000,
	// Four workers on the two-core machine: an engine test file spends more of its time waiting (the
	// registry's pace, Retry-After, the breaker's cool-downs) than computing. With two workers the files used
	// about 175 s of CPU in some 200 s of wall time; with three, about 187 s of CPU (a loaded run) in the
	// 107-126 s a quiet run took: the cores still stood a quarter idle (reliability.families.test.ts alone:
	// 15 s of CPU in 48 s).
	maxWorkers: 4,
	testSequencer: '<rootDir>/test/slowFirstSequencer.js',
	// Each worker reads and compiles n8n's modules once, not once a test file, and where the files share a
	// context evaluates them once (test/workerCacheRuntime.js).
	runtime: '<rootDir>/test/workerCacheRuntime.js',
	setupFiles: ['<rootDir>/test/setupEnv.js'],
	globalSetup: '<rootDir>/test/globalSetup.js',
	reporters: ['default', '<rootDir>/test/summaryReporter.js'],
};

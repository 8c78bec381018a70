/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// The end-to-end checks run a real n8n (npm run test:n8n, test:queue), never under jest.
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	transform: {
		// Type checking is `npm run typecheck`'s job; here esbuild only strips the types (test/transform.js).
		'^.+\\.ts$': '<rootDir>/test/transform.js',
	},
	testTimeout: 60_000,
	// Three workers on the two-core machine: an engine test file spends more of its time waiting (the
	// registry's pace, Retry-After, the breaker's cool-downs) than computing; measured with two workers, the
	// files used about 175 s of CPU in a run that took some 200 s of wall time, so two cores stood half idle.
	maxWorkers: 3,
	testSequencer: '<rootDir>/test/slowFirstSequencer.js',
	setupFiles: ['<rootDir>/test/setupEnv.js'],
	globalSetup: '<rootDir>/test/globalSetup.js',
	reporters: ['default', '<rootDir>/test/summaryReporter.js'],
};

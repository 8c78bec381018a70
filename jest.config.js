/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// The end-to-end checks run a real n8n (npm run test:n8n, test:queue), never under jest.
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	transform: {
		// Type checking is `npm run typecheck`'s job; here ts-jest only transpiles, which keeps runs fast.
		'^.+\\.ts$': ['ts-jest', { diagnostics: false }],
	},
	testTimeout: 60_000,
	// Two workers on the two-core machine (jest's default leaves one core idle: cores - 1): most engine tests
	// wait on loopback HTTP and the registry's pace as much as they compute.
	maxWorkers: 2,
	testSequencer: '<rootDir>/test/slowFirstSequencer.js',
	setupFiles: ['<rootDir>/test/setupEnv.js'],
	reporters: ['default', '<rootDir>/test/summaryReporter.js'],
};

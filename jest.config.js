/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		// Type checking is `npm run typecheck`'s job; here ts-jest only transpiles, which keeps runs fast.
		'^.+\\.ts$': ['ts-jest', { diagnostics: false }],
	},
	testTimeout: 60_000,
	setupFiles: ['<rootDir>/test/setupEnv.js'],
	reporters: ['default', '<rootDir>/test/summaryReporter.js'],
};

// Test order for the mutation run: Stryker runs only the tests that reach a mutant, in band, and stops at
// the first failure. Jest's own order (slowest files first) would start every mutant with the long
// engine runs; here the unit tests go first, then the engine tests, the ones that wait on real time last.
const Sequencer = require('@jest/test-sequencer').default;

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

class FastFirstSequencer extends Sequencer {
	sort(tests) {
		return [...tests].sort((a, b) => rank(a.path) - rank(b.path) || a.path.localeCompare(b.path));
	}
}

module.exports = FastFirstSequencer;

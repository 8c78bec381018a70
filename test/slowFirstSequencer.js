// Test order for `jest`: the files that run longest start first, so that on two workers no long file starts
// last while the other worker idles. Jest's own order does the same from its cache of past durations; this
// list is for a cold cache (CI, a fresh clone), where jest would order by file size.
const Sequencer = require('@jest/test-sequencer').default;

const SLOWEST = [
	'integration/reliability.test.ts',
	'integration/retryOnFail.test.ts',
	'integration/reliability.families.test.ts',
	'integration/faults.test.ts',
	'integration/watch.operation.test.ts',
	'integration/hostileRows.test.ts',
	'integration/lookup.operation.test.ts',
];
const rank = (path) => {
	const index = SLOWEST.findIndex((name) => path.endsWith(name));
	return index === -1 ? SLOWEST.length : index;
};

class SlowFirstSequencer extends Sequencer {
	sort(tests) {
		const cached = super.sort(tests);
		return [...cached].sort((a, b) => rank(a.path) - rank(b.path));
	}
}

module.exports = SlowFirstSequencer;

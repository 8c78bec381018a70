// Test order for `jest`: the files that run longest start first, so that no long file starts last while the
// other workers idle. Jest's own order does the same from its cache of past durations; this
// list is for a cold cache (CI, a fresh clone), where jest would order by file size.
const Sequencer = require('@jest/test-sequencer').default;

const SLOWEST = [
	'integration/faults.test.ts',
	'integration/reliability.test.ts',
	'integration/reliability.families.test.ts',
	'integration/watch.operation.test.ts',
	'integration/retryOnFail.test.ts',
	'integration/watch.memory.test.ts',
	'integration/outage.test.ts',
	'unit/watch/detector.property.test.ts',
	'integration/chaos.test.ts',
	'integration/lookup.operation.test.ts',
	'integration/hostileRows.test.ts',
	'sandbox/hostile.test.ts',
	'integration/trigger.test.ts',
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

// Test order for `jest`: the files that run longest start first, so that no long file starts last while the
// other workers idle. Jest's own order does the same from its cache of past durations; this
// list is for a cold cache (CI, a fresh clone), where jest would order by file size.
const Sequencer = require('@jest/test-sequencer').default;

// In the order of a whole run's per-file times (jest --json, 2026-11-26, a loaded 2-core machine; the two
// trigger files from a quiet fresh clone's run, where trigger.restart.test.ts, unlisted, took 70 s).
const SLOWEST = [
	'integration/trigger.restart.test.ts',
	'integration/reliability.families.test.ts',
	'integration/faults.test.ts',
	'integration/reliability.test.ts',
	'unit/transport/rateLimitSimulation.test.ts',
	'integration/watch.operation.test.ts',
	'integration/retryOnFail.test.ts',
	'unit/transport/rateControl/windowBare.test.ts',
	'integration/trigger.budget.test.ts',
	'integration/lookup.operation.test.ts',
	'integration/watch.storeCapacity.test.ts',
	'unit/watch/detector.property.test.ts',
	'unit/watch/overlap.redteam.test.ts',
	'integration/retryLimits.test.ts',
	'integration/chaos.test.ts',
	'unit/transport/structuredRateLimit.test.ts',
	'integration/outage.test.ts',
	'integration/boundedAnswers.test.ts',
	'integration/hostile.test.ts',
	'unit/transport/rateControl/noInfoWindow.test.ts',
	'unit/transport/rateControl/fullCountBucket.test.ts',
	'integration/hostileRows.test.ts',
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

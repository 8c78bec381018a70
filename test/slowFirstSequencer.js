// Test order for `jest`: the files that run longest start first, so that no long file starts last while the
// other workers idle. Jest's own order does the same from its cache of past durations; this
// list is for a cold cache (CI, a fresh clone), where jest would order by file size.
const Sequencer = require('@jest/test-sequencer').default;

// In the order of a whole run's per-file times (jest --json, 2026-11-26 at 9517530, a heavily loaded 2-core
// machine, load 18 to 28: each time several times a quiet run's). 34 files; the rest follow by jest's order.
const SLOWEST = [
	'integration/reliability.families.test.ts',
	'integration/faults.test.ts',
	'unit/watch/detector.property.test.ts',
	'integration/reliability.test.ts',
	'integration/retryOnFail.test.ts',
	'integration/watch.operation.test.ts',
	'integration/chaos.test.ts',
	'unit/transport/rateControl/windowBare.test.ts',
	'unit/transport/rateLimitSimulation.test.ts',
	'integration/hostileRows.test.ts',
	'integration/watch.storeCapacity.test.ts',
	'integration/lookup.operation.test.ts',
	'unit/watch/overlap.redteam.test.ts',
	'unit/transport/rateControl/slidingLogCount.test.ts',
	'integration/retryLimits.test.ts',
	'integration/outage.test.ts',
	'unit/transport/rateControl/workersWarm.test.ts',
	'unit/transport/structuredRateLimit.test.ts',
	'integration/hostile.test.ts',
	'integration/watch.memory.test.ts',
	'unit/watch/failedChecks.test.ts',
	'unit/transport/rateControl/fullCountBucket.test.ts',
	'unit/transport/rateControl/noInfoWindow.test.ts',
	'integration/trigger.restart.test.ts',
	'unit/transport/rateControl/benchSimClasses.test.ts',
	'integration/trigger.test.ts',
	'integration/boundedAnswers.test.ts',
	'unit/transport/rateLimitDefects.test.ts',
	'unit/transport/rateControl/smallBurstSearch.test.ts',
	'integration/tool.test.ts',
	'unit/model/countries.test.ts',
	'integration/trigger.budget.test.ts',
	'unit/transport/rateControl/workersSharingLimit.test.ts',
	'unit/transport/rateControl/wakeUps.test.ts',
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

// Which tests target each module of the mutation run (npm run test:mutation, or -- --mutate <module>):
// a mutant of a module runs only these, so a module takes minutes instead of the whole suite's hours.
// Every module of OUTCOME_MODULES (stryker.config.mjs) needs an entry: the run names those without one
// and fails. A test that kills a module's mutants belongs in its list: the run says which mutants survive.
// The stories on the pure transition and the virtual-clock controller tests: the rate controller's parts
// that transitions go through are mutated against them.
const STORIES = [
	'test/unit/transport/rateControl/transitions.test.ts',
	'test/unit/transport/rateController.test.ts',
	'test/unit/transport/rateControl/count.edges.test.ts',
	'test/unit/transport/rateControl/window.edges.test.ts',
	'test/unit/transport/rateControl/pace.edges.test.ts',
	'test/unit/transport/rateControl/lyingReset.redteam.test.ts',
	'test/unit/transport/rateControl/transitions.edges.test.ts',
];
// The same, with the tests of the modes, the state and its logs, and the controller's own.
const STATE_STORIES = [
	...STORIES,
	'test/unit/transport/rateControl/modes.test.ts',
	'test/unit/transport/rateControl/state.log.test.ts',
	'test/unit/transport/rateControl/state.test.ts',
	'test/unit/transport/rateControl/controller.test.ts',
];
// The window: its starts and answers (window.ts), its state (windowState.ts), its resets
// (windowReset.ts) and the sliding log taken for one (slidingLog.ts), one module until the transport's
// cap of lines split it; each part against the tests the whole had.
const WINDOW_TESTS = [
	'test/unit/transport/rateControl/transitions.test.ts',
	'test/unit/transport/rateController.test.ts',
	'test/unit/transport/rateControl/window.edges.test.ts',
	// A log's reset and room: the lead's window, ours still in the log.
	'test/unit/transport/rateControl/window.log.test.ts',
];

// The store's memory as a worker has it (the edges), on a main process (the row's mark, its edges and
// red team: overlapping and failing runs), and runs of both. Not the seeded red team (overlap.redteam:
// 300 seeds, 8 s of CPU a jest run).
const STORE_MEMORY_TESTS = [
	'test/unit/watch/processedItemsMemory.edges.test.ts',
	'test/unit/watch/rowMark.test.ts',
	'test/unit/watch/rowMark.edges.test.ts',
	'test/unit/watch/rowMark.redteam.test.ts',
	'test/unit/watch/mixedRuns.test.ts',
	'test/unit/watch/textForms.test.ts',
	// A failed run's undo past its bound (6,000 companies: about a second a jest run).
	'test/unit/watch/undoBound.test.ts',
	// The row emptied since the static data was saved.
	'test/unit/watch/emptiedRow.test.ts',
	// The patches a main process appends, and their reading (storePatches.ts).
	'test/unit/watch/storePatches.test.ts',
];

export const TARGETS = {
	'nodes/shared/model/companyRecord.ts': [
		'test/unit/model/companyRecord.test.ts',
		'test/unit/model/companyRecord.edges.test.ts',
	],
	'nodes/shared/model/lookupKey.ts': [
		'test/unit/model/lookupKey.test.ts',
		'test/unit/model/lookupKey.edges.test.ts',
		'test/unit/model/stateNamedAsCountry.nfkc.test.ts',
	],
	'nodes/shared/transport/registryError.ts': ['test/unit/transport/registryError.test.ts'],
	'nodes/shared/transport/serverMessage.ts': ['test/unit/transport/registryError.test.ts'],
	'nodes/shared/transport/accessToken.ts': [
		'test/unit/transport/accessToken.test.ts',
		// The lookup's cancel signal handed to the token exchange (set by registryRequest.ts, read there).
		'test/integration/credential.refusalWaits.test.ts',
		'test/unit/transport/registryRequest.test.ts',
	],
	// The credential on its own (n8n-core's httpRequest against a loopback token endpoint, milliseconds a
	// case): its engine tests (credentials, credentialTest, tokenRefusals, tokenDeadline: seconds each)
	// made Stryker estimate over an hour for its 214 mutants (67 static) on the shared machine.
	'credentials/CompanyRegistryApi.credentials.ts': [
		'test/integration/credential.exchange.test.ts',
		// The token request tried again after a blip, and not after a refusal (one engine run per case).
		'test/integration/redteam/tokenEndpointBlip.test.ts',
		// An id and a secret pasted with white space, and the secret sent trimmed never shown.
		'test/integration/redteam/credentialPastedWhiteSpace.test.ts',
		// The token endpoint's OAuth code before its headers, its Retry-After against the time left, the
		// wait ended by the lookup's cancel (the reviewer's cases, loopback, milliseconds a case).
		'test/integration/credential.refusalWaits.test.ts',
	],
	// The watch's change detection and memory, against the unit tests that call them directly. The seeded
	// property tests (detector.property, failedChecks' 200 seeds: 35-60 s each on the loaded machine) reach
	// every mutant, so each mutant would cost a minute: the edge tests say the same case by case.
	'nodes/shared/watch/detector.ts': ['test/unit/watch/detector.edges.test.ts'],
	'nodes/shared/watch/snapshot.ts': [
		'test/unit/watch/snapshot.test.ts',
		'test/unit/watch/snapshot.edges.test.ts',
		'test/unit/watch/detector.edges.test.ts',
		'test/unit/watch/textForms.test.ts',
	],
	'nodes/shared/watch/failedChecks.ts': ['test/unit/watch/failedChecks.edges.test.ts'],
	// Retry On Fail's earlier tries (its engine test, watch.operation's, loads the whole engine).
	'nodes/shared/watch/earlierTries.ts': ['test/unit/watch/earlierTries.test.ts'],
	'nodes/shared/watch/memory.ts': [
		'test/unit/watch/snapshot.test.ts',
		'test/unit/watch/detector.edges.test.ts',
		'test/unit/watch/rowMark.test.ts',
		'test/unit/watch/rowMark.redteam.test.ts',
		// Static data saved with the store's row: not the memory of the row emptied since.
		'test/unit/watch/emptiedRow.test.ts',
	],
	// The store's memory and its parts (the row and its undo, the entries, the blocks, the questions),
	// each against the same tests: the store's memory is the only caller of its parts.
	'nodes/shared/watch/processedItemsMemory.ts': STORE_MEMORY_TESTS,
	'nodes/shared/watch/storeRow.ts': STORE_MEMORY_TESTS,
	'nodes/shared/watch/storeEntries.ts': STORE_MEMORY_TESTS,
	'nodes/shared/watch/storeBlocks.ts': STORE_MEMORY_TESTS,
	'nodes/shared/watch/storeQuestions.ts': STORE_MEMORY_TESTS,
	'nodes/shared/watch/storePatches.ts': STORE_MEMORY_TESTS,
	// Runs taking turns over the store: its stories on virtual time, and the red team that runs them.
	'nodes/shared/watch/storeTurns.ts': [
		'test/unit/watch/storeTurns.test.ts',
		'test/unit/watch/storeTurns.edges.test.ts',
		'test/unit/watch/storeTurns.redteam.test.ts',
		'test/unit/watch/overlap.redteam.test.ts',
	],
	// The retry policy and the decision after each try: pure, on an injected clock.
	'nodes/shared/transport/retryPolicy.ts': [
		'test/unit/transport/retryPolicy.test.ts',
		'test/unit/transport/retry.edges.test.ts',
	],
	'nodes/shared/transport/retryDecision.ts': [
		'test/unit/transport/retryDecision.test.ts',
		'test/unit/transport/retry.edges.test.ts',
	],
	// How an answer is read (a refusal for the rate limit by 429, 420 or 403; what it tells the
	// controller): pure, against its unit tests and the batch runner's on the virtual clock.
	'nodes/shared/transport/answerReport.ts': [
		'test/unit/transport/rateLimitRefusal.test.ts',
		'test/unit/transport/batchRunner.test.ts',
		'test/unit/transport/headers/registryClockReset.test.ts',
	],
	// Retry-After read (delay-seconds, an HTTP date, by the registry's clock where it is off ours): pure,
	// against its unit tests and the answer's report that reads it.
	'nodes/shared/transport/retryAfter.ts': [
		'test/unit/transport/retryAfter.test.ts',
		'test/unit/transport/rateLimitRefusal.test.ts',
	],
	// One execution's lookups (the breaker, the controller, the token's renewal, each answer read): the
	// batch runner against a stand-in for the HTTP call, on the virtual clock, and the pipeline's rows
	// against a stand-in for n8n's request helper.
	// An execution the registry admits nothing of for its wait: the transition, and the session giving up.
	'nodes/shared/transport/refusalStreak.ts': [
		'test/unit/transport/refusalStreak.test.ts',
		'test/unit/transport/lookupSession.edges.test.ts',
	],
	'nodes/shared/transport/lookupSession.ts': [
		// What each kind of answer makes of its row; the token, the retry budget, the credential read again.
		'test/unit/transport/lookupSession.test.ts',
		// Its edges the mutation run showed untold: a stop while lookups queue, the controller let go of,
		// the wait budget against the controller's pause, stale 401s, late refusals.
		'test/unit/transport/lookupSession.edges.test.ts',
		// The breaker's half-open probe: held by the rate limit, given back unsent, told to resend, its
		// credential failing, and what the rows waiting for its verdict then do.
		'test/unit/transport/lookupSession.probe.test.ts',
		// A renewal that begins as other lookups get their turn: what the registry and a window are told.
		'test/unit/transport/lookupSession.renewalTurn.test.ts',
		// A renewal takes the execution's next start, not a place behind its queued lookups (setAside).
		'test/unit/transport/renewalBehindQueue.redteam.test.ts',
		'test/unit/transport/batchRunner.test.ts',
		'test/unit/lookupPipeline.rows.test.ts',
	],
	// The one HTTP call against a stand-in for n8n's request helpers (what it asks for, each answer and
	// failure read, the deadline), and the pipeline's rows against one that renews the token as n8n does.
	'nodes/shared/transport/registryRequest.ts': [
		'test/unit/transport/registryRequest.test.ts',
		'test/unit/lookupPipeline.rows.test.ts',
	],
	// JSON read as the registry wrote it: its own unit tests (pure).
	'nodes/shared/transport/exactJson.ts': ['test/unit/transport/exactJson.test.ts'],
	// The pipeline's routing: its unit tests, and the rows that are looked up against a stand-in for n8n's
	// request helper (lookupPipeline.rows). The router's engine test killed no mutant of it the unit tests
	// did not (run of this session), and loading it cost every mutant seconds.
	'nodes/shared/lookupPipeline.ts': [
		'test/unit/lookupPipeline.test.ts',
		'test/unit/lookupPipeline.edges.test.ts',
		'test/unit/lookupPipeline.rows.test.ts',
		// The client secret as sent (trimmed) is redacted too: a short one is removed only where written whole.
		'test/integration/redteam/credentialPastedWhiteSpace.test.ts',
		// The credential read again at a token renewal: a secret rotated mid-run, a Base URL changed mid-run.
		'test/integration/redteam/secretRotated.test.ts',
	],
	// The execution's cancel signal of an n8n context, read and given: its unit tests on stand-ins (the
	// check against n8n-core's own contexts loads n8n-core, seconds a mutant, and tells the same cases).
	'nodes/shared/executionCancelSignal.ts': ['test/unit/executionCancelSignal.test.ts'],
	// The rate controller: each part against its unit tests on pure functions or the virtual clock (no
	// engine runs, no seeded simulations: those reach every mutant and would cost each one seconds).
	// rateLimited.ts and transitions.ts: against the stories on the pure transition (the count's, the
	// window's and the pace's edge tests go through them) and the virtual-clock controller tests.
	'nodes/shared/transport/rateControl/headers/*.ts': [
		'test/unit/transport/headers/countHeaders.test.ts',
		'test/unit/transport/headers/ietfStructured.test.ts',
		'test/unit/transport/headers/readRateLimitHeaders.test.ts',
		'test/unit/transport/headers/countHeaders.edges.test.ts',
		'test/unit/transport/headers/ietfStructured.edges.test.ts',
		'test/unit/transport/headers/structuredList.edges.test.ts',
		// The registry's clock (registryClock.ts): a reset as Unix time, and a Retry-After date, read by it.
		'test/unit/transport/headers/registryClockReset.test.ts',
		'test/unit/transport/retryAfter.test.ts',
	],
	'nodes/shared/transport/rateControl/count.ts': [
		'test/unit/transport/rateControl/transitions.test.ts',
		'test/unit/transport/rateController.test.ts',
		'test/unit/transport/rateControl/count.edges.test.ts',
		// othersSpend at its edges and the pace it marks shared, at unit speed (workersQuotaCount runs three
		// workers on the sim: seconds a mutant).
		'test/unit/transport/rateControl/othersSpend.test.ts',
		// A count the registry admits requests past, at its edges; its stories and the guards on the sim
		// (a second each).
		'test/unit/transport/rateControl/countAdmitted.test.ts',
		'test/unit/transport/rateControl/countOverrun.test.ts',
		'test/unit/transport/rateControl/guards.test.ts',
	],
	'nodes/shared/transport/rateControl/window.ts': WINDOW_TESTS,
	'nodes/shared/transport/rateControl/windowState.ts': WINDOW_TESTS,
	'nodes/shared/transport/rateControl/windowReset.ts': WINDOW_TESTS,
	'nodes/shared/transport/rateControl/slidingLog.ts': WINDOW_TESTS,
	'nodes/shared/transport/rateControl/pace.ts': [
		'test/unit/transport/rateControl/transitions.test.ts',
		'test/unit/transport/rateController.test.ts',
		'test/unit/transport/rateControl/pace.edges.test.ts',
		'test/unit/transport/rateControl/probe.edges.test.ts',
		'test/unit/transport/rateControl/windowStormPause.test.ts',
		'test/unit/transport/rateControl/firstWaveLateAnswers.test.ts',
		'test/unit/transport/rateControl/workersProbe.test.ts',
		// The search up from a first wave's rate, by the work left.
		'test/unit/transport/rateControl/burstBucketSearch.edges.test.ts',
		// The wave that ends a search from a first wave that admitted one.
		'test/unit/transport/rateControl/slowBurstOneBucket.edges.test.ts',
		// A quota others spend: the pace probes by time (pace.shared).
		'test/unit/transport/rateControl/othersSpend.test.ts',
		// The search per round trip.
		'test/unit/transport/rateControl/search.edges.test.ts',
		// Searching on past a ceiling that a wave after the search read as a floor.
		'test/unit/transport/rateControl/searchWave.edges.test.ts',
		// The review's stories (s40): admissions since the last wave, a shared pace's end, 'overshot''s end and growth.
		'test/unit/transport/rateControl/controllerMerges.review.test.ts',
	],
	// The search from a lower bound: its growth, when it goes per round trip, the ceiling its wave sets.
	'nodes/shared/transport/rateControl/search.ts': [
		'test/unit/transport/rateControl/search.edges.test.ts',
		'test/unit/transport/rateControl/burstBucketSearch.edges.test.ts',
		'test/unit/transport/rateControl/slowBurstOneBucket.edges.test.ts',
		'test/unit/transport/rateControl/transitions.test.ts',
		// The waves after a search per round trip.
		'test/unit/transport/rateControl/searchWave.edges.test.ts',
		// The review's stories (s40): admissions since the last wave, a shared pace's end, 'overshot''s end and growth.
		'test/unit/transport/rateControl/controllerMerges.review.test.ts',
		// Any later wave ends the first wave's measure (laterWave).
		'test/unit/transport/rateControl/firstWaveLateAnswers.test.ts',
	],
	'nodes/shared/transport/rateControl/rateLimited.ts': [
		...STORIES,
		'test/unit/transport/rateControl/windowTurnAsk.test.ts',
		'test/unit/transport/rateControl/jitter.test.ts',
		'test/unit/transport/rateControl/rateLimited.quota.test.ts',
		'test/unit/transport/rateControl/rateLimited.waves.test.ts',
		'test/unit/transport/rateControl/rateLimited.budget.test.ts',
		'test/unit/transport/rateControl/rateLimited.admitted.test.ts',
		'test/unit/transport/rateControl/spellAdmitted.test.ts',
		'test/unit/transport/rateControl/firstWaveLateAnswers.test.ts',
		'test/unit/transport/rateControl/slowBurstOneBucket.edges.test.ts',
		'test/unit/transport/rateControl/othersRefusal.test.ts',
		// The waves after a search per round trip.
		'test/unit/transport/rateControl/searchWave.edges.test.ts',
		// The review's stories (s40): admissions since the last wave, a shared pace's end, 'overshot''s end and growth.
		'test/unit/transport/rateControl/controllerMerges.review.test.ts',
		// What a wave reads admitted at its edges: a spell's count and span, the last second's start.
		'test/unit/transport/rateControl/admittedRate.edges.test.ts',
	],
	'nodes/shared/transport/rateControl/transitions.ts': [
		...STORIES,
		'test/unit/transport/rateControl/windowTurnAsk.test.ts',
		// A refuted window remembered, the admitted log's span, the quiet answers the probe counts.
		'test/unit/transport/rateControl/rateLimited.budget.test.ts',
		'test/unit/transport/rateControl/rateLimited.admitted.test.ts',
		'test/unit/transport/rateControl/probe.edges.test.ts',
		// The 429's phase handed on.
		'test/unit/transport/rateControl/jitter.test.ts',
		// The first wave's late answers measured before a climb.
		'test/unit/transport/rateControl/firstWaveLateAnswers.test.ts',
		// The slow start a count of one or none makes, and its end at the first 429.
		'test/unit/transport/rateControl/slowStart.test.ts',
		// Others spending a quota's count mark the pace shared (count.ts's rule, applied here).
		'test/unit/transport/rateControl/othersSpend.test.ts',
		// What was admitted over the last second, for the search per round trip.
		'test/unit/transport/rateControl/search.edges.test.ts',
		// Successes only count as admissions for it (a burst of 503s shows no refill).
		'test/unit/transport/rateControl/searchAdmissions.test.ts',
		// The admitted log kept to the 5 s its readers count, over a long run.
		'test/unit/transport/rateControl/admittedLog.test.ts',
		// The review's stories (s40): admissions since the last wave, a shared pace's end, 'overshot''s end and growth.
		'test/unit/transport/rateControl/controllerMerges.review.test.ts',
		// The first wave's lead a sliding log is seeded from (its first admitted answer before any 429).
		'test/unit/transport/rateControl/window.log.test.ts',
	],
	// A count that said it holds one or none, before any 429: its stories on the pure transition.
	'nodes/shared/transport/rateControl/slowStart.ts': [
		'test/unit/transport/rateControl/slowStart.test.ts',
	],
	// The modes, the state and what transitions tell (actions, their logs, the tuned figures): against the
	// same stories and controller tests as the transitions that read and write them, and their own tests
	// (one list for all five, so that one run can mutate them together).
	'nodes/shared/transport/rateControl/modes.ts': [
		...STATE_STORIES,
		'test/unit/transport/rateControl/windowTurnAsk.test.ts',
		'test/unit/transport/rateControl/slowStart.test.ts',
	],
	'nodes/shared/transport/rateControl/state.ts': [
		...STATE_STORIES,
		'test/unit/transport/rateControl/slowStart.test.ts',
		// A bare window's learned turn kept from one transition's copy of the state to the next (copyState).
		'test/unit/transport/rateControl/windowTurn.test.ts',
	],
	'nodes/shared/transport/rateControl/actions.ts': [
		...STATE_STORIES,
		'test/unit/transport/rateControl/actions.test.ts',
	],
	'nodes/shared/transport/rateControl/log.ts': [...STATE_STORIES],
	'nodes/shared/transport/rateControl/constants.ts': [
		...STATE_STORIES,
		// SHARED_QUIET_MS: a shared pace's end, to the ms.
		'test/unit/transport/rateControl/controllerMerges.review.test.ts',
	],
	// The sharing between executions: the controller on the virtual clock.
	'nodes/shared/transport/rateControl/controller.ts': [
		'test/unit/transport/rateController.test.ts',
		'test/unit/transport/rateControl/controller.test.ts',
		'test/unit/transport/rateControl/jitter.test.ts',
		// A token renewal sets the execution's queue aside (no permit, no start spent).
		'test/unit/transport/rateControl/setAside.test.ts',
	],
	// Workers sharing one limit (what a 429 wave does for them) and the chance that separates them: the
	// stories on the pure transition and the controller drawing from the Random it was given.
	'nodes/shared/transport/rateControl/workers.ts': [
		...STORIES,
		'test/unit/transport/rateControl/jitter.test.ts',
		'test/unit/transport/rateControl/rateLimited.waves.test.ts',
		'test/unit/transport/rateControl/othersRefusal.test.ts',
		// The review's stories (s40): admissions since the last wave, a shared pace's end, 'overshot''s end and growth.
		'test/unit/transport/rateControl/controllerMerges.review.test.ts',
		// A first wave's late admissions, measured at the next wave (nothingAdmittedSince), and their class
		// on the simulator (a fixed window 300 ms away: a fifth of a second a jest run).
		'test/unit/transport/rateControl/firstWaveLateAnswers.test.ts',
		'test/unit/transport/rateControl/firstWaveLateAnswers.class.test.ts',
	],
	// A bare window's turn, learned from its refusals and admissions (bare3): its unit tests, the story of a
	// storm paused until the learned turn, and the stories on the pure transition that go through it. Not
	// windowBare (six phases of the bare window on the simulator: 26 s a jest run on the loaded machine,
	// sorted before windowTurn.test, so every mutant paid for it: over an hour for 136); the edge tests
	// say its cases one by one.
	'nodes/shared/transport/rateControl/windowTurn.ts': [
		...STORIES,
		'test/unit/transport/rateControl/windowTurn.test.ts',
		'test/unit/transport/rateControl/windowTurn.edges.test.ts',
		'test/unit/transport/rateControl/windowStormPause.test.ts',
		// The first pause asked halfway (bare4).
		'test/unit/transport/rateControl/windowTurnAsk.test.ts',
	],
	// A storm's pause (bare3, out of rateLimited.ts): until the Retry-After, capped and doubling, else the
	// learned turn, else a guess; the stories that reach it (not windowBare, as above).
	// The first pause asked halfway (bare4): its end, and the ask refused.
	'nodes/shared/transport/rateControl/firstAsk.ts': [
		...STORIES,
		'test/unit/transport/rateControl/windowTurnAsk.test.ts',
		// The ask refused: the pause's spell kept for the admitted rate.
		'test/unit/transport/rateControl/rateLimited.admitted.test.ts',
		'test/unit/transport/rateControl/rateLimited.waves.test.ts',
	],
	'nodes/shared/transport/rateControl/storm.ts': [
		...STORIES,
		'test/unit/transport/rateControl/windowTurn.test.ts',
		'test/unit/transport/rateControl/windowStormPause.test.ts',
		// A storm's Retry-After, capped, and the pause it asks of everybody.
		'test/unit/transport/rateControl/rateLimited.quota.test.ts',
		'test/unit/transport/rateControl/actions.test.ts',
	],
	'nodes/shared/transport/rateControl/random.ts': [
		'test/unit/transport/rateControl/jitter.test.ts',
	],
};

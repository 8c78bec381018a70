import { othersSpend } from '../../../../nodes/shared/transport/rateControl/count';
import {
	MIN_ANSWERS_FOR_RATE,
	OTHERS_REFUSAL_ANSWERS,
	SHARED_QUIET_MS,
} from '../../../../nodes/shared/transport/rateControl/constants';
import { climb, unknownPace } from '../../../../nodes/shared/transport/rateControl/pace';
import type { PaceState } from '../../../../nodes/shared/transport/rateControl/paceState';
import {
	unknownRegistry,
	type ControlState,
} from '../../../../nodes/shared/transport/rateControl/state';
import { transition } from '../../../../nodes/shared/transport/rateControl/transitions';
import { loneRefusal, ok, play, refused, send, type Step, rateOf } from './story';

// Review (s40) of the two controller merges (cb13b0a procs, 796f600 ceiling): stories that fail on
// 796f600, each red on main (ec977bb) before its fix (branch `fixctl`, one commit a find).

describe('review: othersRefusal counts answers, not admissions (workers.ts:75, rateLimited.ts:67)', () => {
	it('four admissions and a 503 are not five admissions: cut to the rate admitted, as after four', () => {
		expect(OTHERS_REFUSAL_ANSWERS).toBe(5);
		const four = loneRefusal(3, 4, 0);
		expect(four.after).toBeLessThan(0.8 * four.before);
		const withFault = loneRefusal(3, 4, 1);
		expect(withFault.after).toBeLessThan(0.8 * withFault.before);
	});
});

// searchWave.edges.test's pace after a search per round trip: its wave at 10 s, met again at 30/s.
const after = (searchSpell: PaceState['searchSpell'], shared = false): PaceState => ({
	...unknownPace(),
	rate: 30,
	ceiling: 30,
	floorRate: 3,
	searchSpell,
	searchEndedAt: 10_000,
	shared,
});
const lately = { latencyMs: 40, admittedLastSecond: 30 };

describe("review: 'overshot' searches on slower than the probe it replaces (pace.ts:229-236)", () => {
	it('a pace others spend: 25% a second, where after any other wave it grows 30% a second', () => {
		const overshot = after('overshot', true);
		const ended = after('ended', true);
		climb(overshot, 3_000, { answers: 1, ms: 40 }, lately);
		climb(ended, 3_000, { answers: 1, ms: 40 }, lately);
		expect(overshot.rate).toBeGreaterThanOrEqual(ended.rate!);
	});
	it('a long quiet spell with no wave: held at 25% a second, where the probe doubles towards 100%', () => {
		const overshot = after('overshot');
		const ended = after('ended');
		// 10 s and 500 admissions with no wave: the limit is no longer where the search met it.
		climb(overshot, 30_000, { answers: 500, ms: 10_000 }, lately);
		climb(ended, 30_000, { answers: 500, ms: 10_000 }, lately);
		expect(overshot.rate).toBeGreaterThanOrEqual(ended.rate!);
	});
});

describe("review: 'overshot' outlives the next wave when a storm takes it (rateLimited.ts:134-169)", () => {
	// searchWave.edges.test's controller searching per round trip at 60/s, its first wave at 5 s.
	const searching: ControlState = {
		...unknownRegistry(),
		inFlight: 4,
		latencyMs: 14,
		lastEventAt: 5_000,
		lastCongestionAt: 5_000,
		pace: {
			...unknownPace(),
			rate: 60,
			lowerBound: 3,
			floorRate: 2.85,
			searchSpell: 'perRoundTrip',
		},
	};
	const wave = (state: ControlState, sentAt: number, at: number) =>
		transition(state, { kind: 'rateLimited', report: { sentAt, status: 429 } }, at).state;

	it('refused wave after wave with nothing admitted (a quota or window behind the bucket): the wave 1.5 s on ends it', () => {
		const ended = wave(searching, 9_990, 10_000);
		const second = wave(ended, 10_200, 10_210);
		expect(second.pace.searchSpell).toBe('overshot');
		const storm = wave(second, 10_300, 10_310);
		expect(storm.stormLevel).toBe(1);
		// After the storm's pause, refused again, 1.5 s past the search: not a second the search climbed in.
		const later = wave(storm, storm.pausedUntil + 10, storm.pausedUntil + 20);
		expect(later.lastEventAt).toBe(storm.pausedUntil + 20);
		expect(later.pace.searchSpell).not.toBe('overshot');
	});
});

describe('review: a pace stays `shared` after the others stopped spending (transitions.ts:139, workers.ts:76)', () => {
	it('the quota falls by one an answer for 10 s (othersSpend: false): a 429 after 40 admissions is cut as one process', () => {
		let remaining = 4_000;
		const told = (fall: number) => ({ remaining: (remaining -= fall) });
		const steps: Step[] = [];
		for (let index = 0; index < MIN_ANSWERS_FOR_RATE - 1; index++)
			steps.push(send(1_000 + 10 * index));
		for (let index = 0; index < MIN_ANSWERS_FOR_RATE - 1; index++)
			steps.push(ok(1_000 + 10 * index, 1_050 + 10 * index, told(3)));
		steps.push(send(1_100), refused(1_100, 1_150, { retryAfterMs: 1_000, remaining }));
		for (let index = 0; index < 20; index++) {
			const at = 3_000 + 50 * index;
			steps.push(send(at), ok(at, at + 10, told(3)));
		}
		steps.push(send(4_000), refused(4_000, 4_010, { remaining }));
		const spent = play(steps).state;
		expect(spent.pace.shared).toBe(true);
		// The others are gone: 40 admissions over 10 s, the quota falling by one each.
		const alone: Step[] = [];
		let at = 5_500;
		for (let index = 0; index < 40; index++) {
			alone.push(send(at), ok(at, at + 10, told(1)));
			at += 250;
		}
		const state = play(alone, spent).state;
		// What the count says now: ours alone, for longer than SHARED_QUIET_MS: the pace is no longer shared.
		expect(othersSpend(state.count)).toBe(false);
		expect(state.pace.shared).toBe(false);
		const before = rateOf(state, at);
		const after = rateOf(play([send(at), refused(at, at + 1, { remaining })], state).state, at + 1);
		// othersRefusal.test's "one process" case: cut to the rate admitted (4/s), well under one decrease.
		expect(after).toBeLessThan(0.8 * before);
	});
	it('quiet for less than SHARED_QUIET_MS (5 s): still shared, a moment of ours alone among workers is no end', () => {
		let remaining = 4_000;
		const steps: Step[] = [];
		for (let index = 0; index < MIN_ANSWERS_FOR_RATE - 1; index++)
			steps.push(send(1_000 + 10 * index));
		for (let index = 0; index < MIN_ANSWERS_FOR_RATE - 1; index++)
			steps.push(ok(1_000 + 10 * index, 1_050 + 10 * index, { remaining: (remaining -= 3) }));
		steps.push(send(1_100), refused(1_100, 1_150, { retryAfterMs: 1_000, remaining }));
		for (let index = 0; index < 20; index++) {
			const at = 3_000 + 50 * index;
			steps.push(send(at), ok(at, at + 10, { remaining: (remaining -= 3) }));
		}
		steps.push(send(4_000), refused(4_000, 4_010, { remaining }));
		for (let index = 0; index < 20; index++) {
			const at = 5_500 + 250 * index;
			steps.push(send(at), ok(at, at + 10, { remaining: (remaining -= 1) }));
		}
		const state = play(steps).state;
		expect(othersSpend(state.count)).toBe(false);
		expect(state.othersSpentAt).toBeGreaterThan(10_260 - SHARED_QUIET_MS);
		expect(state.pace.shared).toBe(true);
		// One more of ours alone, a ms before SHARED_QUIET_MS since the others' last fall, and at it.
		const quietAt = state.othersSpentAt + SHARED_QUIET_MS;
		const oneMore = (at: number) =>
			play([send(at - 10), ok(at - 10, at, { remaining: remaining - 1 })], state).state;
		expect(oneMore(quietAt - 1).pace.shared).toBe(true);
		expect(oneMore(quietAt).pace.shared).toBe(false);
	});
});

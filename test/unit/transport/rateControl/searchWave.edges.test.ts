import { climb, unknownPace } from '../../../../nodes/shared/transport/rateControl/pace';
import type { PaceState } from '../../../../nodes/shared/transport/rateControl/paceState';
import { searchWave } from '../../../../nodes/shared/transport/rateControl/search';
import { unknownRegistry } from '../../../../nodes/shared/transport/rateControl/state';
import { transition } from '../../../../nodes/shared/transport/rateControl/transitions';

// The waves after a search per round trip at their edges (search.ts searchWave, pace.ts climb): a
// search's wave at 10 s, and later waves met at 30/s, the registry having admitted `admitted` over the
// last second.
const after = (searchSpell: PaceState['searchSpell']): PaceState => ({
	...unknownPace(),
	rate: 30,
	ceiling: 30,
	floorRate: 3,
	searchSpell,
	searchEndedAt: 10_000,
});

describe('searchWave: where a wave stands after a search per round trip', () => {
	it('the wave that ends a search per round trip marks it ended, when it came', () => {
		const pace = {
			...unknownPace(),
			rate: 60,
			lowerBound: 3,
			searchSpell: 'perRoundTrip' as const,
		};
		searchWave(pace, { now: 10_000, rate: 60, admitted: 15 });
		expect(pace.searchSpell).toBe('ended');
		expect(pace.searchEndedAt).toBe(10_000);
	});
	it('a search that doubled per second only (no refill shown) ends with nothing marked', () => {
		const pace = { ...unknownPace(), rate: 60, lowerBound: 3, searchSpell: undefined };
		searchWave(pace, { now: 10_000, rate: 60, admitted: 15 });
		expect(pace.searchSpell).toBeUndefined();
		expect(pace.searchEndedAt).toBe(10_000);
	});
	it('a wave within half a second of the search, admitting less than 0.95 of its pace: overshot', () => {
		for (const from of ['ended', 'overshot'] as const) {
			const pace = after(from);
			searchWave(pace, { now: 10_499, rate: 30, admitted: 28.4 });
			expect(pace.searchSpell).toBe('overshot');
		}
	});
	it('half a second or more after the search, or admitting 0.95 of the pace, or no search: nothing', () => {
		// At 858 ms, three workers at 110/s burst 1 (bench:sim s86): another's token, not the search's second.
		for (const now of [10_500, 10_858]) {
			const later = after('ended');
			searchWave(later, { now, rate: 30, admitted: 10 });
			expect(later.searchSpell).toBeUndefined();
		}
		const later = after('ended');
		searchWave(later, { now: 11_000, rate: 30, admitted: 10 });
		expect(later.searchSpell).toBeUndefined();
		const held = after('ended');
		searchWave(held, { now: 10_400, rate: 30, admitted: 28.5 });
		expect(held.searchSpell).toBeUndefined();
		const none = after(undefined);
		searchWave(none, { now: 10_400, rate: 30, admitted: 10 });
		expect(none.searchSpell).toBeUndefined();
		// The wave's searchEndedAt stays the search's.
		expect(later.searchEndedAt).toBe(10_000);
	});
});

describe('climb after an overshot search: it searches on past the ceiling at once', () => {
	const lately = { latencyMs: 40, admittedLastSecond: 30 };
	it('25% a second from the first answer, where after other waves a short sheet waits 50 quiet answers', () => {
		const overshot = after('overshot');
		climb(overshot, 300, { answers: 1, ms: 40 }, lately);
		expect(overshot.rate).toBeCloseTo(30 * 1.25 ** (1 / 30), 9);
		const ended = after('ended');
		climb(ended, 300, { answers: 1, ms: 40 }, lately);
		expect(ended.rate).toBe(30);
	});
	it('past 50 quiet answers, 25% a second, not the probe (2% a second)', () => {
		const overshot = after('overshot');
		climb(overshot, 300, { answers: 60, ms: 5_000 }, lately);
		expect(overshot.rate).toBeCloseTo(30 * 1.25 ** (1 / 30), 9);
	});
});

describe('a 429 (transition) after a search per round trip at 60/s, its first wave at 5 s', () => {
	const searching = {
		...unknownRegistry(),
		inFlight: 2,
		latencyMs: 14,
		lastEventAt: 5_000,
		lastCongestionAt: 5_000,
		pace: {
			...unknownPace(),
			rate: 60,
			lowerBound: 3,
			floorRate: 2.85,
			searchSpell: 'perRoundTrip' as const,
		},
	};
	const refused = (sentAt: number) => ({
		kind: 'rateLimited' as const,
		report: { sentAt, status: 429 },
	});
	it('ends it at the wave, and the next wave within a second, nothing admitted since, overshot it', () => {
		const ended = transition(searching, refused(9_990), 10_000).state;
		expect(ended.pace.searchSpell).toBe('ended');
		expect(ended.pace.searchEndedAt).toBe(10_000);
		const overshot = transition(ended, refused(10_200), 10_210).state;
		expect(overshot.pace.searchSpell).toBe('overshot');
		// The wave's pace: what was admitted (nothing) at most halves it.
		expect(overshot.pace.rate).toBeCloseTo(ended.pace.rate! / 2, 9);
	});
});

describe('climb marks a search per round trip, and only that', () => {
	// Searching up from 10/s, a first wave that admitted 4 (more than 8 a second shows a refill).
	const searching = (): PaceState => ({
		...unknownPace(),
		rate: 10,
		lowerBound: 10,
		floorRate: 9.5,
		firstWave: {
			at: 0,
			told: 4,
			answers: 4,
			admittedAfter: 0,
			rateSpanMs: 1000,
			boundSpanMs: 1000,
			activeMs: 1000,
		},
	});
	const quiet = { answers: 3, ms: 3_000 };
	it('per round trip (9 admitted within the second): perRoundTrip', () => {
		const pace = searching();
		climb(pace, 1000, quiet, { latencyMs: 40, admittedLastSecond: 9 });
		expect(pace.searchSpell).toBe('perRoundTrip');
	});
	it('per second (8 admitted): nothing', () => {
		const pace = searching();
		climb(pace, 1000, quiet, { latencyMs: 40, admittedLastSecond: 8 });
		expect(pace.searchSpell).toBeUndefined();
	});
});

import { append, emptyLog } from '../../../../nodes/shared/transport/rateControl/log';
import { unknownRegistry } from '../../../../nodes/shared/transport/rateControl/state';
import { transition } from '../../../../nodes/shared/transport/rateControl/transitions';
import { climb, unknownPace } from '../../../../nodes/shared/transport/rateControl/pace';
import type { PaceState } from '../../../../nodes/shared/transport/rateControl/paceState';
import { refillShown } from '../../../../nodes/shared/transport/rateControl/search';

// The search per round trip at its edges (search.ts refillShown, pace.ts climb): a pace searching up
// from a first wave that admitted `told` at once, and what the registry admitted over the last second.
const searching = (rate: number, told: number, admittedAfter = 0): PaceState => ({
	...unknownPace(),
	rate,
	lowerBound: rate,
	floorRate: 0.95 * rate,
	firstWave: {
		at: 0,
		told,
		answers: told,
		admittedAfter,
		rateSpanMs: 1000,
		boundSpanMs: 1000,
		activeMs: 1000,
	},
});
const quiet = { answers: 3, ms: 3_000 };

describe('refillShown: the registry admitted in a second what no window of the first wave budget would', () => {
	it('more than twice the first wave and more than twice REFILL_SHOWN_MIN_BURST (2)', () => {
		expect(refillShown(searching(5, 1), { latencyMs: 40, admittedLastSecond: 5 })).toBe(true);
		expect(refillShown(searching(5, 1), { latencyMs: 40, admittedLastSecond: 4 })).toBe(false);
		// A first wave of 4: more than 8.
		expect(refillShown(searching(5, 4), { latencyMs: 40, admittedLastSecond: 9 })).toBe(true);
		expect(refillShown(searching(5, 4), { latencyMs: 40, admittedLastSecond: 8 })).toBe(false);
		// A first wave of 5 (3 by the 429, 2 after): more than 10.
		expect(refillShown(searching(5, 3, 2), { latencyMs: 40, admittedLastSecond: 11 })).toBe(true);
		expect(refillShown(searching(5, 3, 2), { latencyMs: 40, admittedLastSecond: 10 })).toBe(false);
	});
	it('only while searching from a lower bound, before any later wave', () => {
		const lately = { latencyMs: 40, admittedLastSecond: 50 };
		expect(refillShown({ ...searching(5, 1), ceiling: 5 }, lately)).toBe(false);
		expect(refillShown({ ...searching(5, 1), lowerBound: undefined }, lately)).toBe(false);
		expect(refillShown({ ...searching(5, 1), firstWave: undefined }, lately)).toBe(false);
	});
});

describe('climb, searching per round trip', () => {
	it('doubles over 4 answers where the round trip holds fewer, else per round trip', () => {
		const fast = searching(10, 4);
		climb(fast, 1000, quiet, { latencyMs: 40, admittedLastSecond: 9 });
		expect(fast.rate).toBeCloseTo(10 * 2 ** (1 / 4), 9);
		// The step before is kept (the wave that ends the search goes by it), whatever the burst.
		expect(fast.stepFrom).toBe(10);
		const longTrip = searching(10, 4);
		climb(longTrip, 1000, quiet, { latencyMs: 800, admittedLastSecond: 9 });
		expect(longTrip.rate).toBeCloseTo(10 * 2 ** (1 / 8), 9);
	});
	it('per second where the registry showed no refill', () => {
		const slow = searching(10, 4);
		climb(slow, 1000, quiet, { latencyMs: 40, admittedLastSecond: 8 });
		expect(slow.rate).toBeCloseTo(10 * 2 ** (1 / 10), 9);
		expect(slow.stepFrom).toBeUndefined();
	});
});

describe('an answer to a search (transition): what was admitted over the last second, no earlier', () => {
	const now = 100_000;
	// A search at 10/s from a first wave that admitted 4, 40 ms away; admitted earlier at `ago` ms.
	const answeredAfter = (ago: number[]): number => {
		let admitted = emptyLog<{ at: number; sentAt: number; succeeded: boolean }>();
		for (const back of ago)
			admitted = append(admitted, { at: now - back, sentAt: now - back - 40, succeeded: true });
		const state = {
			...unknownRegistry(),
			inFlight: 1,
			latencyMs: 40,
			lastEventAt: 0,
			admitted,
			pace: { ...searching(10, 4), firstWave: { ...searching(10, 4).firstWave!, at: 0 } },
		};
		const report = { sentAt: now - 40, status: 200 };
		return transition(state, { kind: 'answered', report, workLeft: 1000 }, now).state.pace.rate!;
	};
	const perRoundTrip = 10 * 2 ** (1 / 4);
	const perSecond = 10 * 2 ** (1 / 10);
	it('eight within the second and this answer: more than eight, per round trip', () => {
		expect(answeredAfter([900, 800, 700, 600, 500, 400, 300, 200])).toBeCloseTo(perRoundTrip, 9);
	});
	it('one of them a second ago exactly, or more: not within it', () => {
		expect(answeredAfter([1000, 800, 700, 600, 500, 400, 300, 200])).toBeCloseTo(perSecond, 9);
		expect(answeredAfter([1500, 1400, 1300, 1200, 500, 400, 300, 200])).toBeCloseTo(perSecond, 9);
	});
});

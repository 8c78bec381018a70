import {
	LOWER_BOUND_GROWTH_PER_SECOND,
	MIN_ANSWERS_FOR_RATE,
	WAVE_DECREASE,
} from '../../../../nodes/shared/transport/rateControl/constants';
import { limitOf, nextStart } from '../../../../nodes/shared/transport/rateControl/modes';
import { transition } from '../../../../nodes/shared/transport/rateControl/transitions';
import { atOnce, ok, play, rateOf, refused, send, type Step } from './story';

// A refusal is cheap and comes back at once, an admission only after the registry's latency: against a
// bucket of a small burst the first 429 comes before any answer. Its wave's admissions answer during the
// pause; they measure the pace as answers before the 429 would have (bench:sim s7, s209, s223, s203).

// Twenty requests at 1,000 (the concurrency at once); the first `burst` admitted (answered 45 ms later
// and on), the others refused at 1,001, before any answer. The pause counts from when sending began:
// everybody may go again at 2,000. A lower bound: `burst` over 1 ms of sending and the 1,000 ms pause.
const FIRST_429_AT = 1_001;
const PAUSE_END = 2_000;
const boundOf = (burst: number) => (burst * 1_000) / 1_001;
/** A lower bound after one admission that climbs it (doubling a second at that pace). */
const climbed = (rate: number) => rate * (1 + LOWER_BOUND_GROWTH_PER_SECOND) ** (1 / rate);
function firstWave(burst: number): Step[] {
	const sends = Array.from({ length: 20 }, () => send(1_000));
	const answers = Array.from({ length: 20 }, (_, index) =>
		index < burst ? ok(1_000, 1_045 + index) : refused(1_000, FIRST_429_AT),
	);
	return [...sends, ...answers].sort((a, b) => a.at - b.at);
}

describe('a first wave whose 429 came before any answer', () => {
	it('paces from its late admissions: one request at the pause end, not the whole concurrency again', () => {
		const { state } = play(firstWave(1));
		expect(limitOf(state, PAUSE_END)).toEqual({ kind: 'paced', rate: expect.any(Number) });
		expect(atOnce(state, PAUSE_END)).toBe(1);
	});

	it('one admitted a second (over the time sending took and the pause): a lower bound to search up from', () => {
		const { state } = play(firstWave(1));
		const rate = (limitOf(state, PAUSE_END) as { rate: number }).rate;
		expect(rate).toBeCloseTo(boundOf(1), 6);
		// The next start after the pause end's request: one interval later.
		const after = transition(nextStart(state, PAUSE_END).state, { kind: 'started' }, PAUSE_END);
		expect(nextStart(after.state, PAUSE_END).at).toBeCloseTo(PAUSE_END + 1_000 / rate, 6);
	});

	it('each late admission, while fewer than a rate is measured from, raises the lower bound without climbing', () => {
		for (let burst = 1; burst < MIN_ANSWERS_FOR_RATE; burst++) {
			const { state } = play(firstWave(burst));
			expect((limitOf(state, PAUSE_END) as { rate: number }).rate).toBeCloseTo(boundOf(burst), 6);
		}
	});

	it('as many as a rate is measured from: a burst one wave cannot tell from a window, the next wave measures', () => {
		const { state } = play(firstWave(MIN_ANSWERS_FOR_RATE));
		expect(limitOf(state, PAUSE_END)).toEqual({ kind: 'unknown' });
		// A later admission of the same wave leaves it unknown.
		const { state: later } = play(firstWave(MIN_ANSWERS_FOR_RATE + 3));
		expect(limitOf(later, PAUSE_END)).toEqual({ kind: 'unknown' });
	});

	// The next wave (workers.ts nothingAdmittedSince): the pause's end at 2,000 lets the whole concurrency
	// go again, the bucket admits the five it refilled (answered 45 ms on) and refuses the rest at 2,001.
	// Five admitted since the first 429 say the registry admits: a rate over the second since it and the
	// pause to come (5 over 2,000 ms), not a registry that admitted nothing (others spend it, a quota),
	// asked one request a pause (1 a second).
	const SECOND_429_AT = PAUSE_END + 1;
	const secondWave: Step[] = [
		...Array.from({ length: 20 }, () => send(PAUSE_END)),
		...Array.from({ length: 15 }, () => refused(PAUSE_END, SECOND_429_AT)),
	];
	const measured = (MIN_ANSWERS_FOR_RATE * 1_000) / (SECOND_429_AT - FIRST_429_AT + 1_000);

	it('the next wave measures them: admitted since the first 429, the registry admits, at a rate', () => {
		const { state, actions } = play([...firstWave(MIN_ANSWERS_FOR_RATE), ...secondWave]);
		expect(actions.at(-1)).toEqual({
			kind: 'pause',
			until: SECOND_429_AT + 1_000,
			why: 'firstLimit',
		});
		expect(rateOf(state)).toBeCloseTo(measured, 6);
	});

	it('admissions answered in the very ms of the first 429, after it, are since it as well', () => {
		// Refusals and admissions back in one tick (a registry as near as its refusals): answered later,
		// they measured the pace above; answered in the 429's own ms, the same pace, not one a second.
		const sameMs: Step[] = [
			...Array.from({ length: 20 }, () => send(1_000)),
			...Array.from({ length: 15 }, () => refused(1_000, FIRST_429_AT)),
			...Array.from({ length: MIN_ANSWERS_FOR_RATE }, () => ok(1_000, FIRST_429_AT)),
		];
		expect(limitOf(play(sameMs).state, PAUSE_END)).toEqual({ kind: 'unknown' });
		expect(rateOf(play([...sameMs, ...secondWave]).state)).toBeCloseTo(measured, 6);
	});

	it('an answer to a request sent after the 429 is not the wave: the pace climbs on it', () => {
		const { state } = play([...firstWave(1), send(PAUSE_END), ok(PAUSE_END, PAUSE_END + 45)]);
		// One admission at a lower bound of about 1/s doubles it.
		expect((limitOf(state, PAUSE_END + 45) as { rate: number }).rate).toBeCloseTo(
			climbed(boundOf(1)),
			6,
		);
	});

	it('where answers came before the 429, later ones climb as before', () => {
		// The first admitted answers at 1,000.5, before the 429 at 1,001: a lower bound of one per pause,
		// and the late admission of the second grows it as a search does (doubling at that pace).
		const steps: Step[] = [
			...Array.from({ length: 20 }, () => send(1_000)),
			ok(1_000, 1_000.5),
			ok(1_000, 1_045),
			...Array.from({ length: 18 }, () => refused(1_000, FIRST_429_AT)),
		].sort((a, b) => a.at - b.at);
		const { state } = play(steps);
		expect((limitOf(state, PAUSE_END) as { rate: number }).rate).toBeCloseTo(
			climbed(boundOf(1)),
			6,
		);
	});

	it('a request sent at the very moment of the 429 is of its wave', () => {
		// The only admitted one left at 1,001, the ms the 429 came (before it was heard).
		const steps: Step[] = [
			...Array.from({ length: 19 }, () => send(1_000)),
			send(FIRST_429_AT),
			...Array.from({ length: 19 }, () => refused(1_000, FIRST_429_AT)),
			ok(FIRST_429_AT, 1_046),
		];
		const { state } = play(steps);
		expect((limitOf(state, PAUSE_END) as { rate: number }).rate).toBeCloseTo(boundOf(1), 6);
	});

	it('a later wave never paces below what the first wave admitted per pause, a little less', () => {
		// One admitted late: a lower bound of about one a second. A wave at the first request after the
		// pause, with one admission over the span it measures, would cut the pace to half; the floor holds.
		const { state } = play([...firstWave(1), send(PAUSE_END), refused(PAUSE_END, PAUSE_END + 1)]);
		expect((limitOf(state, PAUSE_END + 1) as { rate: number }).rate).toBeCloseTo(
			WAVE_DECREASE * boundOf(1),
			6,
		);
	});
});

describe('a first wave answered before its 429', () => {
	it('as many as a rate is measured from: a rate, over the pause, not a lower bound', () => {
		// Five admitted, answered by 1,150, sent over 150 ms; refused at 1,160, within the pause of the
		// first request: the pause counts from when sending began, and the rate over it alone.
		const steps: Step[] = [];
		for (let index = 0; index < MIN_ANSWERS_FOR_RATE; index++)
			steps.push(send(1_000 + 30 * index), ok(1_000 + 30 * index, 1_010 + 30 * index));
		steps.push(send(1_150), refused(1_150, 1_160));
		const { state } = play(steps);
		expect((limitOf(state, PAUSE_END) as { rate: number }).rate).toBeCloseTo(
			MIN_ANSWERS_FOR_RATE,
			6,
		);
	});
});

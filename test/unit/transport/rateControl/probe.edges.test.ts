import {
	LONG_WORK_S,
	LOWER_BOUND_GROWTH_PER_SECOND,
	MIN_ANSWERS_FOR_RATE,
	PROBE_DOUBLING_ANSWERS,
	PROBE_DOUBLING_MS,
	PROBE_GROWTH_PER_SECOND,
	PROBE_QUIET_ANSWERS,
	PROBE_QUIET_MS,
} from '../../../../nodes/shared/transport/rateControl/constants';
import type { ControlState } from '../../../../nodes/shared/transport/rateControl/state';
import { admitted, ok, play, refused, send, type Step, rateOf } from './story';

// The probe beyond the last wave's rate, on the pure transition: how its growth speeds up after a
// quiet spell (with time and with admissions, whichever is slower), its cap, and when a pace born of a
// first wave that admitted a handful may probe at all. Growth is read back from the rates of one
// admission (rate after = rate * (1 + growth) ^ (1 / rate)); what it should be is reckoned from the
// exported constants.

/** The growth a second that one admission applied to the pace. */
const growthOf = (before: number, after: number) => Math.pow(after / before, before) - 1;

/** The probe's growth after `doublings`, as pace.ts's doc says: doubling, up to slow start's. */
const probeAfter = (doublings: number) =>
	Math.min(LOWER_BOUND_GROWTH_PER_SECOND, PROBE_GROWTH_PER_SECOND * 2 ** doublings);

/**
 * Work left that takes `seconds` at the pace `rate`: the least that the division by the rate reads as
 * `seconds` or more (`rate * seconds` may read a hair short).
 */
function workFor(rate: number, seconds: number): number {
	let work = rate * seconds;
	while (work / rate < seconds) work = nextUp(work);
	return work;
}

/** Work left that the division by `rate` reads as exactly `seconds`, where a float does. */
function exactWork(rate: number, seconds: number): number | undefined {
	const work = workFor(rate, seconds);
	return work / rate === seconds ? work : undefined;
}

/** The next float above a positive `value`. */
function nextUp(value: number): number {
	const float = new Float64Array([value]);
	new BigInt64Array(float.buffer)[0] += 1n;
	return float[0];
}

/** Short of LONG_WORK_S at the pace, well beyond the end of the work. */
const SOME_WORK_S = LONG_WORK_S / 2;

/**
 * `answers` admissions since the wave at `waveAt` (all but the last 20 ms apart, right after it), the
 * last answered `ms` after the wave with `workLeft` (of its pace) still to send: the rate before
 * and after that last one.
 */
function lastAdmission(
	from: ControlState,
	waveAt: number,
	answers: number,
	ms: number,
	workLeft: (rate: number) => number = (rate) => workFor(rate, SOME_WORK_S),
): { before: number; after: number; state: ControlState } {
	let state = from;
	let at = waveAt + 90;
	for (let index = 1; index < answers; index++) {
		const workLeft = workFor(rateOf(state, at), SOME_WORK_S);
		state = play([send(at), ok(at, at + 10, {}, workLeft)], state).state;
		at += 20;
	}
	const answeredAt = waveAt + ms;
	expect(answeredAt).toBeGreaterThan(at);
	const before = rateOf(state, answeredAt - 10);
	state = play(
		[send(answeredAt - 10), ok(answeredAt - 10, answeredAt, {}, workLeft(before))],
		state,
	).state;
	return { before, after: rateOf(state, answeredAt), state };
}

const firstLimit = [...admitted(1_000, 10), send(1_100), refused(1_100, 1_150)];

/**
 * The first limit, then twice its pace admitted for a second, then a later wave (at WAVE_AT): a pace
 * cut below a ceiling it climbs back to within PROBE_QUIET_ANSWERS admissions.
 */
const WAVE_AT = 3_110;
function afterWave(): ControlState {
	const steps: Step[] = [...firstLimit];
	for (let index = 0; index < 20; index++) {
		const at = 2_100 + 50 * index;
		steps.push(send(at), ok(at, at + 10));
	}
	steps.push(send(3_100), refused(3_100, WAVE_AT));
	return play(steps).state;
}

/** The probe's growth at the `answers`-th admission since the wave, answered `ms` after it. */
const growthAt = (answers: number, ms: number, workLeftS = SOME_WORK_S) => {
	const { before, after } = lastAdmission(afterWave(), WAVE_AT, answers, ms, (rate) =>
		workFor(rate, workLeftS),
	);
	return growthOf(before, after);
};

describe('the probe after a quiet spell', () => {
	it('back at the ceiling, it climbs: the probe is what the growth below is of', () => {
		// Recovered within PROBE_QUIET_ANSWERS: the admission before them probes at the creep.
		expect(growthAt(PROBE_QUIET_ANSWERS - 1, PROBE_QUIET_MS)).toBeCloseTo(
			PROBE_GROWTH_PER_SECOND,
			9,
		);
	});

	it('creeps until PROBE_QUIET_ANSWERS admissions, however long the quiet', () => {
		const long = PROBE_QUIET_MS + 3 * PROBE_DOUBLING_MS;
		expect(growthAt(PROBE_QUIET_ANSWERS - 1, long)).toBeCloseTo(PROBE_GROWTH_PER_SECOND, 9);
		expect(growthAt(PROBE_QUIET_ANSWERS, long)).toBeCloseTo(PROBE_GROWTH_PER_SECOND, 9);
	});

	it('creeps until PROBE_QUIET_MS, however many admissions', () => {
		const many = PROBE_QUIET_ANSWERS + 3 * PROBE_DOUBLING_ANSWERS;
		expect(growthAt(many, PROBE_QUIET_MS - PROBE_DOUBLING_MS)).toBeCloseTo(
			PROBE_GROWTH_PER_SECOND,
			9,
		);
		expect(growthAt(many, PROBE_QUIET_MS)).toBeCloseTo(PROBE_GROWTH_PER_SECOND, 9);
	});

	it('with admissions enough, the growth doubles every PROBE_DOUBLING_MS', () => {
		const many = PROBE_QUIET_ANSWERS + 3 * PROBE_DOUBLING_ANSWERS;
		for (const doublings of [1, 2, 1.5])
			expect(growthAt(many, PROBE_QUIET_MS + doublings * PROBE_DOUBLING_MS)).toBeCloseTo(
				probeAfter(doublings),
				9,
			);
	});

	it('with time enough, the growth doubles every PROBE_DOUBLING_ANSWERS admissions', () => {
		const long = PROBE_QUIET_MS + 3 * PROBE_DOUBLING_MS;
		for (const doublings of [1, 2, 0.5])
			expect(growthAt(PROBE_QUIET_ANSWERS + doublings * PROBE_DOUBLING_ANSWERS, long)).toBeCloseTo(
				probeAfter(doublings),
				9,
			);
	});

	it('at most doubles a second, as slow start does', () => {
		const doublings = Math.log2(LOWER_BOUND_GROWTH_PER_SECOND / PROBE_GROWTH_PER_SECOND) + 2;
		expect(probeAfter(doublings)).toBe(LOWER_BOUND_GROWTH_PER_SECOND);
		expect(
			growthAt(
				PROBE_QUIET_ANSWERS + Math.ceil(doublings) * PROBE_DOUBLING_ANSWERS,
				PROBE_QUIET_MS + Math.ceil(doublings) * PROBE_DOUBLING_MS,
			),
		).toBeCloseTo(LOWER_BOUND_GROWTH_PER_SECOND, 9);
	});

	it('with LONG_WORK_S or more left at the pace, time alone counts', () => {
		const fewAnswers = PROBE_QUIET_ANSWERS - 1;
		const ms = PROBE_QUIET_MS + 2 * PROBE_DOUBLING_MS;
		expect(growthAt(fewAnswers, ms, LONG_WORK_S)).toBeCloseTo(probeAfter(2), 9);
		expect(growthAt(fewAnswers, ms, 2 * LONG_WORK_S)).toBeCloseTo(probeAfter(2), 9);
		expect(growthAt(fewAnswers, ms, LONG_WORK_S - 1)).toBeCloseTo(PROBE_GROWTH_PER_SECOND, 9);
	});

	it('from exactly LONG_WORK_S left at the pace', () => {
		// The first pace while probing (counting back from the quiet answers) that some work left
		// divides into exactly LONG_WORK_S seconds.
		const ms = PROBE_QUIET_MS + 2 * PROBE_DOUBLING_MS;
		for (let answers = PROBE_QUIET_ANSWERS - 1; answers > PROBE_QUIET_ANSWERS / 2; answers--) {
			const { before } = lastAdmission(afterWave(), WAVE_AT, answers, ms);
			const work = exactWork(before, LONG_WORK_S);
			if (work === undefined) continue;
			const exact = lastAdmission(afterWave(), WAVE_AT, answers, ms, () => work);
			expect(exact.before).toBe(before);
			expect(growthOf(exact.before, exact.after)).toBeCloseTo(probeAfter(2), 9);
			return;
		}
		throw new Error('no pace divides a work left into exactly LONG_WORK_S');
	});
});

describe('a pace born of a first wave that admitted a handful', () => {
	// Fewer than MIN_ANSWERS_FOR_RATE admitted, then a 429: a floor.
	const floor: Step[] = [
		...admitted(1_000, MIN_ANSWERS_FOR_RATE - 1),
		send(1_100),
		refused(1_100, 1_150, { retryAfterMs: 1_000 }),
	];
	/** Then twenty admitted at 20 a second, then a wave (at FLOOR_WAVE_AT): a ceiling too. */
	const FLOOR_WAVE_AT = 4_010;
	function floorAndCeiling(): ControlState {
		const steps = [...floor];
		for (let index = 0; index < 20; index++) {
			const at = 3_000 + 50 * index;
			steps.push(send(at), ok(at, at + 10));
		}
		steps.push(send(4_000), refused(4_000, FLOOR_WAVE_AT));
		return play(steps).state;
	}

	it('before a later wave, doubles a second from its floor even with little work left', () => {
		const state = play(floor).state;
		const { before, after } = lastAdmission(state, 1_150, 1, 2_000);
		expect(growthOf(before, after)).toBeCloseTo(LOWER_BOUND_GROWTH_PER_SECOND, 9);
	});

	it('after one, does not probe beyond it within PROBE_QUIET_ANSWERS admissions', () => {
		// Climbed back and settled by the admission before; short of LONG_WORK_S of work.
		const settled = lastAdmission(floorAndCeiling(), FLOOR_WAVE_AT, PROBE_QUIET_ANSWERS - 2, 2_000);
		expect(settled.after).toBe(settled.before);
		const last = lastAdmission(floorAndCeiling(), FLOOR_WAVE_AT, PROBE_QUIET_ANSWERS - 1, 2_000);
		expect(last.after).toBe(last.before);
		const probing = lastAdmission(floorAndCeiling(), FLOOR_WAVE_AT, PROBE_QUIET_ANSWERS, 2_000);
		expect(growthOf(probing.before, probing.after)).toBeCloseTo(PROBE_GROWTH_PER_SECOND, 9);
	});

	it('unless the work left takes LONG_WORK_S or more at the pace', () => {
		const answers = PROBE_QUIET_ANSWERS / 2;
		const short = lastAdmission(floorAndCeiling(), FLOOR_WAVE_AT, answers, 1_000, (rate) =>
			workFor(rate, LONG_WORK_S - 1),
		);
		expect(short.after).toBe(short.before);
		const long = lastAdmission(floorAndCeiling(), FLOOR_WAVE_AT, answers, 1_000, (rate) =>
			workFor(rate, LONG_WORK_S),
		);
		expect(growthOf(long.before, long.after)).toBeCloseTo(PROBE_GROWTH_PER_SECOND, 9);
	});
});

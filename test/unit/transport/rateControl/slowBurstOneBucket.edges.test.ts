import { WAVE_DECREASE } from '../../../../nodes/shared/transport/rateControl/constants';
import { unknownPace } from '../../../../nodes/shared/transport/rateControl/pace';
import { searchCeiling } from '../../../../nodes/shared/transport/rateControl/search';
import type { ControlState } from '../../../../nodes/shared/transport/rateControl/state';
import { ok, play, refused, send, type Step, rateOf } from './story';

// The wave that ends a search from a lower bound, on the pure transition: where the first wave admitted
// one, the pace after it is the one the last admitted request went at (5% below the refused at most);
// where it admitted more, what was admitted measures, as before.

// Twenty requests at 1,000; `told` answered before the 429 at 1,001 (sent alone before: a token's
// first lookup), `after` admitted and answered after it, the rest refused.
function firstWave(told: number, after: number): Step[] {
	const steps: Step[] = [];
	for (let index = 0; index < told; index++) steps.push(send(900), ok(900, 950 + index));
	for (let index = 0; index < 20; index++) steps.push(send(1_000));
	for (let index = 0; index < 20; index++)
		steps.push(index < after ? ok(1_000, 1_045 + index) : refused(1_000, 1_001));
	return steps.sort((a, b) => a.at - b.at);
}

/** From the pause's end, one request alone at a time, each admitted 45 ms later, until one is refused. */
function searchUntilRefused(from: ControlState, admissions: number) {
	let state = from;
	let at = 2_000;
	let before = 0;
	for (let index = 0; index < admissions; index++) {
		before = rateOf(state, at);
		state = play([send(at), ok(at, at + 45)], state).state;
		at += 1_000 / rateOf(state, at + 45);
	}
	const refusedAt = rateOf(state, at);
	state = play([send(at), refused(at, at + 1)], state).state;
	return {
		stepBefore: before,
		refusedAt,
		after: rateOf(state, at + 1),
	};
}

describe('the wave that ends a search from a first wave that admitted one', () => {
	it('paces at the pace the last admitted request went at', () => {
		const { state } = play(firstWave(0, 1));
		const search = searchUntilRefused(state, 4);
		expect(search.after).toBeCloseTo(
			Math.min(search.stepBefore, WAVE_DECREASE * search.refusedAt),
			9,
		);
		expect(search.after).toBeGreaterThan(WAVE_DECREASE * search.refusedAt * 0.7);
	});

	it('counts a lookup answered before the 429 with those after it: two admitted are a burst of 2', () => {
		const one = searchUntilRefused(play(firstWave(0, 1)).state, 4);
		const two = searchUntilRefused(play(firstWave(1, 1)).state, 4);
		// Without the step, what was admitted over the search measures, well below the step before.
		expect(two.after).toBeLessThan(two.stepBefore * 0.9);
		expect(one.after).toBeCloseTo(one.stepBefore, 9);
		// Two sent alone and answered before the 429, one of the wave admitted after it: a burst of 3.
		const three = searchUntilRefused(play(firstWave(2, 1)).state, 4);
		expect(three.after).toBeLessThan(three.stepBefore * 0.9);
	});
});

describe('searchCeiling', () => {
	const pace = (stepFrom: number | undefined) => ({ ...unknownPace(), stepFrom });
	it('where one request a second is no more than one decrease, 5% below the refused pace', () => {
		expect(searchCeiling(pace(undefined), 20)).toBeCloseTo(WAVE_DECREASE * 20, 9);
		expect(searchCeiling(pace(99), 100)).toBeCloseTo(WAVE_DECREASE * 100, 9);
		// Exactly one request a second is one decrease: still 5% below, with no step to go by.
		const exact = 1 / (1 - WAVE_DECREASE);
		expect(searchCeiling(pace(undefined), exact)).toBeCloseTo(WAVE_DECREASE * exact, 9);
	});
	it('a step more than one decrease (a search per round trip): the step before, at any pace', () => {
		expect(searchCeiling(pace(80), 100)).toBe(80);
	});
	it('below that, the step before, at most 5% below the refused pace; nothing without a step', () => {
		expect(searchCeiling(pace(undefined), 19)).toBe(0);
		expect(searchCeiling(pace(3), 4)).toBe(3);
		expect(searchCeiling(pace(18.9), 19)).toBeCloseTo(WAVE_DECREASE * 19, 9);
	});
});

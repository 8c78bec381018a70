import {
	END_OF_WORK_S,
	LOWER_BOUND_GROWTH_PER_SECOND,
	SEARCH_GROWTH_PER_SECOND,
	SEARCH_LONG_WORK_S,
} from '../../../../nodes/shared/transport/rateControl/constants';
import type { ControlState } from '../../../../nodes/shared/transport/rateControl/state';
import { admitted, ok, play, refused, send, rateOf } from './story';

// The search up from a first wave's rate, on the pure transition: how fast one admission raises the
// pace, by the work left at that pace (search.ts, searchGrowth). Growth is read back from the rates
// before and after the admission (rate after = rate * (1 + growth) ^ (1 / rate)).

const growthOf = (before: number, after: number) => Math.pow(after / before, before) - 1;

/** Ten admitted, then a 429: a rate measured, no ceiling, no lower bound. */
const FIRST_LIMIT_AT = 1_150;
const firstLimit = (): ControlState =>
	play([...admitted(1_000, 10), send(1_100), refused(1_100, FIRST_LIMIT_AT)]).state;

/** The growth one admission after the first limit applied, with `workLeft(rate)` still to send. */
function growthWith(workLeft: (rate: number) => number): number {
	const state = firstLimit();
	const at = FIRST_LIMIT_AT + 1_000;
	const before = rateOf(state, at);
	const after = rateOf(
		play([send(at), ok(at, at + 10, {}, workLeft(before))], state).state,
		at + 10,
	);
	return growthOf(before, after);
}

/** The next float above a positive `value`. */
function nextUp(value: number): number {
	const float = new Float64Array([value]);
	new BigInt64Array(float.buffer)[0] += 1n;
	return float[0];
}

/** The least work left that the division by `rate` reads as `seconds` or more. */
function workFor(rate: number, seconds: number): number {
	let work = rate * seconds;
	while (work / rate < seconds) work = nextUp(work);
	return work;
}

describe('the search up from a first wave that measured a rate', () => {
	it('climbs at LOWER_BOUND_GROWTH_PER_SECOND with SEARCH_LONG_WORK_S or more left at the pace', () => {
		// Exactly SEARCH_LONG_WORK_S at the pace (10/s here: the division is exact).
		const exactly = (rate: number) => {
			const work = workFor(rate, SEARCH_LONG_WORK_S);
			expect(work / rate).toBe(SEARCH_LONG_WORK_S);
			return work;
		};
		expect(growthWith(exactly)).toBeCloseTo(LOWER_BOUND_GROWTH_PER_SECOND, 9);
		expect(growthWith((rate) => workFor(rate, 4 * SEARCH_LONG_WORK_S))).toBeCloseTo(
			LOWER_BOUND_GROWTH_PER_SECOND,
			9,
		);
	});

	it('climbs at SEARCH_GROWTH_PER_SECOND with less left', () => {
		// Just short of SEARCH_LONG_WORK_S, and well short of it (but more than the end of the work).
		expect(
			growthWith((rate) => {
				const work = workFor(rate, SEARCH_LONG_WORK_S);
				return work - Math.max(Number.EPSILON * work, 1e-9);
			}),
		).toBeCloseTo(SEARCH_GROWTH_PER_SECOND, 9);
		expect(growthWith((rate) => workFor(rate, 2 * END_OF_WORK_S))).toBeCloseTo(
			SEARCH_GROWTH_PER_SECOND,
			9,
		);
	});
});

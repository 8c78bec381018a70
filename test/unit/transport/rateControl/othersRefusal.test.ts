import {
	MIN_ANSWERS_FOR_RATE,
	OTHERS_REFUSAL_ANSWERS,
	WAVE_DECREASE,
} from '../../../../nodes/shared/transport/rateControl/constants';
import { limitOf } from '../../../../nodes/shared/transport/rateControl/modes';
import type { ControlState } from '../../../../nodes/shared/transport/rateControl/state';
import { ok, play, refused, send, type Step } from './story';

// workers.ts `othersRefusal`: queue-mode workers sharing a bucket of small burst each meet 429s whatever
// their pace (another's admission took the token). A lone 429 among a worker's admissions cut its pace
// to the rate admitted lately, its own climbing pace measured late: up to half at every such wave, and
// three workers sharing 110/s stayed at a few a second each (bench:sim s86, 6.1x the floor).

const rateOf = (state: ControlState, now: number) => {
	const limit = limitOf(state, now);
	if (limit.kind !== 'paced') throw new Error(`expected a pace, got ${limit.kind}`);
	return limit.rate;
};

/**
 * othersSpend.test's story (a pace learnt from two waves, every answer telling an hour's quota that
 * falls by `fall` an answer, each 429 saying far more of it is left), then `admissions` more admitted
 * a quarter of a second apart, then one 429: the pace just before that 429 and just after.
 */
function loneRefusal(fall: number, admissions: number): { before: number; after: number } {
	let remaining = 4_000;
	const told = () => ({ remaining: (remaining -= fall) });
	const steps: Step[] = [];
	for (let index = 0; index < MIN_ANSWERS_FOR_RATE - 1; index++)
		steps.push(send(1_000 + 10 * index));
	for (let index = 0; index < MIN_ANSWERS_FOR_RATE - 1; index++)
		steps.push(ok(1_000 + 10 * index, 1_050 + 10 * index, told()));
	steps.push(send(1_100), refused(1_100, 1_150, { retryAfterMs: 1_000, remaining }));
	for (let index = 0; index < 20; index++) {
		const at = 3_000 + 50 * index;
		steps.push(send(at), ok(at, at + 10, told()));
	}
	steps.push(send(4_000), refused(4_000, 4_010, { remaining }));
	// Past a congestion spell: the lone 429 is a wave of its own.
	let at = 5_500;
	for (let index = 0; index < admissions; index++) {
		steps.push(send(at), ok(at, at + 10, told()));
		at += 250;
	}
	const state = play(steps).state;
	const before = rateOf(state, at);
	const after = rateOf(play([send(at), refused(at, at + 1, { remaining })], state).state, at + 1);
	return { before, after };
}

describe('a lone 429 on a pace others spend too (workers.ts othersRefusal)', () => {
	it('after OTHERS_REFUSAL_ANSWERS admissions: one decrease of the pace that met it', () => {
		const { before, after } = loneRefusal(3, OTHERS_REFUSAL_ANSWERS);
		expect(after).toBeCloseTo(WAVE_DECREASE * before, 9);
	});

	it('after one admission fewer: the pace or all of ours is over the limit, cut to the rate admitted', () => {
		const { before, after } = loneRefusal(3, OTHERS_REFUSAL_ANSWERS - 1);
		// A quarter of a second apart, far slower than the pace: well under one decrease.
		expect(after).toBeLessThan(0.8 * before);
	});

	it('one process (the quota falls by one an answer): cut to the rate admitted, however many came first', () => {
		const { before, after } = loneRefusal(1, OTHERS_REFUSAL_ANSWERS);
		expect(after).toBeLessThan(0.8 * before);
	});
});

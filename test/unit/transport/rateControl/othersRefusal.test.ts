import {
	OTHERS_REFUSAL_ANSWERS,
	WAVE_DECREASE,
} from '../../../../nodes/shared/transport/rateControl/constants';
import { loneRefusal } from './story';

// workers.ts `othersRefusal`: queue-mode workers sharing a bucket of small burst each meet 429s whatever
// their pace (another's admission took the token). A lone 429 among a worker's admissions cut its pace
// to the rate admitted lately, its own climbing pace measured late: up to half at every such wave, and
// three workers sharing 110/s stayed at a few a second each (bench:sim s86, 6.1x the floor).

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

import {
	unknownRegistry,
	type ControlState,
} from '../../../../nodes/shared/transport/rateControl/state';
import { transition } from '../../../../nodes/shared/transport/rateControl/transitions';
import { unknownPace } from '../../../../nodes/shared/transport/rateControl/pace';

// A reviewer's find on 0f034ef (search.ts refillShown): "the registry admitted, within the last second, more than
// twice what the first wave got at once" is read from state.admitted, which every 'answered' event
// appends to, a 503 (or a gateway's 52x, now transient) as much as a 200. Failures a gateway answers at
// once are no admissions of the registry's limit, and say nothing of whether it refills.
const now = 100_000;
const searching = (): ControlState => ({
	...unknownRegistry(),
	latencyMs: 40,
	lastEventAt: 0,
	pace: {
		...unknownPace(),
		rate: 10,
		lowerBound: 10,
		floorRate: 9.5,
		firstWave: {
			at: 0,
			told: 2,
			answers: 2,
			admittedAfter: 0,
			rateSpanMs: 1000,
			boundSpanMs: 1000,
			activeMs: 1000,
		},
	},
});

/** The pace's growth on a 200 after eight answers of `status` within the last second. */
const growthAfter = (status: number): number => {
	let state = searching();
	for (const back of [900, 800, 700, 600, 500, 400, 300, 200]) {
		state = { ...state, inFlight: state.inFlight + 1 };
		const report = { sentAt: now - back - 40, status };
		state = transition(state, { kind: 'answered', report, workLeft: 1000 }, now - back).state;
	}
	const before = state.pace.rate!;
	state = { ...state, inFlight: state.inFlight + 1 };
	const report = { sentAt: now - 40, status: 200 };
	const after = transition(state, { kind: 'answered', report, workLeft: 1000 }, now).state.pace
		.rate!;
	return Math.log2(after / before);
};

describe('the search per round trip reads admissions, not answers', () => {
	it('eight 200s within the second: per round trip (a doubling over 4 answers)', () => {
		expect(growthAfter(200)).toBeCloseTo(1 / 4, 6);
	});
	it('eight 503s within the second: no admission shown, the search stays per second', () => {
		expect(growthAfter(503)).toBeLessThan(1 / 8);
	});
});

import { climb, unknownPace } from '../../../../nodes/shared/transport/rateControl/pace';
import { limitOf, nextStart } from '../../../../nodes/shared/transport/rateControl/modes';
import type { ControlState } from '../../../../nodes/shared/transport/rateControl/state';
import { transition } from '../../../../nodes/shared/transport/rateControl/transitions';
import { ok, play, refused, send } from './story';

// A pace that is only a floor (a first wave admitted too few to measure a rate: a bucket of burst 1)
// searches upwards until a wave. Doubling each second, a bucket of 428/s was met 9 s into a sheet of
// 3.5 s at the limit (bench:sim s31, 3.1x the floor). Where a round trip brings more than one answer,
// it doubles each round trip, as TCP's slow start; below that, or from a burst of more than one, each
// second as before (a burst of a few lets the pace pass the limit for that many requests, each growing
// it, before a 429 tells: s47, s177, s255).

/** A floor of `rate` a second, nothing measured yet, from a first wave that admitted `burst` at once. */
const floorOf = (rate: number, burst = 1) => ({
	...unknownPace(),
	rate,
	lowerBound: rate,
	floorBurst: burst,
});
const quiet = { answers: 1, ms: 0 };

describe('a pace that is only a floor', () => {
	it('doubles over the answers of one round trip: four at 100/s and 40 ms', () => {
		const pace = floorOf(100);
		for (let answer = 0; answer < 4; answer++) climb(pace, 10_000, quiet, 40);
		// Each answer a quarter of a doubling at the pace it finds (a little less as it grows): about
		// 1.75x; doubling each second, four answers at 100/s were 1.03x.
		expect(pace.rate).toBeGreaterThan(170);
		expect(pace.rate).toBeLessThan(200);
	});

	it('the longer the round trip, the more answers a doubling takes: 100/s at 200 ms', () => {
		const pace = floorOf(100);
		for (let answer = 0; answer < 4; answer++) climb(pace, 10_000, quiet, 200);
		// Twenty answers a round trip: four are about a fifth of a doubling (1.15x).
		expect(pace.rate).toBeGreaterThan(110);
		expect(pace.rate).toBeLessThan(120);
	});

	it('from a first wave that admitted two at once: doubles each second, whatever the round trip', () => {
		const pace = floorOf(100, 2);
		for (let answer = 0; answer < 4; answer++) climb(pace, 10_000, quiet, 40);
		// Four answers at 100/s: 1.03x.
		expect(pace.rate).toBeGreaterThan(102);
		expect(pace.rate).toBeLessThan(104);
	});

	it('fewer than one answer a round trip: doubles each second, not at each answer', () => {
		const pace = floorOf(4);
		for (let answer = 0; answer < 2; answer++) climb(pace, 10_000, quiet, 100);
		// About half a second of answers at 4/s: 1.38x (each answer doubling would give 16).
		expect(pace.rate).toBeGreaterThan(5);
		expect(pace.rate).toBeLessThan(6);
	});
});

/**
 * From a first wave of twenty that a bucket of burst 1 admitted one of (its 429s at once, the admission
 * 39 ms later), requests go whenever the pace allows, each answered 39 ms later: the ms until the pace
 * passes `target` a second.
 */
function msToReach(target: number): number {
	const wave = [
		...Array.from({ length: 20 }, () => send(1_000)),
		...Array.from({ length: 19 }, () => refused(1_000, 1_001)),
		ok(1_000, 1_039),
	];
	let state: ControlState = play(wave).state;
	const answers: number[] = [];
	let now = 2_000;
	const rate = () => (limitOf(state, now) as { rate: number }).rate;
	while (rate() < target && now < 60_000) {
		const asked = nextStart(state, now);
		const startAt = asked.at ?? Number.POSITIVE_INFINITY;
		if (answers.length > 0 && answers[0] + 39 <= Math.max(now, startAt)) {
			const sentAt = answers.shift()!;
			now = sentAt + 39;
			state = play([ok(sentAt, now)], state).state;
		} else {
			now = Math.max(now, startAt);
			state = transition(asked.state, { kind: 'started' }, now).state;
			answers.push(now);
		}
	}
	return now - 2_000;
}

describe('the search from a floor through the transitions (a bucket of burst 1, 39 ms away)', () => {
	it('passes 400/s within about four seconds of the pause end, not eight', () => {
		// Doubling each second from about 1/s: 7.8 s; each round trip once a round trip brings an answer
		// or more (past 26/s): 4.0 s.
		expect(msToReach(400)).toBeLessThan(5_000);
	});
});

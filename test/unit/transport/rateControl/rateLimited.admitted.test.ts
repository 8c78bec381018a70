import { nextStart } from '../../../../nodes/shared/transport/rateControl/modes';
import type { ControlState } from '../../../../nodes/shared/transport/rateControl/state';
import { transition } from '../../../../nodes/shared/transport/rateControl/transitions';
import { admitted, ok, play, refused, send, type Step, rateOf } from './story';

// How far a wave lowers the pace, story by story on the pure transition: to what the registry admitted
// just before it, never below what a first wave showed it gives per pause.

/**
 * Requests started as the pace lets them go from `from`, each admitted `latency` later, `count` of
 * them; then one more, refused `latency` later. Returns the state after the wave and the pace before it.
 */
function pacedThenWave(state: ControlState, from: number, count: number, latency: number) {
	let at = from;
	const answers: number[] = [];
	const startNext = () => {
		for (let asks = 0; ; asks++) {
			if (asks > 100) throw new Error(`no paced start by ${at}`);
			const asked = nextStart(state, at);
			if (asked.at === 0) {
				state = transition(asked.state, { kind: 'started' }, at).state;
				return at;
			}
			at = Math.max(at + 0.001, asked.at!);
		}
	};
	for (let index = 0; index < count; index++) {
		const sentAt = startNext();
		state = play([ok(sentAt, sentAt + latency)], state).state;
		at = sentAt + latency;
		answers.push(at);
	}
	const sentAt = startNext();
	const before = rateOf(state);
	state = play([refused(sentAt, sentAt + latency)], state).state;
	return { state, before, answers, waveAt: sentAt + latency };
}

// Ten admitted in 150 ms, then a 429: paced from 2,000 on, at ten a second (the request that asked alone
// halfway, windowTurn.ts askFirstTurn, refused).
const firstLimit: Step[] = [
	...admitted(1_000, 10),
	send(1_100),
	refused(1_100, 1_150),
	send(1_550),
	refused(1_550, 1_551),
];

describe('a wave after a first limit', () => {
	it('paces at what was admitted over the time 20 answers take at the pace, less the pause in it', () => {
		const paced = play(firstLimit).state;
		const at = nextStart(paced, 2_000).at!;
		const { state } = play([send(at), refused(at, at + 50)], paced);
		// 2 s before the wave at 2,150: the ten answers (1,050 to 1,140), over 2 s less 850 ms of pause.
		expect(at + 50).toBe(2_150);
		expect(rateOf(state)).toBeCloseTo(10_000 / 1_150, 6);
	});

	it('at tens a second, over the last second only: older admissions say nothing', () => {
		// A minute in, forty admitted in 40 ms, then a 429: paced a second later at forty a second, then a wave.
		const first = play([
			...admitted(60_000, 40, {}, 1),
			send(60_050),
			refused(60_050, 60_100),
		]).state;
		const { state, before, answers, waveAt } = pacedThenWave(first, 61_000, 80, 1);
		const lastSecond = answers.filter((at) => at > waveAt - 1_000).length;
		expect(lastSecond).toBeLessThan(0.95 * before);
		expect(rateOf(state)).toBeCloseTo(lastSecond, 6);
	});
});

describe('a spell of waves', () => {
	it('a second wave soon after the first, with a few admitted since, is judged by the last second, not by those few', () => {
		const first = play([
			...admitted(60_000, 40, {}, 1),
			send(60_050),
			refused(60_050, 60_100),
		]).state;
		const wave = pacedThenWave(first, 61_000, 40, 1);
		const second = pacedThenWave(wave.state, wave.waveAt, 2, 1);
		expect(second.waveAt - wave.waveAt).toBeLessThan(1_000);
		expect(rateOf(second.state)).toBeLessThan(rateOf(wave.state));
		expect(rateOf(second.state)).toBeGreaterThan(0.9 * rateOf(wave.state));
	});
});

describe('a wave that ends the search from a first wave that admitted too few', () => {
	/** Four admitted within 5 ms each, then a 429 as told: the pace is a lower bound, doubling a second. */
	const fewAdmitted = (retryAfterMs?: number) =>
		play([
			send(1_000),
			send(1_001),
			send(1_002),
			send(1_003),
			ok(1_000, 1_005),
			ok(1_001, 1_006),
			ok(1_002, 1_007),
			ok(1_003, 1_008),
			send(1_010),
			refused(1_010, 1_015, { retryAfterMs }),
		]).state;

	it('at tens a second, keeps the pace the search reached, just below it', () => {
		const first = fewAdmitted(100);
		const { state, before } = pacedThenWave(first, 1_115, 10, 5);
		expect(before).toBeGreaterThan(rateOf(first));
		expect(rateOf(state)).toBeGreaterThan(rateOf(first));
		expect(rateOf(state)).toBeLessThan(before);
	});

	it('at a few a second, one request is a large part: back to what the first wave gave', () => {
		const first = fewAdmitted();
		const { state, before } = pacedThenWave(first, 2_000, 3, 5);
		expect(before).toBeGreaterThan(rateOf(first));
		expect(rateOf(state)).toBeLessThan(rateOf(first));
	});
});

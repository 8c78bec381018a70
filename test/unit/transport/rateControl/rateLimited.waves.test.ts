import { MIN_WAIT_MS } from '../../../../nodes/shared/transport/rateControl/constants';
import { modeOf, nextStart } from '../../../../nodes/shared/transport/rateControl/modes';
import type { ControlState } from '../../../../nodes/shared/transport/rateControl/state';
import { transition } from '../../../../nodes/shared/transport/rateControl/transitions';
import { admitted, ok, play, refused, send, type Step, rateOf } from './story';

// 429 waves while the pace is being learned, story by story on the pure transition: when everybody
// pauses, and when the next request may start after it (nextStart).

/** Starts as many as nextStart lets go at `now` (at most `most`), keeping the state it returns. */
function startAll(
	state: ControlState,
	now: number,
	most = 100,
): { state: ControlState; went: number } {
	let went = 0;
	for (; went < most; went++) {
		const asked = nextStart(state, now);
		if (asked.at !== 0) break;
		state = transition(asked.state, { kind: 'started' }, now).state;
	}
	return { state, went };
}

// Ten admitted in 150 ms, then a 429: paced from 2,000 on, at ten a second, with the burst as credit.
const firstLimit: Step[] = [...admitted(1_000, 10), send(1_100), refused(1_100, 1_150)];

describe('the first limit', () => {
	it('refused exactly a pause after sending began: the pause counts from the 429', () => {
		const { state, actions } = play([...admitted(1_000, 10), send(1_100), refused(1_100, 2_000)]);
		expect(actions).toEqual([
			{ kind: 'congestion', as: 'wave' },
			{ kind: 'pause', until: 3_000, why: 'firstLimit' },
		]);
		expect(modeOf(state, 2_000)).toMatchObject({ kind: 'paused', until: 3_000 });
	});

	it('five admitted measure a rate: five over the pause, the next request a fifth of a second after it', () => {
		const { state } = play([
			...admitted(1_000, 5),
			send(1_100),
			refused(1_100, 1_150),
			// The request that asked alone halfway (windowTurn.ts askFirstTurn), refused.
			send(1_550),
			refused(1_550, 1_551),
		]);
		expect(modeOf(state, 1_551)).toMatchObject({ kind: 'paused', until: 2_000 });
		expect(nextStart(state, 2_000).at).toBe(2_200);
	});

	it('a second wave right after one that admitted too few keeps the pace near what the registry gave per pause', () => {
		const first = play([
			send(1_000),
			send(1_010),
			ok(1_000, 1_050),
			ok(1_010, 1_060),
			send(1_100),
			refused(1_100, 1_150),
		]).state;
		const rate = rateOf(first);
		// The next start the pace allows after the pause, refused.
		const at = Math.ceil(nextStart(first, 2_000).at!);
		const second = play([send(at), refused(at, at + 50)], first).state;
		expect(rateOf(second)).toBeLessThan(rate);
		expect(rateOf(second)).toBeGreaterThan(0.9 * rate);
	});
});

describe('a burst on saved-up credit, refused', () => {
	/** Paced, a minute idle, then a burst of two, the first refused as told. */
	function refusedBurst(retryAfterMs?: number) {
		const burst = startAll(play(firstLimit).state, 60_000, 2);
		expect(burst.went).toBe(2);
		return play([refused(60_000, 60_050, { retryAfterMs })], burst.state);
	}

	it('pauses at least MIN_WAIT_MS, however soon the burst has left', () => {
		const { state, actions } = refusedBurst(100);
		expect(actions).toEqual([
			{ kind: 'congestion', as: 'wave' },
			{ kind: 'pause', until: 60_050 + MIN_WAIT_MS, why: 'burstRefused' },
		]);
		expect(modeOf(state, 60_050)).toMatchObject({ kind: 'paused', until: 60_050 + MIN_WAIT_MS });
	});

	it('bursts no more: a 429 after its pause, though within a second of the burst, is a wave that lowers the pace', () => {
		const { state } = refusedBurst(500);
		const rate = rateOf(state);
		expect(modeOf(state, 60_050)).toMatchObject({ kind: 'paused', until: 60_500 });
		const next = startAll(state, 60_500, 1);
		expect(next.went).toBe(1);
		const after = play([refused(60_500, 60_550)], next.state).state;
		expect(modeOf(after, 60_550).kind).toBe('paced');
		expect(rateOf(after)).toBeLessThan(rate);
	});
});

describe('after a wave', () => {
	it('a burst of at most a tenth of a second at the pace: after a quiet minute, one at once, then paced', () => {
		const paced = play(firstLimit).state;
		// The first start the pace allows after the pause, refused: a wave, not a burst.
		const at = nextStart(paced, 2_000).at!;
		const first = startAll(paced, at, 1);
		expect(first.went).toBe(1);
		const wave = play([refused(at, at + 50)], first.state).state;
		expect(modeOf(wave, at + 50).kind).toBe('paced');
		expect(startAll(wave, 60_000).went).toBe(1);
	});
});

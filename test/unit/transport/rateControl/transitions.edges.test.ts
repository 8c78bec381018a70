import {
	BURST_BLAME_MS,
	FIRST_PAUSE_MAX_MS,
	QUIET_SPELL_MS,
	WAVE_CEILING_BELOW,
	WAVE_DECREASE,
} from '../../../../nodes/shared/transport/rateControl/constants';
import { limitOf, modeOf, nextStart } from '../../../../nodes/shared/transport/rateControl/modes';
import type { ControlState } from '../../../../nodes/shared/transport/rateControl/state';
import { transition } from '../../../../nodes/shared/transport/rateControl/transitions';
import {
	admitted,
	answeredAs,
	noAnswer,
	ok,
	play,
	refused,
	send,
	type Step,
	rateOf,
} from './story';

// The transition's own edges, as a user sees them: how long a spent quota's pause holds once answers
// come, from when a first limit's pause counts, and how long a refused burst keeps requests back.

/** Where nothing was told, the first pause is asked halfway (windowTurn.ts askFirstTurn): its end. */
const firstPauseEnd = (state: ControlState, now: number) =>
	state.turn.askedUntil ?? pausedUntil(state, now);
const pausedUntil = (state: ControlState, now: number) => {
	const mode = modeOf(state, now);
	if (!('until' in mode)) throw new Error(`expected a pause, got ${mode.kind}`);
	return mode.until;
};

describe("a spent quota's pause", () => {
	// Two waves with nothing admitted, each told to wait an hour, while a request sent before is out.
	const spent: Step[] = [
		send(1_000),
		send(1_010),
		refused(1_000, 1_050, { retryAfterMs: 3_600_000 }),
		send(2_000),
		refused(2_000, 2_050, { retryAfterMs: 3_600_000 }),
	];

	it.each([199, 300, 404, 503])(
		'holds after a %d answer to the request still out (only an admission says the quota is back)',
		(status) => {
			const { state } = play([...spent, answeredAs(status, 1_010, 2_100)]);
			expect(modeOf(state, 2_100).kind).toBe('quotaSpent');
		},
	);

	it('holds when the request still out gets no answer', () => {
		const { state } = play([...spent, noAnswer(1_010, 2_100)]);
		expect(modeOf(state, 2_100).kind).toBe('quotaSpent');
	});

	it.each([200, 204, 299])(
		'ends with a %d answer: the pause left is no longer a spent quota',
		(status) => {
			const before = play(spent).state;
			const { state } = play([...spent, answeredAs(status, 1_010, 2_100)]);
			expect(modeOf(state, 2_100)).toEqual({
				kind: 'paused',
				until: pausedUntil(before, 2_100),
				limit: limitOf(before, 2_100),
			});
		},
	);
});

describe('a storm', () => {
	// Paced after a first limit, then two more waves within two seconds, nothing admitted.
	const storm = [
		...admitted(1_000, 10),
		send(1_100),
		refused(1_100, 1_150),
		send(2_000),
		refused(2_000, 2_050),
		send(2_010),
		send(2_100),
		refused(2_100, 2_150),
	];

	it('is not ended by a request that gets no answer (only an admission ends it)', () => {
		const before = play(storm).state;
		expect(modeOf(before, 2_200).kind).toBe('storm');
		const { state } = play([...storm, noAnswer(2_010, 2_200)]);
		expect(modeOf(state, 2_200)).toEqual(modeOf(before, 2_200));
	});
});

describe("a first limit's pause counts from when requests began to go together", () => {
	/** Ten admitted from `from`, then one refused within a pause of `from`. */
	const wave = (from: number): Step[] => [
		...admitted(from, 10),
		send(from + 100),
		refused(from + 100, from + 150),
	];

	it('not from a first request answered the moment it left (the token fetch)', () => {
		const { state } = play([send(1_000), ok(1_000, 1_000), ...wave(1_050)]);
		expect(firstPauseEnd(state, 1_200)).toBe(1_050 + FIRST_PAUSE_MAX_MS);
	});

	it('from the first request, when it was not answered before the second left', () => {
		const { state } = play([send(1_000), ...wave(1_050), ok(1_000, 1_210)]);
		expect(firstPauseEnd(state, 1_210)).toBe(1_000 + FIRST_PAUSE_MAX_MS);
	});

	it('not from requests admitted before a quiet spell of exactly QUIET_SPELL_MS', () => {
		const before = admitted(1_000, 3);
		const lastAnswer = before[before.length - 1].at;
		const from = lastAnswer + QUIET_SPELL_MS;
		const { state } = play([...before, ...wave(from)]);
		expect(firstPauseEnd(state, from + 150)).toBe(from + FIRST_PAUSE_MAX_MS);
	});

	it('not from requests before a quiet spell that only a request getting no answer broke', () => {
		const before = admitted(1_000, 3);
		const lastAnswer = before[before.length - 1].at;
		const from = lastAnswer + QUIET_SPELL_MS;
		const timedOut = [send(lastAnswer), noAnswer(lastAnswer, from - 1)];
		const { state } = play([...before, ...timedOut, ...wave(from)]);
		expect(firstPauseEnd(state, from + 150)).toBe(from + FIRST_PAUSE_MAX_MS);
	});

	it('from requests admitted before a spell just short of QUIET_SPELL_MS', () => {
		const before = admitted(1_000, 3);
		const lastAnswer = before[before.length - 1].at;
		const from = lastAnswer + QUIET_SPELL_MS - 1;
		const { state } = play([...before, ...wave(from)]);
		expect(pausedUntil(state, from + 150)).not.toBe(from + FIRST_PAUSE_MAX_MS);
	});
});

describe('a burst on credit saved during a quiet spell, refused', () => {
	// Ten admitted in 150 ms, then a 429: paced from 2 s on, with the burst it allowed as credit.
	const firstLimit = [...admitted(1_000, 10), send(1_100), refused(1_100, 1_150)];

	/** Starts as many as nextStart lets go at `now`, keeping the state it returns. */
	function burst(state: ControlState, now: number, most: number): ControlState {
		for (let count = 0; count < most; count++) {
			const asked = nextStart(state, now);
			if (asked.at !== 0) throw new Error(`only ${count} let go at ${now}`);
			state = transition(asked.state, { kind: 'started' }, now).state;
		}
		return state;
	}

	it('holds requests back until the burst has left a window counted from its first start', () => {
		let state = play(firstLimit).state;
		state = burst(state, 60_000, 2);
		state = burst(state, 60_010, 2);
		state = play([refused(60_010, 60_060)], state).state;
		expect(pausedUntil(state, 60_060)).toBe(60_000 + FIRST_PAUSE_MAX_MS);
	});

	it('a second burst, after a wave, is held back from its own first start', () => {
		// Two hundred admitted in 200 ms, then a 429: a pace of hundreds a second, with a burst as credit.
		let state = play([...admitted(1_000, 200, {}, 1), send(1_200), refused(1_200, 1_250)]).state;
		const rate = rateOf(state);
		// A burst, then its credit spent down to a few and requests paced from it (none a burst), one
		// of which is refused long after the burst: a wave.
		state = burst(state, 60_000, 1);
		let at = 60_000;
		for (let left = 1_000; nextStart(state, at).at === 0; left--) {
			if (left === 0) throw new Error('the credit never ran out');
			state = burst(state, at, 1);
		}
		const step = 1_000 / rate;
		for (let left = 1_000; at < 60_000 + BURST_BLAME_MS; left--) {
			if (left === 0) throw new Error('the pace never reached the wave');
			const next = nextStart(state, at + step);
			if (next.at !== 0) throw new Error(`paced start not let go at ${at + step}`);
			at += step;
			state = transition(next.state, { kind: 'started' }, at).state;
		}
		state = play([refused(at, at + 50)], state).state;
		expect(modeOf(state, at + 50).kind).toBe('paced');
		// A minute on, a burst on the credit saved, refused.
		state = burst(state, 120_000, 2);
		state = play([refused(120_000, 120_050)], state).state;
		expect(pausedUntil(state, 120_050)).toBe(120_000 + FIRST_PAUSE_MAX_MS);
	});

	it('a second burst a minute after the first, no 429 between, is held back from its own first start', () => {
		let state = play(firstLimit).state;
		state = burst(state, 60_000, 2);
		state = play([ok(60_000, 60_050), ok(60_000, 60_050)], state).state;
		state = burst(state, 120_000, 2);
		state = play([refused(120_000, 120_050)], state).state;
		expect(pausedUntil(state, 120_050)).toBe(120_000 + FIRST_PAUSE_MAX_MS);
	});

	it('a burst begins again BURST_BLAME_MS after the last burst start, when that burst can no longer be blamed', () => {
		let state = play(firstLimit).state;
		state = burst(state, 60_000, 2);
		state = burst(state, 60_000 + BURST_BLAME_MS, 2);
		state = play([refused(60_000 + BURST_BLAME_MS, 60_050 + BURST_BLAME_MS)], state).state;
		expect(pausedUntil(state, 60_050 + BURST_BLAME_MS)).toBe(
			60_000 + BURST_BLAME_MS + FIRST_PAUSE_MAX_MS,
		);
	});

	it('a start with one credit saved beyond the catch-up slack is a burst: refused, the pace is kept', () => {
		// Paced at ten a second from 2,000 with no credit: by 2,200 two are saved, one beyond the slack.
		const paced = play(firstLimit).state;
		const rate = rateOf(paced);
		let state = burst(paced, 2_200, 1);
		state = play([refused(2_200, 2_250)], state).state;
		expect(pausedUntil(state, 2_250)).toBe(2_200 + FIRST_PAUSE_MAX_MS);
		expect(rateOf(state)).toBe(rate);
	});

	it('a burst after a suspected window that was a bucket counts from its own first start, however soon', () => {
		let state = play(firstLimit).state;
		state = burst(state, 60_000, 2);
		// The registry begins to tell a count; a 429 at its end suspects a window, and the lone request
		// after it (itself on saved credit) is admitted: a bucket. Then one more on credit, refused.
		state = play(
			[
				ok(60_000, 60_020, { remaining: 2, resetMs: 5_000 }),
				ok(60_000, 60_030, { remaining: 1, resetMs: 5_000 }),
				send(60_040),
				refused(60_040, 60_060, { remaining: 0, resetMs: 4_000 }),
				send(60_160),
				ok(60_160, 60_180),
				send(60_200),
				refused(60_200, 60_220),
			],
			state,
		).state;
		expect(pausedUntil(state, 60_220)).toBe(60_160 + FIRST_PAUSE_MAX_MS);
	});

	it('a burst after a window suspected in the very ms of a burst start counts from its own first start', () => {
		let state = play(firstLimit).state;
		state = burst(state, 60_000, 2);
		// As above, but the 429 that suspects a window comes back in the ms the next request leaves on
		// saved credit: it came after that start, so the lone request after it begins a burst anew.
		state = play(
			[
				ok(60_000, 60_020, { remaining: 3, resetMs: 5_000 }),
				ok(60_000, 60_030, { remaining: 2, resetMs: 5_000 }),
			],
			state,
		).state;
		state = burst(state, 60_030, 1);
		state = burst(state, 60_040, 1);
		state = play([refused(60_030, 60_040, { remaining: 0, resetMs: 4_000 })], state).state;
		expect(modeOf(state, 60_040).kind).toBe('window');
		state = burst(state, 60_160, 1);
		state = play([ok(60_160, 60_180), ok(60_040, 60_190)], state).state;
		state = burst(state, 60_200, 1);
		state = play([refused(60_200, 60_220)], state).state;
		expect(pausedUntil(state, 60_220)).toBe(60_160 + FIRST_PAUSE_MAX_MS);
	});

	it('a 429 to a request paced long after the burst is a wave, not the burst refused', () => {
		let state = play(firstLimit).state;
		state = burst(state, 60_000, 2);
		state = play([refused(60_000 + BURST_BLAME_MS, 60_000 + BURST_BLAME_MS + 50)], state).state;
		expect(modeOf(state, 60_000 + BURST_BLAME_MS + 50).kind).toBe('paced');
	});
});

/**
 * Requests started as the pace lets them go from `from` to `until`, each answered `latency` later (or,
 * where `unanswered` says so, not at all), then one more refused: how a paced controller meets a wave.
 */
function pacedToWave(
	state: ControlState,
	from: number,
	until: number,
	latency: number,
	unanswered: (index: number) => boolean,
): { state: ControlState; sentAt: number; answered: number } {
	const pending: { at: number; sentAt: number; answer: boolean }[] = [];
	let answered = 0;
	const answerUpTo = (now: number) => {
		while (pending.length > 0 && pending[0].at <= now) {
			const { at, sentAt, answer } = pending.shift()!;
			const report = answer ? { sentAt, status: 200 } : { sentAt };
			const event = answer
				? { kind: 'answered' as const, report, workLeft: 1_000 }
				: { kind: 'unanswered' as const, report };
			state = transition(state, event, at).state;
			if (answer) answered += 1;
		}
	};
	/** Starts one at `at` if the pace lets it go then; else when it may (undefined: started). */
	let asks = 0;
	const start = (at: number): number | undefined => {
		// A pace that never lets the next go (or lets go without end) fails here, not by the test's timeout.
		if (++asks > 10_000) throw new Error(`no paced start by ${at}`);
		answerUpTo(at);
		const asked = nextStart(state, at);
		if (asked.at !== 0) return Math.max(at + 0.001, asked.at ?? Number.POSITIVE_INFINITY);
		state = transition(asked.state, { kind: 'started' }, at).state;
		return undefined;
	};
	let at = from;
	for (let index = 0; at <= until; ) {
		const later = start(at);
		if (later !== undefined) {
			at = later;
			continue;
		}
		pending.push({ at: at + latency, sentAt: at, answer: !unanswered(index++) });
	}
	for (let later = start(at); later !== undefined; later = start(at)) at = later;
	answerUpTo(at + latency);
	state = play([refused(at, at + latency)], state).state;
	return { state, sentAt: at, answered };
}

describe('a spell of waves', () => {
	it("paces at what the spell admitted per ms of sending, up to the requests whose answers are due (the latency's)", () => {
		const latency = 50;
		// Paced after a first limit, every answer `latency` after its request, until a wave.
		const first = [...admitted(1_000, 200, {}, 1, latency), send(1_200), refused(1_200, 1_250)];
		const wave = pacedToWave(play(first).state, 2_000, 3_000, latency, () => false);
		const waveAt = wave.sentAt + latency;
		const rate = rateOf(wave.state);
		// Paced on, every third request gets no answer; a second wave comes within the spell.
		const spell = pacedToWave(wave.state, waveAt, waveAt + 500, latency, (k) => k % 3 === 2);
		const admittedRate = (spell.answered * 1_000) / (spell.sentAt - waveAt);
		expect(admittedRate).toBeGreaterThan(WAVE_CEILING_BELOW * rate);
		expect(admittedRate).toBeLessThan(WAVE_DECREASE * rate);
		expect(modeOf(spell.state, spell.sentAt + latency).kind).toBe('paced');
		expect(rateOf(spell.state)).toBeCloseTo(admittedRate, 3);
	});
});

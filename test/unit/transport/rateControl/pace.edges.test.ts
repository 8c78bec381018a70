import {
	CATCH_UP_MS,
	CONFIRM_AFTER_MS,
	END_OF_WORK_S,
	LOWER_BOUND_GROWTH_PER_SECOND,
	MIN_ANSWERS_FOR_RATE,
	MIN_RATE,
	PROBE_GROWTH_PER_SECOND,
	RECOVERED_SHARE,
	RECOVERY_PER_ANSWER,
	SEARCH_GROWTH_PER_SECOND,
	SEARCH_LONG_WORK_S,
} from '../../../../nodes/shared/transport/rateControl/constants';
import { nextStart } from '../../../../nodes/shared/transport/rateControl/modes';
import type { ControlState } from '../../../../nodes/shared/transport/rateControl/state';
import { transition } from '../../../../nodes/shared/transport/rateControl/transitions';
import {
	admitted,
	ok,
	play,
	refused,
	send,
	type Step,
	rateOf,
	SUSPECTED_AT,
	suspectedWindow,
} from './story';

// The pace 429s taught, at its edges: when requests may start on its credit, how much may go at once,
// and how it climbs with each admission. Rates are read from the mode; what a step should do to them
// is reckoned from the exported constants.

/** How many requests nextStart lets go at `now` at once (each started as it is let go). */
function atOnce(state: ControlState, now: number): { count: number; state: ControlState } {
	let count = 0;
	for (; count < 1_000; count++) {
		const asked = nextStart(state, now);
		if (asked.at !== 0) return { count, state: asked.state };
		state = transition(asked.state, { kind: 'started' }, now).state;
	}
	return { count, state };
}

// Ten admitted in 150 ms, then a 429 within a second of the first: paced from 2 s on (the pause counts
// from when sending began), at what was admitted per pause, with the burst it allowed as credit.
const firstLimit = [...admitted(1_000, 10), send(1_100), refused(1_100, 1_150)];
const PAUSE_END = 2_000;

describe('starts on the credit', () => {
	it('after the first pause, one request per 1/rate, none on a guess', () => {
		const { state } = play(firstLimit);
		const rate = rateOf(state, PAUSE_END);
		const interval = 1_000 / rate;
		expect(nextStart(state, PAUSE_END).at).toBe(PAUSE_END + interval);
		expect(nextStart(state, PAUSE_END + interval - 1).at).toBe(PAUSE_END + interval);
		expect(atOnce(state, PAUSE_END + interval).count).toBe(1);
	});

	it('after a quiet spell, the burst the registry allowed goes at once, then one per 1/rate', () => {
		const { state } = play(firstLimit);
		const rate = rateOf(state, PAUSE_END);
		// Ten admitted over 150 ms at this rate: what was admitted beyond the rate is the burst.
		const burst = 10 - (rate * 150) / 1_000;
		const quiet = atOnce(state, 60_000);
		expect(quiet.count).toBe(Math.floor(burst));
		expect(nextStart(quiet.state, 60_000).at).toBeGreaterThan(60_000);
		expect(nextStart(quiet.state, 60_000).at).toBeLessThanOrEqual(60_000 + 1_000 / rate);
	});

	it('a timer late by up to CATCH_UP_MS may let that much of the pace go at once, where the registry holds no burst', () => {
		// 30 admitted in 30 ms, refused within its 100 ms Retry-After: a pace of 300/s and no burst left.
		const steps = [
			...admitted(1_000, 30, {}, 1),
			send(1_030),
			refused(1_030, 1_080, { retryAfterMs: 100 }),
		];
		const { state } = play(steps);
		const rate = rateOf(state, 1_200);
		const catchUp = (rate * CATCH_UP_MS) / 1_000;
		expect(catchUp).toBeGreaterThan(2);
		expect(atOnce(state, 60_000).count).toBe(Math.floor(catchUp));
	});

	it('the credit of a moment is reckoned once: asking again at the same moment lets no more go', () => {
		const { state } = play(firstLimit);
		const first = atOnce(state, 60_000);
		expect(atOnce(first.state, 60_000).count).toBe(0);
	});
});

describe('the climb with each admission', () => {
	/** One more request, admitted, with `workLeft` lookups still to send. */
	const admission = (state: ControlState, at: number, workLeft = 1_000) =>
		play([send(at), ok(at, at + 10, {}, workLeft)], state).state;

	it('before any later wave, with less than SEARCH_LONG_WORK_S of work at the pace, searches upwards by SEARCH_GROWTH_PER_SECOND per second of it', () => {
		const { state } = play(firstLimit);
		const rate = rateOf(state, PAUSE_END);
		const workLeft = Math.floor((rate * SEARCH_LONG_WORK_S) / 2);
		expect(rateOf(admission(state, 2_100, workLeft), 2_110)).toBeCloseTo(
			rate * Math.pow(1 + SEARCH_GROWTH_PER_SECOND, 1 / rate),
		);
	});

	it('from a floor (a first wave of fewer than MIN_ANSWERS_FOR_RATE admitted), doubles per second', () => {
		const steps = [
			...admitted(1_000, MIN_ANSWERS_FOR_RATE - 1),
			send(1_100),
			refused(1_100, 1_150, { retryAfterMs: 1_000 }),
		];
		const { state } = play(steps);
		const rate = rateOf(state, 3_000);
		expect(rateOf(admission(state, 3_000), 3_010)).toBeCloseTo(
			rate * Math.pow(1 + LOWER_BOUND_GROWTH_PER_SECOND, 1 / rate),
		);
	});

	it('with less work left than END_OF_WORK_S seconds of the pace, climbs no more', () => {
		const { state } = play(firstLimit);
		const rate = rateOf(state, PAUSE_END);
		const enough = Math.ceil(rate * END_OF_WORK_S);
		expect(rateOf(admission(state, 2_100, enough - 1), 2_110)).toBe(rate);
		expect(rateOf(admission(state, 2_100, enough), 2_110)).toBeGreaterThan(rate);
	});

	/**
	 * The first limit, then twice its pace admitted for a second, then a later wave: the registry took
	 * more than the pace, so the pace is cut and has a ceiling above it to climb back to. A sheet of
	 * SHORT_SHEET lookups, short of SEARCH_LONG_WORK_S at these paces: the search climbs slowly.
	 */
	const SHORT_SHEET = 200;
	function afterWave(): { state: ControlState; at: number } {
		const steps: Step[] = [...firstLimit];
		for (let index = 0; index < 20; index++) {
			const at = 2_100 + 50 * index;
			steps.push(send(at), ok(at, at + 10, {}, SHORT_SHEET));
		}
		steps.push(send(3_100), refused(3_100, 3_110));
		return { state: play(steps).state, at: 3_200 };
	}

	it('after a wave, climbs back towards the ceiling by RECOVERY_PER_ANSWER of the gap per answer', () => {
		let { state, at } = afterWave();
		const rates = [rateOf(state, at)];
		for (let index = 0; index < 3; index++) {
			state = admission(state, at);
			at += 20;
			rates.push(rateOf(state, at));
		}
		const steps = rates.slice(1).map((rate, index) => rate - rates[index]);
		expect(steps[0]).toBeGreaterThan(0);
		// Each step closes the same share of what is left of the gap.
		expect(steps[1] / steps[0]).toBeCloseTo(1 - RECOVERY_PER_ANSWER);
		expect(steps[2] / steps[1]).toBeCloseTo(1 - RECOVERY_PER_ANSWER);
	});

	it('back within RECOVERED_SHARE of the ceiling, probes beyond it by PROBE_GROWTH_PER_SECOND per second of the pace', () => {
		let { state, at } = afterWave();
		// The ceiling, from the first step back towards it (a share RECOVERY_PER_ANSWER of the gap).
		const cut = rateOf(state, at);
		state = admission(state, at);
		at += 20;
		const ceiling = cut + (rateOf(state, at) - cut) / RECOVERY_PER_ANSWER;
		// Recovery closes a share of the gap each answer; the first step that is no such share is the probe.
		for (let index = 0; index < 45; index++) {
			const previous = rateOf(state, at);
			state = admission(state, at);
			at += 20;
			const rate = rateOf(state, at);
			if (Math.abs(rate - (previous + (ceiling - previous) * RECOVERY_PER_ANSWER)) > 1e-9) {
				expect(previous).toBeGreaterThanOrEqual(RECOVERED_SHARE * ceiling);
				expect(rate).toBeCloseTo(previous * Math.pow(1 + PROBE_GROWTH_PER_SECOND, 1 / previous), 9);
				return;
			}
			expect(previous).toBeLessThan(RECOVERED_SHARE * ceiling);
		}
		throw new Error('the pace never came back near its ceiling');
	});

	it('from a first wave that admitted too few to measure, climbs back to the next wave but never probes beyond it', () => {
		// Fewer than MIN_ANSWERS_FOR_RATE admitted, then a 429: a floor; a second later twenty admitted
		// at 20 a second, then a wave: a ceiling.
		const steps: Step[] = [
			...admitted(1_000, MIN_ANSWERS_FOR_RATE - 1),
			send(1_100),
			refused(1_100, 1_150, { retryAfterMs: 1_000 }),
		];
		for (let index = 0; index < 20; index++) {
			const at = 3_000 + 50 * index;
			steps.push(send(at), ok(at, at + 10));
		}
		steps.push(send(4_000), refused(4_000, 4_010));
		let state = play(steps).state;
		let at = 4_100;
		// Some work left, not so much that it would be worth a 429 to find a higher limit.
		const workLeft = 200;
		let previous = rateOf(state, at);
		for (let index = 0; index < 45; index++) {
			state = admission(state, at, workLeft);
			at += 20;
			const rate = rateOf(state, at);
			if (rate === previous) {
				for (let more = 0; more < 3; more++) {
					state = admission(state, at, workLeft);
					at += 20;
					expect(rateOf(state, at)).toBe(rate);
				}
				return;
			}
			expect(rate).toBeGreaterThan(previous);
			previous = rate;
		}
		throw new Error('the pace never settled');
	});
});

// A pace no first wave measured: the first wave was a count's budget spent (its own event), and the next
// 429, nothing admitted since, set the pace at one request a pause (workers.ts nothingAdmitted). No first
// wave's floor was ever set, so the pace's own start holds it (unknownPace: a floor of 0); a later wave
// reads it, as it reads every floor.
describe('a pace set by a wave that admitted nothing', () => {
	const PROBE = SUSPECTED_AT + CONFIRM_AFTER_MS;
	const nothingAdmitted: Step[] = [
		// A bucket (the lone request after a suspected window admitted), its count then spent.
		...suspectedWindow,
		send(PROBE),
		ok(PROBE, PROBE + 50),
		send(1_400),
		ok(1_400, 1_450, { remaining: 1 }),
		send(1_500),
		refused(1_500, 1_550, { remaining: 0, resetMs: 300 }),
		// Refused again by a quota far from spent (no budget to pace by), nothing admitted since.
		send(1_900),
		refused(1_900, 1_950, { remaining: 4_000 }),
	];

	it('paces at one request a pause', () => {
		const { state, actions } = play(nothingAdmitted);
		expect(actions.slice(-2)).toEqual([
			{ kind: 'congestion', as: 'wave' },
			{ kind: 'pause', until: 2_950, why: 'firstLimit' },
		]);
		expect(rateOf(state)).toBe(1);
	});

	it('a later wave paces at what was admitted, never below MIN_RATE', () => {
		const later: Step[] = [];
		for (let index = 0; index < 20; index++) {
			const at = 4_000 + 100 * index;
			later.push(send(at), ok(at, at + 50));
		}
		later.push(send(6_100), refused(6_100, 6_150, { remaining: 4_000 }));
		const { state, actions } = play(later, play(nothingAdmitted).state);
		expect(actions).toContainEqual({ kind: 'congestion', as: 'wave' });
		// Ten a second admitted.
		expect(rateOf(state)).toBeGreaterThanOrEqual(MIN_RATE);
		expect(rateOf(state)).toBeLessThanOrEqual(10);
	});
});

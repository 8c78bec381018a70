import { ADMITTED_SPAN_ANSWERS } from '../../../../nodes/shared/transport/rateControl/constants';
import type { ControlState } from '../../../../nodes/shared/transport/rateControl/state';
import { admitted, noAnswer, ok, play, refused, rateOf, send, type Step } from './story';

// The edges of what a wave reads the registry admitted (rateLimited.ts admittedRate), story by story on
// the pure transition: which admissions a spell of waves counts, over which time, and where the last
// second begins.

// Forty admitted in a second, then a 429 told to wait 100 ms: paced from 2,110 on (about 36 a second).
const firstLimit: Step[] = [
	...admitted(1_000, 40, {}, 25),
	send(2_000),
	refused(2_000, 2_010, { retryAfterMs: 100 }),
];

const byTime = (steps: Step[]) => steps.sort((a, b) => a.at - b.at);

/** A request sent 20 ms before `at`, refused at `at`. */
const wave = (at: number, retryAfterMs?: number): Step[] => [
	send(at - 20),
	refused(at - 20, at, { retryAfterMs }),
];

/** The pace just before a wave at `at` and just after it. */
function paceAround(state: ControlState, at: number) {
	return { before: rateOf(state, at), after: rateOf(play(wave(at), state).state) };
}

const SPELL_BEGINS = 3_500;

/**
 * Paced after the first limit, a request every 20 ms from 2,200 (faster than the pace: no credit saved
 * up, no wave blamed on a burst), all admitted 30 ms later; at 3,500 a wave begins a spell, with 18 sent
 * in the 20 ms before it and admitted after it (a reserve the registry no longer has). From 3,520 one
 * request every 20 ms until `lastSent`, each admitted after the ms `latencyOf` gives, or lost (no
 * answer). `beforeWave`: steps put before the spell's first refusal, at the same moment.
 */
function spell(
	latencyOf: (sentAt: number) => number | undefined,
	lastSent: number,
	beforeWave: Step[] = [],
) {
	const steps: Step[] = [
		...admitted(2_200, 64, {}, 20, 30),
		...beforeWave,
		...wave(SPELL_BEGINS),
		...admitted(SPELL_BEGINS - 19, 18, {}, 1, 30),
	];
	for (let sentAt = SPELL_BEGINS + 20; sentAt <= lastSent; sentAt += 20) {
		const latency = latencyOf(sentAt);
		steps.push(
			send(sentAt),
			latency === undefined ? noAnswer(sentAt, sentAt + 20) : ok(sentAt, sentAt + latency),
		);
	}
	return play(byTime(steps), play(firstLimit).state).state;
}

/** `count` of the spell's requests admitted (20 ms later), one every 80 ms from 3,520; the rest lost. */
const everyFourth = (count: number) => (sentAt: number) =>
	(sentAt - SPELL_BEGINS - 20) % 80 === 0 && sentAt < SPELL_BEGINS + 20 + 80 * count
		? 20
		: undefined;

describe('how many admitted in a spell are enough to tell its rate', () => {
	// Ten admitted over the 870 ms of the spell (about 11 a second) against the last second's 32 (the
	// 18 of the reserve among them): the wave reads one or the other.
	const nine = paceAround(spell(everyFourth(9), 4_360), 4_400);

	it(`exactly ADMITTED_SPAN_ANSWERS / 2 (${ADMITTED_SPAN_ANSWERS / 2}) sent during the spell and admitted: they alone count`, () => {
		const ten = paceAround(spell(everyFourth(10), 4_360), 4_400);
		// Eleven a second is below half the pace: the wave halves it (the ceiling's floor).
		expect(ten.after).toBeCloseTo(ten.before / 2, 6);
		// One fewer and the last second counts, the reserve with it.
		expect(nine.after).toBe(32);
	});

	it('a request that left in the very millisecond the wave that began the spell came back (before it was heard) is of the time before the spell', () => {
		// As a 429 to a request sent at that moment belongs to the wave before it (rateLimited), so does
		// its admission: nine sent during the spell, too few; the last second counts, that one in it.
		const atTheWave = paceAround(
			spell(everyFourth(9), 4_360, [send(SPELL_BEGINS), ok(SPELL_BEGINS, SPELL_BEGINS + 30)]),
			4_400,
		);
		expect(atTheWave.after).toBe(nine.after + 1);
	});

	it('a request sent one answer time (as measured) before the wave counts: its answer was due by then', () => {
		// Nine as before, the tenth sent at 4,340 and admitted 20 ms later; the wave comes the measured
		// answer time after it was sent.
		const lastSent = 4_340;
		const state = spell((sentAt) => (sentAt === lastSent ? 20 : everyFourth(9)(sentAt)), lastSent);
		const waveAt = lastSent + state.latencyMs;
		expect(waveAt - state.latencyMs).toBe(lastSent);
		const { before, after } = paceAround(state, waveAt);
		expect(after).toBeCloseTo(before / 2, 6);
	});

	it('answers that came back sooner than answers take (a company the registry holds cached) count in the last second, not in the spell', () => {
		// Eight sent during the spell whose answers were due by the wave, and two sent 10 ms before the
		// wave, answered within a millisecond: the spell's span of sending does not hold those two, and
		// eight are too few. The last second counts them all.
		const eight = spell(everyFourth(8), 4_360);
		const cached = play(
			[send(4_390), ok(4_390, 4_391), send(4_392), ok(4_392, 4_393)],
			eight,
		).state;
		expect(4_400 - cached.latencyMs).toBeLessThan(4_390);
		expect(paceAround(cached, 4_400).after).toBe(paceAround(eight, 4_400).after + 2);
	});
});

describe('a storm pause within a spell', () => {
	it('is no time the registry refused: the wave after it reads what was admitted while sending', () => {
		// After the first limit a burst of saved-up credit is refused (the registry holds none: bursts
		// end); paced on, a request every 20 ms, all admitted 20 ms later. At 3,500 a wave begins a spell;
		// ten admitted, then three waves with nothing admitted (requests lost) make a storm: everybody
		// pauses the 200 ms told, to 4,040. Then every request admitted again, and a wave at 4,400.
		const burstRefused = play(
			[...admitted(2_200, 5, {}, 20, 30), ...wave(2_320, 100)],
			play(firstLimit).state,
		);
		expect(burstRefused.actions).toContainEqual(expect.objectContaining({ why: 'burstRefused' }));
		const steps: Step[] = [
			...admitted(2_420, 54, {}, 20, 20),
			...wave(SPELL_BEGINS),
			...wave(3_760, 200),
			...wave(3_800, 200),
			...wave(3_840, 200),
		];
		for (let sentAt = SPELL_BEGINS + 20; sentAt <= 4_360; sentAt += 20) {
			if (sentAt <= 3_700 || sentAt >= 4_040) steps.push(send(sentAt), ok(sentAt, sentAt + 20));
			else if (sentAt < 3_840) steps.push(send(sentAt), noAnswer(sentAt, sentAt + 20));
		}
		const stormed = play(byTime(steps), burstRefused.state);
		expect(stormed.actions).toContainEqual({ kind: 'pause', until: 4_040, why: 'storm' });
		// 27 admitted over the 680 ms of sending (the spell less the pause): about 40 a second, above
		// the pace. The wave takes its 5% and no more; over the whole spell it would read 25.
		const { before, after } = paceAround(stormed.state, 4_400);
		expect(after).toBeCloseTo(0.95 * before, 6);
	});
});

describe('the last second', () => {
	it('an answer exactly a second before the wave is of the second before', () => {
		// Paced after the first limit, a request every 20 ms from 2,200, every other one admitted 20 ms
		// later (one every 40 ms, the others lost), then a wave at 3,500. The second before it holds 24
		// admitted (2,540 to 3,460); the one at 2,500 is the second before that.
		const steps: Step[] = [];
		for (let sentAt = 2_200; sentAt <= 3_460; sentAt += 20)
			steps.push(
				send(sentAt),
				(sentAt - 2_200) % 40 === 0 ? ok(sentAt, sentAt + 20) : noAnswer(sentAt, sentAt + 20),
			);
		const state = play(byTime(steps), play(firstLimit).state).state;
		const { before, after } = paceAround(state, 3_500);
		expect(0.95 * before).toBeGreaterThan(25);
		expect(after).toBe(24);
	});
});

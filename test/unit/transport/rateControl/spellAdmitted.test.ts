import { CONGESTION_SPELL_MS } from '../../../../nodes/shared/transport/rateControl/constants';
import { admitted, noAnswer, ok, play, refused, send, type Step, rateOf } from './story';

// What a wave reads the registry admitted, deep into a long spell of congestion (waves less than a
// second apart for many seconds: queue-mode workers sharing one limit live in such spells), story by
// story on the pure transition.

// Forty admitted in a second, then a 429 told to wait 100 ms: paced from 2,110 on.
const firstLimit: Step[] = [
	...admitted(1_000, 40, {}, 25),
	send(2_000),
	refused(2_000, 2_010, { retryAfterMs: 100 }),
];

/**
 * From 2,200 for `seconds`: twenty admitted a second (one every 50 ms, answered 20 ms later) and,
 * every 500 ms, one request refused (another worker spent the token it would have had): a wave every
 * half second, one spell. Returns the pace after each wave, with when the wave came.
 */
function spell(seconds: number) {
	const steps: Step[] = [...admitted(2_200, 20 * seconds, {}, 50, 20)];
	for (let at = 2_525; at < 2_200 + 1_000 * seconds; at += 500)
		steps.push(send(at), refused(at, at + 20, { retryAfterMs: 100 }));
	steps.sort((a, b) => a.at - b.at);
	let state = play(firstLimit).state;
	const waves: { at: number; rate: number }[] = [];
	for (const step of steps) {
		state = play([step], state).state;
		if (step.event.kind === 'rateLimited') waves.push({ at: step.at, rate: rateOf(state) });
	}
	return waves;
}

describe('a long spell of waves', () => {
	it('a registry admitting twenty a second throughout: the last waves of the spell leave the pace where its first did', () => {
		const waves = spell(12);
		// The first wave after the first limit begins the spell. Settled three seconds into it; from
		// eight seconds on, waves that read only part of what was admitted would each lower it further.
		const settled = waves.find(({ at }) => at > waves[0].at + 3_000)!.rate;
		expect(settled).toBeGreaterThan(0.85 * 20);
		const late = waves.filter(({ at }) => at > waves[0].at + 8_000);
		expect(late.length).toBeGreaterThan(5);
		for (const { rate } of late) expect(rate).toBeGreaterThan(0.95 * settled);
	});
});

/**
 * Paced after the first limit, then at 3,500 a wave (the spell begins), with 18 requests sent in the
 * 20 ms before it and admitted after it; from then one request every 20 ms, one in three admitted (the
 * others unanswered), and the next wave `gap` ms after the first. Returns the pace after that wave.
 */
function paceAfterSecondWave(gap: number): number {
	const spellBegins = 3_500;
	const spell = Array.from({ length: Math.floor((gap - 60) / 20) + 1 }, (_, index) => ({
		at: spellBegins + 20 + 20 * index,
		admitted: index % 3 === 0,
	}));
	const steps: Step[] = [
		// Sending faster than the pace: no credit saved up, so no wave is blamed on a burst.
		...admitted(2_200, 64, {}, 20, 30),
		send(spellBegins - 20),
		refused(spellBegins - 20, spellBegins, { retryAfterMs: 100 }),
		...admitted(spellBegins - 19, 18, {}, 1, 30),
		...spell.flatMap(({ at, admitted }) => [
			send(at),
			admitted ? ok(at, at + 20) : noAnswer(at, at + 20),
		]),
		send(spellBegins + gap - 20),
		refused(spellBegins + gap - 20, spellBegins + gap, { retryAfterMs: 100 }),
	].sort((a, b) => a.at - b.at);
	return rateOf(play(steps, play(firstLimit).state).state);
}

describe('the edge of a spell', () => {
	it('a wave exactly CONGESTION_SPELL_MS after the last is of its spell: it reads what was sent since the spell began', () => {
		const atEdge = paceAfterSecondWave(CONGESTION_SPELL_MS);
		// Within the spell: the 18 sent before it began do not count, so the pace falls to the
		// ceiling's floor, half of it.
		expect(atEdge).toBe(paceAfterSecondWave(CONGESTION_SPELL_MS - 1));
		// A millisecond later a spell begins at the wave: the last second's answers count, those 18
		// among them.
		expect(paceAfterSecondWave(CONGESTION_SPELL_MS + 1)).toBeGreaterThan(1.3 * atEdge);
	});
});

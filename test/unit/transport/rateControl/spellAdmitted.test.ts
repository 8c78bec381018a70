import { modeOf } from '../../../../nodes/shared/transport/rateControl/modes';
import type { ControlState } from '../../../../nodes/shared/transport/rateControl/state';
import { admitted, play, refused, send, type Step } from './story';

// What a wave reads the registry admitted, deep into a long spell of congestion (waves less than a
// second apart for many seconds: queue-mode workers sharing one limit live in such spells), story by
// story on the pure transition.

const rateOf = (state: ControlState) => {
	const mode = modeOf(state, Number.POSITIVE_INFINITY);
	if (mode.kind !== 'paced') throw new Error(`expected a pace, got ${mode.kind}`);
	return mode.rate;
};

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

import {
	countRefused,
	noCount,
	othersSpend,
	recordRemaining,
	type CountState,
} from '../../../../nodes/shared/transport/rateControl/count';
import { SHARED_PROBE_GROWTH_PER_SECOND } from '../../../../nodes/shared/transport/rateControl/constants';
import { hourlyQuotaWaves, ok, play, send, rateOf } from './story';

// count.ts `othersSpend` at its edges, through the count's own functions: a quota's count (refused with
// plenty left) that fell over the counts kept by more than twice our own answers is spent by others too.

/** A count first told 4,000 on our first answer, at 1,000 ms. */
function toldOnce(): CountState {
	const count = noCount();
	recordRemaining(count, { now: 1_000, sentAt: 950, remaining: 4_000, answered: 1, inFlight: 0 });
	return count;
}

/** Refused while it said far more was left: the count is a longer quota's. */
function asQuota(count: CountState): CountState {
	countRefused(count, 1_100, 3_990);
	return count;
}

/** Told `remaining` after `answers` more of our answers, within the counts kept. */
function toldAfter(count: CountState, answers: number, remaining: number): CountState {
	recordRemaining(count, {
		now: 1_500,
		sentAt: 1_450,
		remaining,
		answered: 1 + answers,
		inFlight: 0,
	});
	return count;
}

describe("a quota's count that others spend (count.ts othersSpend)", () => {
	it('a fall of exactly twice our answers is not theirs; one more is', () => {
		expect(othersSpend(toldAfter(asQuota(toldOnce()), 4, 4_000 - 8))).toBe(false);
		expect(othersSpend(toldAfter(asQuota(toldOnce()), 4, 4_000 - 9))).toBe(true);
	});

	it('a quota counting down by one an answer (one process, GitHub-like) is ours alone', () => {
		expect(othersSpend(toldAfter(asQuota(toldOnce()), 4, 4_000 - 4))).toBe(false);
		// Nor a count that did not move, or rose.
		expect(othersSpend(toldAfter(asQuota(toldOnce()), 4, 4_000))).toBe(false);
	});

	it('our requests in flight when the count was told are ours: three sent at once, the last answered first', () => {
		// One process: after the count told 4,000, three requests leave together; the registry counts all
		// three, and the answer that comes first is the last one's (3,997), with two of ours still out.
		const count = asQuota(toldOnce());
		recordRemaining(count, {
			now: 1_500,
			sentAt: 1_202,
			remaining: 3_997,
			answered: 2,
			inFlight: 2,
		});
		expect(othersSpend(count)).toBe(false);
		// A fall beyond twice all of ours, answered or not, is others'.
		const spent = asQuota(toldOnce());
		recordRemaining(spent, {
			now: 1_500,
			sentAt: 1_202,
			remaining: 3_993,
			answered: 2,
			inFlight: 2,
		});
		expect(othersSpend(spent)).toBe(true);
	});

	it('a count that was never taken for a quota says nothing of others, however fast it fell', () => {
		expect(othersSpend(toldAfter(toldOnce(), 4, 4_000 - 100))).toBe(false);
	});

	it('a quota told on a 429 before any answer told a count: nothing to compare', () => {
		const count = noCount();
		countRefused(count, 1_000, 3_990);
		expect(othersSpend(count)).toBe(false);
	});
});

describe('a quota that others spend: the pace probes by time', () => {
	/**
	 * pace.edges' floor story (fewer than MIN_ANSWERS_FOR_RATE admitted, a 429, twenty admitted, a wave:
	 * a pace that climbs back to the wave's rate and no further) where every answer tells an hour's quota
	 * and both 429s say far more of it is left: the 429s are a per-second limit's. The quota falls by
	 * `fall` an answer. The rates of the pace over 45 more admissions, 200 lookups still to send.
	 */
	function ratesAfterWaves(fall: number, together = 1): number[] {
		const { steps, told } = hourlyQuotaWaves(fall);
		let state = play(steps).state;
		let at = 4_100;
		if (together > 1) {
			// A quiet spell longer than the counts kept, then `together` sent at once, the last answered first.
			const counts = Array.from({ length: together }, told).reverse();
			state = play(
				[
					...counts.map(() => send(8_000)),
					...counts.map((count, index) => ok(8_000, 8_050 + index, count, 200)),
				],
				state,
			).state;
			at = 8_100;
		}
		const rates = [rateOf(state, at)];
		for (let index = 0; index < 45; index++) {
			state = play([send(at), ok(at, at + 10, told(), 200)], state).state;
			at += 20;
			rates.push(rateOf(state, at));
		}
		return rates;
	}

	it('counting down by one an answer (one process): back to the wave, then no probing beyond it', () => {
		const rates = ratesAfterWaves(1);
		const settled = rates[rates.length - 1];
		expect(rates.slice(-4)).toEqual([settled, settled, settled, settled]);
	});

	it('three sent at once after a quiet spell, the last answered first (one process): no probing beyond the wave either', () => {
		const rates = ratesAfterWaves(1, 3);
		const settled = rates[rates.length - 1];
		expect(rates.slice(-4)).toEqual([settled, settled, settled, settled]);
		expect(settled).toBe(ratesAfterWaves(1)[rates.length - 1]);
	});

	it('falling by three an answer (others spend it too): it goes on climbing', () => {
		const rates = ratesAfterWaves(3);
		for (let index = 1; index < rates.length; index++)
			expect(rates[index]).toBeGreaterThan(rates[index - 1]);
		expect(rates[rates.length - 1]).toBeGreaterThan(ratesAfterWaves(1)[rates.length - 1]);
	});

	it('falling by three an answer: beyond the wave it grows SHARED_PROBE_GROWTH_PER_SECOND from the first answer, no quiet spell first', () => {
		// Each of its refusals may be the others' (a bucket of burst 1 refuses whoever comes within a token
		// of another's admission): a 2% probe waiting for 5 s of quiet lost to the waves (bench:sim s86).
		// The 45 answers come within a second of the wave: the quiet spell's probe would still creep.
		const rates = ratesAfterWaves(3);
		const last = rates.length - 1;
		expect(rates[last] / rates[last - 1]).toBeCloseTo(
			Math.pow(1 + SHARED_PROBE_GROWTH_PER_SECOND, 1 / rates[last - 1]),
			9,
		);
	});
});

import {
	countRefused,
	noCount,
	othersSpend,
	recordRemaining,
	type CountState,
} from '../../../../nodes/shared/transport/rateControl/count';

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

	it('a count that was never taken for a quota says nothing of others, however fast it fell', () => {
		expect(othersSpend(toldAfter(toldOnce(), 4, 4_000 - 100))).toBe(false);
	});

	it('a quota told on a 429 before any answer told a count: nothing to compare', () => {
		const count = noCount();
		countRefused(count, 1_000, 3_990);
		expect(othersSpend(count)).toBe(false);
	});
});

import { REMAINING_TTL_MS } from '../../../../nodes/shared/transport/rateControl/constants';
import { limitOf } from '../../../../nodes/shared/transport/rateControl/modes';
import { atOnce, ok, play, refused, send } from './story';

// A registry that tells its count on every answer and says it holds one or none (a bucket of burst 1):
// before any 429 the whole concurrency went at once on a count that told no budget to spend, and all but
// one were refused (bench:sim s24, s155: 50% of the sheet's requests were 429s). Slow start: what the
// count said is left, at least one, in flight, one more with each admission, until the first 429.

// The lone first request (no token stored: it carries the token exchange) admitted, its count 0 left.
const loneFirst = [send(1_000), ok(1_000, 1_045, { remaining: 0, limit: 1, resetMs: 1_000 })];

describe('a count that said it holds one or none, before any 429', () => {
	it('lets one go after the lone first answer said 0 left, not the whole concurrency', () => {
		const { state } = play(loneFirst);
		expect(limitOf(state, 1_045)).toEqual({ kind: 'unknown' });
		expect(atOnce(state, 1_045)).toBe(1);
	});

	it('lets as many go as it said were left, at least one: 1 left, one', () => {
		const { state } = play([send(1_000), ok(1_000, 1_045, { remaining: 1 })]);
		expect(atOnce(state, 1_045)).toBe(1);
	});

	it('one more in flight with each admission (doubling each round trip)', () => {
		const { state } = play([...loneFirst, send(1_045), ok(1_045, 1_600, { remaining: 0 })]);
		expect(atOnce(state, 1_600)).toBe(2);
		const { state: later } = play(
			[
				send(1_600),
				send(1_600),
				ok(1_600, 2_200, { remaining: 0 }),
				ok(1_600, 2_210, { remaining: 0 }),
			],
			state,
		);
		expect(atOnce(later, 2_210)).toBe(4);
	});

	it('an answer that was no admission (a 503) widens nothing', () => {
		const { state } = play([
			...loneFirst,
			send(1_045),
			{
				at: 1_600,
				event: { kind: 'answered', report: { sentAt: 1_045, status: 503 }, workLeft: 1_000 },
			},
		]);
		expect(atOnce(state, 1_600)).toBe(1);
	});

	it('a 300 is no admission (a redirect the lookup fails on): it widens nothing', () => {
		const { state } = play([
			...loneFirst,
			send(1_045),
			{
				at: 1_600,
				event: { kind: 'answered', report: { sentAt: 1_045, status: 300 }, workLeft: 1_000 },
			},
		]);
		expect(atOnce(state, 1_600)).toBe(1);
	});

	it('a 2xx other than 200 is an admission: it widens', () => {
		const { state } = play([
			...loneFirst,
			send(1_045),
			{
				at: 1_600,
				event: { kind: 'answered', report: { sentAt: 1_045, status: 204 }, workLeft: 1_000 },
			},
		]);
		expect(atOnce(state, 1_600)).toBe(2);
	});

	it('from the first 429 the 429s teach the limit: the slow start is over for good', () => {
		// A quiet spell after the lone first answer, then a refusal before any answer: the first wave
		// admitted nothing and leaves the limit unknown; after its pause the concurrency goes, as before.
		const { state } = play([...loneFirst, send(3_000), refused(3_000, 3_001)]);
		expect(limitOf(state, 5_000)).toEqual({ kind: 'unknown' });
		expect(atOnce(state, 5_000)).toBe(100);
		// An admission after it starts no slow start again, whatever its count says.
		const { state: after } = play([send(5_000), ok(5_000, 5_045, { remaining: 0 })], state);
		expect(atOnce(after, 5_045)).toBe(100);
	});
});

describe('where no count says so little', () => {
	it('an answer that tells no count leaves the concurrency alone to decide', () => {
		const { state } = play([send(1_000), ok(1_000, 1_045)]);
		expect(atOnce(state, 1_045)).toBe(100);
	});

	it('a count above 1 is a budget to spend (count.ts), not a slow start', () => {
		const { state } = play([send(1_000), ok(1_000, 1_045, { remaining: 30 })]);
		expect(limitOf(state, 1_045)).toMatchObject({ kind: 'headerBudget', left: 30 });
		expect(atOnce(state, 1_045)).toBe(30);
	});

	it('a count that once said more than 1, gone stale: the concurrency alone, no slow start', () => {
		// 30 left at 1,045, then 0 left; five seconds on (REMAINING_TTL_MS) the count says nothing.
		const { state } = play([
			send(1_000),
			ok(1_000, 1_045, { remaining: 30 }),
			send(1_045),
			ok(1_045, 1_090, { remaining: 0 }),
		]);
		expect(limitOf(state, 1_090 + REMAINING_TTL_MS)).toEqual({ kind: 'unknown' });
		expect(atOnce(state, 1_090 + REMAINING_TTL_MS)).toBe(100);
	});
});

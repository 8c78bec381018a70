import {
	CONFIRM_AFTER_MS,
	EARLY_RESET_HOLD_MS,
	MIN_WAIT_MS,
	WINDOW_FALLBACK_RESET_MS,
} from '../../../../nodes/shared/transport/rateControl/constants';
import { ASK_BEFORE_RESET_MS } from '../../../../nodes/shared/transport/rateControl/window';
import {
	limitOf,
	nextStart,
	waitIsTheLimit,
} from '../../../../nodes/shared/transport/rateControl/modes';
import {
	answeredAs,
	noAnswer,
	ok,
	play,
	refused,
	send,
	SUSPECTED_AT,
	suspectedWindow,
	type Step,
} from './story';

// A registry whose budget comes back whole at a reset, at its edges: when the next request may start
// (nextStart: 0 now, a moment, or undefined while only an answer can tell) and whether waiting is
// waiting for the limit itself (waitIsTheLimit), story by story on the pure transition.

const when = (steps: Step[], now: number) => nextStart(play(steps).state, now).at;

// A window suspected at SUSPECTED_AT (story.ts), its reset told for RESET; one request alone a moment
// later (PROBE) tells window from bucket.
const RESET = 1_090 + 4_000;
const PROBE = SUSPECTED_AT + CONFIRM_AFTER_MS;
const suspected = suspectedWindow;
// The probe refused too, telling a reset 3 s after it left (before RESET): a window, spent until then.
const NEXT = PROBE + 3_000;
const confirmed = [...suspected, send(PROBE), refused(PROBE, PROBE + 50, { resetMs: 3_000 })];
/** The next window's first request (alone), answered telling `remaining` and a reset 3 s after it left. */
const nextWindow = (remaining?: number) => [
	...confirmed,
	send(NEXT),
	ok(NEXT, NEXT + 50, { remaining, resetMs: 3_000 }),
];

it('the stories keep their order (the moments are reckoned from the exported constants)', () => {
	expect(PROBE + 50).toBeLessThan(NEXT);
	expect(NEXT).toBeLessThan(RESET);
});

describe('a suspected window', () => {
	it('sends nothing for a moment, then one request alone, and nobody until its answer', () => {
		expect(when(suspected, SUSPECTED_AT)).toBe(PROBE);
		expect(when(suspected, PROBE)).toBe(0);
		expect(when([...suspected, send(PROBE)], PROBE)).toBeUndefined();
		// Waiting for the moment is no limit's wait.
		expect(waitIsTheLimit(play(suspected).state, SUSPECTED_AT, PROBE)).toBe(false);
	});

	it('is a bucket where that request is admitted', () => {
		const { state } = play([...suspected, send(PROBE), ok(PROBE, PROBE + 50)]);
		expect(limitOf(state, PROBE + 50).kind).not.toBe('window');
	});

	it.each([
		['a 503', 503],
		['a 300', 300],
	])('asks again where that request gets %s (neither admitted nor refused)', (_case, status) => {
		const steps = [...suspected, send(PROBE), answeredAs(status, PROBE, PROBE + 50)];
		expect(limitOf(play(steps).state, PROBE + 50).kind).toBe('window');
		expect(when(steps, PROBE + 50)).toBe(0);
	});

	it('asks again where that request gets no answer', () => {
		expect(when([...suspected, send(PROBE), noAnswer(PROBE, PROBE + 50)], PROBE + 50)).toBe(0);
	});

	it('takes an answer to a request sent before the suspicion for no answer to the lone request', () => {
		const steps = [
			send(1_000),
			ok(1_000, 1_050, { remaining: 2, resetMs: 5_000 }),
			send(1_060),
			ok(1_060, 1_080, { remaining: 1, resetMs: 5_000 }),
			send(1_090),
			send(1_100),
			refused(1_090, SUSPECTED_AT, { remaining: 0, resetMs: 4_000 }),
			send(PROBE),
			ok(1_100, PROBE + 20),
		];
		expect(limitOf(play(steps).state, PROBE + 20).kind).toBe('window');
		expect(when(steps, PROBE + 20)).toBeUndefined();
	});
});

describe('a confirmed window', () => {
	it('sends nobody until the reset its refusal told, and that wait is the limit itself', () => {
		const { state } = play(confirmed);
		expect(when(confirmed, PROBE + 50)).toBe(NEXT);
		expect(waitIsTheLimit(state, PROBE + 50, NEXT)).toBe(true);
		// At the reset itself it is over: the first request of the next window may go.
		expect(waitIsTheLimit(state, NEXT, NEXT)).toBe(false);
		expect(when(confirmed, NEXT)).toBe(0);
	});

	it('is the limit from the moment the refusal comes, though it comes as the request leaves', () => {
		const { state } = play([...suspected, send(PROBE), refused(PROBE, PROBE, { resetMs: 3_000 })]);
		expect(waitIsTheLimit(state, PROBE, NEXT)).toBe(true);
	});

	it.each([
		['no reset', {}, RESET],
		['a later reset', { resetMs: RESET - PROBE + 1_000 }, RESET],
		['a reset already past when the answer came', { resetMs: 50 }, RESET],
	])('keeps the reset known where the refusal tells %s', (_case, told, expected) => {
		expect(when([...suspected, send(PROBE), refused(PROBE, PROBE + 50, told)], PROBE + 50)).toBe(
			expected,
		);
	});

	it.each([
		['a Retry-After', { retryAfterMs: 2_000 }, 2_000],
		['a Retry-After shorter than MIN_WAIT_MS', { retryAfterMs: 30 }, MIN_WAIT_MS],
		['nothing', {}, WINDOW_FALLBACK_RESET_MS],
	])(
		'refused after the reset it knew, telling no reset but %s: waits that long',
		(_case, told, waitMs) => {
			const steps = [...suspected, send(PROBE), refused(PROBE, RESET + 10, told)];
			expect(when(steps, RESET + 10)).toBe(RESET + 10 + waitMs);
		},
	);

	it('forgets a known reset the answer came at or after', () => {
		const steps = [...suspected, send(PROBE), refused(PROBE, RESET, { resetMs: 10_000 })];
		expect(when(steps, RESET)).toBe(PROBE + 10_000);
	});
});

describe('the first request of each window', () => {
	it('tells its budget: itself and what it says is left, sent at once', () => {
		const steps = nextWindow(2);
		expect(when(steps, NEXT + 50)).toBe(0);
		expect(when([...steps, send(NEXT + 60)], NEXT + 60)).toBe(0);
		expect(when([...steps, send(NEXT + 60), send(NEXT + 61)], NEXT + 61)).toBe(NEXT + 3_000);
	});

	it('with budget left, waiting is not for the reset; spent, it is', () => {
		const left = (remaining: number, sent: number) => {
			const steps = nextWindow(remaining);
			for (let index = 0; index < sent; index++) steps.push(send(NEXT + 60 + index));
			return waitIsTheLimit(play(steps).state, NEXT + 100, NEXT + 3_000);
		};
		expect(left(1, 0)).toBe(false);
		expect(left(2, 0)).toBe(false);
		expect(left(2, 2)).toBe(true);
	});

	it('without a count, is taken to give what the last one did', () => {
		const third = NEXT + 3_000;
		const steps = [...nextWindow(2), send(third), ok(third, third + 50, { resetMs: 3_000 })];
		expect(when([...steps, send(third + 60)], third + 60)).toBe(0);
		expect(when([...steps, send(third + 60), send(third + 61)], third + 61)).toBe(third + 3_000);
	});

	it('without a reset told, spent: asks again once nothing is in flight, waits while an answer may tell', () => {
		const steps = [...confirmed, send(NEXT), ok(NEXT, NEXT + 50, { remaining: 0 })];
		expect(when(steps, NEXT + 50)).toBe(0);
		expect(when([...steps, send(NEXT + 60)], NEXT + 60)).toBeUndefined();
	});

	it('refused, the reset came a little late: a short hold, twice as long the next time', () => {
		const first = [...confirmed, send(NEXT), refused(NEXT, NEXT + 50)];
		const again = NEXT + 50 + EARLY_RESET_HOLD_MS;
		expect(when(first, NEXT + 50)).toBe(again);
		expect(when([...first, send(again), refused(again, again + 50)], again + 50)).toBe(
			again + 50 + 2 * EARLY_RESET_HOLD_MS,
		);
	});
});

describe('the first request after a reset refused, telling when its budget is back', () => {
	it('saying none is left and a reset seconds away: nobody sends until a second before it (told in whole seconds, rounded up)', () => {
		// A sliding log whose requests of the last window have not left it yet: the next leaves in 5 s.
		const steps = [
			...confirmed,
			send(NEXT),
			refused(NEXT, NEXT + 50, { remaining: 0, resetMs: 5_000 }),
		];
		expect(when(steps, NEXT + 50)).toBe(NEXT + 4_000);
	});

	it.each([
		['no count', { resetMs: 5_000 }],
		['some left (another limit refused)', { remaining: 3, resetMs: 5_000 }],
		['a reset within the second', { remaining: 0, resetMs: 1_000 }],
		['a reset already past', { remaining: 0, resetMs: 40 }],
	])('saying %s: the short hold', (_case, told) => {
		const steps = [...confirmed, send(NEXT), refused(NEXT, NEXT + 50, told)];
		expect(when(steps, NEXT + 50)).toBe(NEXT + 50 + EARLY_RESET_HOLD_MS);
	});
});

describe('answers within a known window', () => {
	it("other requests' counts do not change the budget its first answer told", () => {
		const steps = [...nextWindow(2), send(NEXT + 60), ok(NEXT + 60, NEXT + 80, { remaining: 0 })];
		expect(when(steps, NEXT + 80)).toBe(0);
	});

	it('a later count above what the window reckons left raises the budget: it came back since (a sliding log)', () => {
		const spent = [...nextWindow(2), send(NEXT + 60), send(NEXT + 61)];
		expect(when(spent, NEXT + 61)).toBe(NEXT + 3_000);
		// 5 left after the request of NEXT + 60: with the one before it and itself, a budget of 7, 3 spent.
		const raised = [...spent, ok(NEXT + 60, NEXT + 80, { remaining: 5 })];
		expect(when([...raised, send(NEXT + 90), send(NEXT + 91), send(NEXT + 92)], NEXT + 92)).toBe(0);
		expect(
			when(
				[...raised, send(NEXT + 90), send(NEXT + 91), send(NEXT + 92), send(NEXT + 93)],
				NEXT + 93,
			),
		).toBe(NEXT + 3_000);
	});

	it('requests that left together count as after the one answering: its count tells no more than was left', () => {
		// A budget of 3 spent by the first request and two that left at one moment; one of them says 1 left.
		const steps = [
			...nextWindow(2),
			send(NEXT + 60),
			send(NEXT + 60),
			ok(NEXT + 60, NEXT + 80, { remaining: 1 }),
		];
		expect(when(steps, NEXT + 80)).toBe(NEXT + 3_000);
	});

	it('after a 429 cut the budget, a later count does not raise it again (a count others spend too)', () => {
		// A budget of 6; three more sent; the first of them refused: the budget is what came before it, 1.
		const cut = [
			...nextWindow(5),
			send(NEXT + 60),
			send(NEXT + 70),
			send(NEXT + 80),
			refused(NEXT + 60, NEXT + 90),
			ok(NEXT + 70, NEXT + 100, { remaining: 5 }),
		];
		expect(when(cut, NEXT + 100)).toBe(NEXT + 3_000);
	});

	describe('a count that rose between resets (a sliding log, its requests leaving one by one)', () => {
		// A budget of 3 spent; one answer says 2 left after it: 4, one more sent; all answered, 0 left.
		// Each answer tells when the oldest request leaves (NEXT + 3 s), as a log always does, and a
		// limit of 10: the log still holds requests from before the reset.
		const told = (sentAt: number, remaining: number, limit = 10) => ({
			remaining,
			resetMs: NEXT + 3_000 - sentAt,
			limit,
		});
		const rose = (limit = 10) => [
			...nextWindow(2),
			send(NEXT + 60),
			send(NEXT + 61),
			ok(NEXT + 60, NEXT + 80, told(NEXT + 60, 2, limit)),
			send(NEXT + 90),
		];
		const spent = (limit = 10) => [
			...rose(limit),
			ok(NEXT + 61, NEXT + 100, told(NEXT + 61, 0, limit)),
			ok(NEXT + 90, NEXT + 120, told(NEXT + 90, 0, limit)),
		];
		const ASK = NEXT + 3_000 - ASK_BEFORE_RESET_MS;

		it('spent with nothing in flight: one request alone may go before the told reset (told in whole seconds, rounded up)', () => {
			// Within the second before the reset, where the oldest request leaves.
			expect(ASK).toBeGreaterThan(NEXT + 2_000);
			expect(ASK).toBeLessThan(NEXT + 3_000);
			expect(when(rose(), NEXT + 90)).toBe(NEXT + 3_000);
			expect(when(spent(), NEXT + 120)).toBe(ASK);
			expect(when([...spent(), send(ASK)], ASK)).toBe(NEXT + 3_000);
		});

		it('that request refused: nobody until the reset itself', () => {
			const steps = [...spent(), send(ASK), refused(ASK, ASK + 1)];
			expect(when(steps, ASK + 1)).toBe(NEXT + 3_000);
		});

		it("that request admitted: the next reset is the one its answer tells (the oldest has left, the old reset's first request would find nothing)", () => {
			const steps = [
				...spent(),
				send(ASK),
				ok(ASK, ASK + 20, { remaining: 0, resetMs: 1_800, limit: 10 }),
			];
			expect(when(steps, ASK + 20)).toBe(ASK + 1_800 - ASK_BEFORE_RESET_MS);
		});

		it('our requests since the reset fill its whole limit: they leave a window after each left, so the reset itself', () => {
			expect(when(spent(4), NEXT + 120)).toBe(NEXT + 3_000);
			expect(when(spent(5), NEXT + 120)).toBe(ASK);
		});

		it('an answer telling no limit keeps the last one told; one telling no rate-limit headers at all is no bucket', () => {
			const noLimit = [
				...spent(4).slice(0, -1),
				ok(NEXT + 90, NEXT + 120, { remaining: 0, resetMs: NEXT + 3_000 - NEXT - 90 }),
			];
			expect(when(noLimit, NEXT + 120)).toBe(NEXT + 3_000);
			const bare = [...spent().slice(0, -1), ok(NEXT + 90, NEXT + 120, {})];
			expect(when(bare, NEXT + 120)).toBe(ASK);
		});

		it('a request sent within the budget is no early ask: its answer telling a later reset leaves the reset', () => {
			const steps = [
				...nextWindow(2),
				send(NEXT + 60),
				ok(NEXT + 60, NEXT + 80, { remaining: 1, resetMs: 2_940 }),
				send(NEXT + 90),
				ok(NEXT + 90, NEXT + 120, { remaining: 0, resetMs: 5_000 }),
			];
			expect(when(steps, NEXT + 120)).toBe(NEXT + 3_000);
		});

		it('a count that only went down: spent, the reset itself', () => {
			const steps = [
				...nextWindow(2),
				send(NEXT + 60),
				send(NEXT + 61),
				ok(NEXT + 60, NEXT + 80, told(NEXT + 60, 1)),
				ok(NEXT + 61, NEXT + 100, told(NEXT + 61, 0)),
			];
			expect(when(steps, NEXT + 100)).toBe(NEXT + 3_000);
		});

		it.each([
			['a reset of 0', 0],
			['no reset', undefined],
		])(
			'an admitted answer telling a count and %s is no log (a log says when its oldest request leaves): the reset itself',
			(_case, resetMs) => {
				// A bucket's reset says when one token is back: nothing to wait for while it holds one.
				const steps = [
					...nextWindow(2),
					send(NEXT + 60),
					send(NEXT + 61),
					ok(NEXT + 60, NEXT + 80, { remaining: 2, resetMs, limit: 10 }),
					send(NEXT + 90),
					ok(NEXT + 61, NEXT + 100, told(NEXT + 61, 0)),
					ok(NEXT + 90, NEXT + 120, told(NEXT + 90, 0)),
				];
				expect(when(steps, NEXT + 120)).toBe(NEXT + 3_000);
			},
		);
	});

	it('a later answer without a count leaves the budget as it was', () => {
		const steps = [...nextWindow(2), send(NEXT + 60), ok(NEXT + 60, NEXT + 80, {})];
		expect(when(steps, NEXT + 80)).toBe(0);
	});

	it('a 429 cuts the budget to what was admitted before it, until the reset; answers that spend nothing give starts back', () => {
		// A budget of 4; three more sent; the second refused: 1 was admitted before it.
		const cut = [
			...nextWindow(3),
			send(NEXT + 60),
			send(NEXT + 70),
			send(NEXT + 80),
			refused(NEXT + 60, NEXT + 100),
		];
		expect(when(cut, NEXT + 100)).toBe(NEXT + 3_000);
		// A 503, a request that got no answer, a 401: the registry spent nothing on them.
		const s3 = [...cut, answeredAs(503, NEXT + 70, NEXT + 110)];
		expect(when(s3, NEXT + 110)).toBe(NEXT + 3_000);
		const s4 = [...s3, noAnswer(NEXT + 80, NEXT + 120)];
		expect(when(s4, NEXT + 120)).toBe(NEXT + 3_000);
		// The first request's own 401 gives back the last start of the one the 429 left.
		expect(when([...s4, answeredAs(401, NEXT, NEXT + 130)], NEXT + 130)).toBe(0);
	});

	it('a 500 spends nothing, a 499 or 404 spends its start', () => {
		const spent = (status: number) =>
			when(
				[...nextWindow(1), send(NEXT + 60), answeredAs(status, NEXT + 60, NEXT + 80)],
				NEXT + 80,
			);
		expect(spent(500)).toBe(0);
		expect(spent(499)).toBe(NEXT + 3_000);
		expect(spent(404)).toBe(NEXT + 3_000);
	});

	it('a 429 telling an earlier reset than known moves the reset; telling none keeps it', () => {
		const refusedWith = (resetMs?: number) =>
			when(
				[
					...nextWindow(3),
					send(NEXT + 60),
					send(NEXT + 70),
					refused(NEXT + 70, NEXT + 100, { resetMs }),
				],
				NEXT + 100,
			);
		expect(refusedWith(1_000)).toBe(NEXT + 70 + 1_000);
		expect(refusedWith()).toBe(NEXT + 3_000);
	});

	it('a second 429 keeps the budget the first cut; each cut counts the starts up to the refused one', () => {
		// A budget of 4: three more sent; the second refused (1 admitted before it), then the last.
		const steps = [
			...nextWindow(3),
			send(NEXT + 60),
			send(NEXT + 70),
			send(NEXT + 80),
			refused(NEXT + 60, NEXT + 100),
			refused(NEXT + 80, NEXT + 110),
			answeredAs(503, NEXT + 70, NEXT + 120),
		];
		// The budget is 1, and the first request spent it.
		expect(when(steps, NEXT + 120)).toBe(NEXT + 3_000);
		expect(when([...steps, answeredAs(503, NEXT, NEXT + 130)], NEXT + 130)).toBe(0);
	});

	it("an answer to a request sent before the reset speaks of the window that ended, not of this one's reset", () => {
		// A request of the second window answered late, after the third began, telling a reset 3.5 s after it left.
		const third = NEXT + 3_000;
		const steps = [
			...nextWindow(2),
			send(NEXT + 60),
			send(third),
			ok(NEXT + 60, third + 10, { remaining: 0, resetMs: 3_500 }),
			ok(third, third + 50, { remaining: 2, resetMs: 3_000 }),
			send(third + 60),
			send(third + 61),
		];
		expect(when(steps, third + 61)).toBe(third + 3_000);
	});
});

describe('answers that stop telling', () => {
	it('a window whose answers no longer tell a count or a reset gives what the last told; spent, one request asks and nobody else goes until its answer', () => {
		// The last window told 2 and its reset; this one's answers tell nothing (headers dropped on the
		// way, a cache in front): taken to give 2 again, with no reset ahead. Spent, only an answer can
		// tell when there is room: one asks, and a request more would only meet the spent window.
		const AFTER = NEXT + 3_000;
		const spent = [
			...nextWindow(1),
			send(AFTER),
			send(AFTER + 1),
			ok(AFTER, AFTER + 50),
			ok(AFTER + 1, AFTER + 51),
		];
		expect(when(spent, AFTER + 60)).toBe(0);
		expect(when([...spent, send(AFTER + 60)], AFTER + 70)).toBeUndefined();
	});
});

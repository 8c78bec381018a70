import {
	LOWER_BOUND_GROWTH_PER_SECOND,
	QUOTA_LEFT_AT_429,
	REFILL_SPAN_MIN_MS,
	REFILL_WINDOW_MS,
	REMAINING_TTL_MS,
	SHARED_COUNT_QUIET_MS,
} from '../../../../nodes/shared/transport/rateControl/constants';
import { limitOf, modeOf } from '../../../../nodes/shared/transport/rateControl/modes';
import { admitted, ok, play, refused, send, type Step } from './story';

// The registry's own count (X-RateLimit-Remaining or another dialect's) at its edges: how long it is
// believed, what is left of it as requests leave and answers overtake each other, which 429 shows it to
// be another limit's, and the refill measured from how it moves. Read through the mode: whether the
// count governs the next start (headerBudget), what it says is left, and how fast it refills.

/** The mode's figures where the count governs; undefined where it does not. */
function budget(steps: Step[], at: number) {
	const mode = modeOf(play(steps).state, at);
	return mode.kind === 'headerBudget'
		? { left: mode.left, refillIntervalMs: mode.refillIntervalMs }
		: undefined;
}

describe('how long a count is believed', () => {
	const told = [send(1_000), ok(1_000, 1_050, { remaining: 50 })];

	it('until REMAINING_TTL_MS after the answer that told it, and no longer', () => {
		expect(budget(told, 1_050 + REMAINING_TTL_MS - 1)?.left).toBe(50);
		expect(budget(told, 1_050 + REMAINING_TTL_MS)).toBeUndefined();
	});

	it('not after a 429 that no count explains: the pace governs, not a count of nothing', () => {
		// A pace learned first, then a count, then a 429 telling no reset: a wave, and the count is gone.
		const steps = [
			...admitted(1_000, 10),
			send(1_100),
			refused(1_100, 1_150),
			send(2_000),
			ok(2_000, 2_050, { remaining: 5 }),
			send(2_100),
			refused(2_100, 2_150),
		];
		expect(limitOf(play(steps).state, 2_150).kind).toBe('paced');
	});
});

describe('what the count says is left', () => {
	it('a count never above 1 says nothing (a constant 1 looks like a bucket of one)', () => {
		expect(
			budget(
				[
					send(1_000),
					ok(1_000, 1_050, { remaining: 1 }),
					send(1_100),
					ok(1_100, 1_150, { remaining: 1 }),
				],
				1_150,
			),
		).toBeUndefined();
	});

	// Each count below falls by our own requests alone (one process): a count falling faster is spent by
	// others too, and half of it is ours (the stories of 'a count others spend too').
	it('a count that rose above 1 is believed down to its last request', () => {
		const steps = [
			send(1_000),
			ok(1_000, 1_050, { remaining: 2 }),
			send(1_100),
			ok(1_100, 1_150, { remaining: 1 }),
		];
		expect(budget(steps, 1_150)?.left).toBe(1);
	});

	it('a count that rose above 1 stays believed while it says 1 is left and requests are admitted', () => {
		const steps = [send(1_000), ok(1_000, 1_050, { remaining: 2 })];
		for (const at of [1_100, 1_200, 1_300]) steps.push(send(at), ok(at, at + 50, { remaining: 1 }));
		expect(budget(steps, 1_350)?.left).toBe(1);
	});

	it('less the requests in flight when it was told and those started since', () => {
		const steps = [
			send(1_000),
			send(1_001),
			send(1_002),
			ok(1_000, 1_050, { remaining: 10 }),
			send(1_060),
		];
		expect(budget(steps, 1_060)?.left).toBe(10 - 2 - 1);
	});
});

describe('answers that overtake each other', () => {
	it('a count from a request that left before the one that told the current count is older news', () => {
		const steps = [
			send(1_000),
			send(1_010),
			ok(1_010, 1_050, { remaining: 5 }),
			ok(1_000, 1_060, { remaining: 6 }),
		];
		// 5 told while the first was still out, which it then spent.
		expect(budget(steps, 1_060)?.left).toBe(5 - 1);
	});

	it('a count from a later request is news, even where it says more is left (a refill)', () => {
		// 8 told with two of ours still out, then 6 by the later of them (the last one still out): as
		// older news, 8 less the two out would leave 6.
		const lower = [
			send(1_000),
			send(1_010),
			send(1_020),
			ok(1_000, 1_050, { remaining: 8 }),
			ok(1_010, 1_060, { remaining: 6 }),
		];
		expect(budget(lower, 1_060)?.left).toBe(6 - 1);
		const higher = [
			send(1_000),
			ok(1_000, 1_050, { remaining: 3 }),
			send(1_100),
			ok(1_100, 1_150, { remaining: 6 }),
		];
		expect(budget(higher, 1_150)?.left).toBe(6);
	});

	it('of requests that left together, the lowest count is the latest', () => {
		const together = (first: number, second: number) => [
			send(1_000),
			send(1_000),
			send(1_000),
			ok(1_000, 1_050, { remaining: first }),
			ok(1_000, 1_060, { remaining: second }),
		];
		// The first answer: its count less the two still out.
		expect(budget(together(5, 3), 1_060)?.left).toBe(3 - 1);
		expect(budget(together(2, 5), 1_060)?.left).toBe(2 - 2);
		expect(budget(together(5, 5), 1_060)?.left).toBe(5 - 2);
	});

	it('a count older than REMAINING_TTL_MS gives way to any answer, older news or not', () => {
		const steps = [
			send(1_000),
			send(1_010),
			ok(1_010, 1_050, { remaining: 5 }),
			ok(1_000, 1_050 + REMAINING_TTL_MS, { remaining: 6 }),
		];
		expect(budget(steps, 1_050 + REMAINING_TTL_MS)?.left).toBe(6);
	});
});

describe('which limit a 429 shows the count to be', () => {
	/** A count of 50, then a 429 as told (no reset: no window is suspected). */
	const refusedWith = (told: { remaining?: number }, sends = 0) => {
		const steps = [send(1_000), ok(1_000, 1_050, { remaining: 50 })];
		for (let index = 0; index < sends; index++) steps.push(send(1_100 + index));
		steps.push(send(1_200), refused(1_200, 1_250, told));
		return play(steps).actions.filter((action) => action.kind === 'congestion');
	};

	it("a 429 telling QUOTA_LEFT_AT_429 or more left is another limit's: a wave teaches the pace", () => {
		expect(refusedWith({ remaining: QUOTA_LEFT_AT_429 })).toEqual([
			{ kind: 'congestion', as: 'wave' },
		]);
		expect(refusedWith({ remaining: QUOTA_LEFT_AT_429 - 1 })).toEqual([
			{ kind: 'congestion', as: 'budgetSpent' },
		]);
	});

	it('a 429 telling no count is judged by what the count says is left', () => {
		// 50 told, then requests until fewer than QUOTA_LEFT_AT_429 are left: the count's own limit.
		expect(refusedWith({}, 50 - QUOTA_LEFT_AT_429)).toEqual([
			{ kind: 'congestion', as: 'budgetSpent' },
		]);
		expect(refusedWith({}, 50 - QUOTA_LEFT_AT_429 - 2)).toEqual([
			{ kind: 'congestion', as: 'wave' },
		]);
	});

	/** A count taken for another quota's (429 at 50 left), then a 429 as told, then a count of 4. */
	const afterQuota = (told: { remaining?: number }) => [
		send(1_000),
		ok(1_000, 1_050, { remaining: 50 }),
		send(1_100),
		refused(1_100, 1_150, { remaining: 50 }),
		send(2_500),
		refused(2_500, 2_550, told),
		send(3_000),
		ok(3_000, 3_050, { remaining: 4 }),
	];

	it("a count once taken for another quota's governs again once a 429 comes at its end", () => {
		// From 50 to 4 over three requests of ours: others spent it too, so half of the 4 is ours.
		expect(budget(afterQuota({ remaining: 0 }), 3_050)?.left).toBe(2);
	});

	it("a 429 that shows another quota's says nothing of others spending the count", () => {
		// A count of 3; a 429 telling 50 left (an hour's quota) while our reckoning left 2: not the count's
		// refusal, so no sign of others. Then ours spent and refused at its end (the count's own again),
		// and a count of 3, as before: ours alone, all of it.
		const steps = [
			send(1_000),
			ok(1_000, 1_050, { remaining: 3 }),
			send(1_100),
			refused(1_100, 1_150, { remaining: 50 }),
			send(1_200),
			send(1_201),
			refused(1_201, 1_250, { remaining: 0 }),
			ok(1_200, 1_260),
			send(1_300),
			ok(1_300, 1_350, { remaining: 3 }),
		];
		// Read once the last 429's pause is over.
		expect(budget(steps, 2_100)?.left).toBe(3);
	});

	it('a 429 with some of it left, or telling nothing, leaves it taken for another quota', () => {
		expect(budget(afterQuota({ remaining: 5 }), 3_050)).toBeUndefined();
		expect(budget(afterQuota({}), 3_050)).toBeUndefined();
	});
});

describe('a count others spend too (queue-mode workers)', () => {
	/**
	 * A count of 20, `sends` requests, the last refused (0 left), the others admitted (no count told),
	 * then after the 429's pause a count of 20 again.
	 */
	const refusedAfter = (sends: number) => {
		const steps = [send(1_000), ok(1_000, 1_050, { remaining: 20 })];
		for (let index = 0; index < sends; index++) steps.push(send(1_100 + index));
		steps.push(refused(1_100 + sends - 1, 1_150, { remaining: 0 }));
		for (let index = 0; index < sends - 1; index++) steps.push(ok(1_100 + index, 1_160));
		steps.push(send(2_200), ok(2_200, 2_250, { remaining: 20 }));
		return steps;
	};

	it('refused while it still left us a request beyond the refused one: half is ours', () => {
		// One of 20 sent, refused: somebody else spent the other 19.
		expect(budget(refusedAfter(1), 2_250)?.left).toBe(10);
		expect(budget(refusedAfter(1), 1_150 + SHARED_COUNT_QUIET_MS - 1)?.left).toBe(10);
	});

	it('all of it again SHARED_COUNT_QUIET_MS after that refusal (the others may be done)', () => {
		expect(budget(refusedAfter(1), 1_150 + SHARED_COUNT_QUIET_MS)?.left).toBe(20);
	});

	it('refused at its end, or with only the refused request left, it is ours alone', () => {
		// 21 sent of 20, and 20 of 20 (the refused one the last); 19 of 20 left one beyond it to somebody.
		expect(budget(refusedAfter(21), 2_250)?.left).toBe(20);
		expect(budget(refusedAfter(20), 2_250)?.left).toBe(20);
		expect(budget(refusedAfter(19), 2_250)?.left).toBe(10);
	});

	it('half of it is ours, and our requests since it was told come out of our half', () => {
		// Six more in flight after the count of 20: ours is 10, 4 of it left (halving 20 - 6 left 7, and
		// two workers each holding that much in flight held more than the count: bench/sim/queueShape.ts).
		const steps = [...refusedAfter(1), ...[0, 1, 2, 3, 4, 5].map((index) => send(2_300 + index))];
		expect(budget(steps, 2_310)?.left).toBe(4);
	});

	/** A count of 50, then `answers` more of ours answered one by one, the last telling `remaining`. */
	const fallenTo = (answers: number, remaining: number) => {
		const steps = [send(1_000), ok(1_000, 1_050, { remaining: 50 })];
		for (let index = 0; index < answers; index++) {
			const at = 1_100 + 10 * index;
			steps.push(send(at), ok(at, at + 5, index === answers - 1 ? { remaining } : {}));
		}
		return steps;
	};

	it('fallen by more than every request of ours since and one more, with no 429: others spend it, half is ours', () => {
		expect(budget(fallenTo(10, 38), 1_200)?.left).toBe(19);
		expect(budget(fallenTo(10, 38), 1_195 + SHARED_COUNT_QUIET_MS)?.left).toBe(38);
	});

	it('fallen by our own requests, or less (a refill): ours alone', () => {
		expect(budget(fallenTo(10, 40), 1_200)?.left).toBe(40);
		expect(budget(fallenTo(10, 45), 1_200)?.left).toBe(45);
	});

	it('fallen by one more than our own requests: a bucket refilling between whole counts, ours alone', () => {
		// A bucket tells its tokens rounded down (50.9 then 40.0 after 10 of ours and 0.1 refilled):
		// two counts' fall is up to one more than what was spent between them.
		expect(budget(fallenTo(10, 39), 1_200)?.left).toBe(39);
	});
});

describe('the refill, measured from how the count moves', () => {
	it('is what came back (the count now, less then, plus the answers since) per second', () => {
		const steps = [
			send(1_000),
			ok(1_000, 1_050, { remaining: 10 }),
			...admitted(1_100, 4),
			send(2_000),
			ok(2_000, 2_050, { remaining: 8 }),
		];
		// Over the second from 1,050 to 2,050: 8 - 10 + 5 answers = 3 came back.
		expect(budget(steps, 2_050)?.refillIntervalMs).toBeCloseTo(1_000 / 3);
	});

	// Each story's counts stay below the first (a count at its peak says only what we sent).
	it('is none where nothing came back, nor where counts span less than REFILL_SPAN_MIN_MS', () => {
		/** A count of 10, then an answer without one, then a count `spanMs` later: 1 - `spent` came back. */
		const between = (spanMs: number, spent: number) => [
			send(1_000),
			ok(1_000, 1_050, { remaining: 10 }),
			send(1_050 + spanMs - 30),
			ok(1_050 + spanMs - 30, 1_050 + spanMs - 20),
			send(1_050 + spanMs - 10),
			ok(1_050 + spanMs - 10, 1_050 + spanMs, { remaining: 10 - 1 - spent }),
		];
		expect(budget(between(1_000, 1), 2_050)?.refillIntervalMs).toBe(0);
		expect(
			budget(between(REFILL_SPAN_MIN_MS - 1, 0), 1_050 + REFILL_SPAN_MIN_MS)?.refillIntervalMs,
		).toBe(0);
		// One came back over exactly the shortest span.
		expect(
			budget(between(REFILL_SPAN_MIN_MS, 0), 1_050 + REFILL_SPAN_MIN_MS)?.refillIntervalMs,
		).toBeCloseTo(REFILL_SPAN_MIN_MS);
	});

	it('is measured over the last REFILL_WINDOW_MS only, a count exactly that old included', () => {
		// Counts at three moments, each one lower and two answers later: one came back between each.
		const at = (moments: number[]) =>
			moments.flatMap((moment, index) => [
				...(index > 0 ? [send(moment - 30), ok(moment - 30, moment - 20)] : []),
				send(moment - 10),
				ok(moment - 10, moment, { remaining: 12 - index }),
			]);
		const last = 1_000 + REFILL_WINDOW_MS + REFILL_WINDOW_MS / 4;
		const middle = 1_000 + REFILL_WINDOW_MS / 3;
		expect(last - middle).toBeGreaterThanOrEqual(REFILL_SPAN_MIN_MS);
		// The first is too old: one came back from the middle one's moment to the last.
		expect(budget(at([1_000, middle, last]), last)?.refillIntervalMs).toBeCloseTo(last - middle);
		// Exactly REFILL_WINDOW_MS old, the first still counts: two came back since it.
		const edge = 1_000 + REFILL_WINDOW_MS;
		expect(budget(at([1_000, middle, edge]), edge)?.refillIntervalMs).toBeCloseTo(
			(edge - 1_000) / 2,
		);
	});

	it('from a count that stays at its peak is only what we sent: the interval shrinks with each such answer', () => {
		// A count of 10 told again and again, one answer without a count between: 2 came back each time.
		const atPeak = (moments: number[]) => [
			send(990),
			ok(990, 1_000, { remaining: 10 }),
			...moments.flatMap((moment) => [
				send(moment - 30),
				ok(moment - 30, moment - 20),
				send(moment - 10),
				ok(moment - 10, moment, { remaining: 10 }),
			]),
		];
		const shrunk = (intervalMs: number) =>
			intervalMs * Math.pow(1 + LOWER_BOUND_GROWTH_PER_SECOND, -intervalMs / 1_000);
		// Measured 500 ms (2 a second), and at the peak: a little less.
		const first = shrunk(500);
		expect(budget(atPeak([2_000]), 2_000)?.refillIntervalMs).toBeCloseTo(first);
		// Measured 375 ms next (4 over 1.5 s), but the interval kept is shorter: it shrinks from there.
		expect(budget(atPeak([2_000, 2_500]), 2_500)?.refillIntervalMs).toBeCloseTo(shrunk(first));
		// Below the peak the refill measured holds again.
		const below = [...atPeak([2_000]), send(2_990), ok(2_990, 3_000, { remaining: 9 })];
		expect(budget(below, 3_000)?.refillIntervalMs).toBeCloseTo(1_000 / ((9 - 10 + 3) / 2));
	});
});

describe('a quota others spend too', () => {
	it('told on a 429 before any answer told a count, then an answer telling none: nothing to compare', () => {
		// The 429's count leaves plenty: a longer quota's. Whether others spend it is read from how the
		// counts told on answers fell against our own answers; with none told yet there is nothing to read.
		const steps = [
			send(1_000),
			send(1_001),
			refused(1_001, 1_002, { remaining: 5 * QUOTA_LEFT_AT_429 }),
			ok(1_000, 1_050),
		];
		expect(() => play(steps)).not.toThrow();
	});
});

import {
	OVERRUN_ADMISSIONS,
	OVERRUN_RESET_DOUBTED_MS,
	REMAINING_TTL_MS,
} from '../../../../nodes/shared/transport/rateControl/constants';
import {
	countAdmitted,
	noCount,
	overrunReset,
	type CountState,
} from '../../../../nodes/shared/transport/rateControl/count';
import { RESET_RESOLUTION_MS } from '../../../../nodes/shared/transport/rateControl/headers/reading';

// A count the registry admits requests past (count.ts countAdmitted), at its edges: which admissions count,
// how many a lagging count may let through, and which reset a 429 then tells of that count (overrunReset).

const HOUR_MS = 3_600_000;

/** A count that said 0 at 1,000 ms, its reset an hour on. */
const atZero = (changes: Partial<CountState> = {}): CountState => ({
	...noCount(),
	remaining: 0,
	remainingAt: 1_000,
	remainingSentAt: 950,
	remainingResetAt: HOUR_MS,
	peak: 5_000,
	...changes,
});

/** Admits `times` requests sent at `sentAt` (answered 50 ms later). */
function admit(count: CountState, times: number, sentAt = 1_000): CountState {
	for (let index = 0; index < times; index++) countAdmitted(count, sentAt, sentAt + 50);
	return count;
}

describe('admissions past a count of 0 (count.ts countAdmitted)', () => {
	it(`a lagging count's few (${OVERRUN_ADMISSIONS}) leave it the budget; one more and it is one the registry does not enforce`, () => {
		const lagging = admit(atZero(), OVERRUN_ADMISSIONS);
		expect(lagging).toMatchObject({ overrunResetAt: undefined, isQuota: false });
		expect(lagging.admittedPastZero).toBe(OVERRUN_ADMISSIONS);
		const overrun = admit(lagging, 1);
		expect(overrun).toMatchObject({ isQuota: true, overrunResetAt: HOUR_MS });
	});

	it.each<[string, Partial<CountState>, number]>([
		['sent before the count said 0 (in flight then)', {}, 999],
		['the count says some are left', { remaining: 1 }, 1_000],
		['the count told no reset', { remainingResetAt: undefined }, 1_000],
		[
			'sent within a reset’s rounding of it (the refill)',
			{ remainingAt: HOUR_MS - 2_000 },
			HOUR_MS - RESET_RESOLUTION_MS,
		],
		['sent past the reset', { remainingAt: HOUR_MS - 2_000 }, HOUR_MS + 1],
	])('an admission does not count where %s', (_case, changes, sentAt) => {
		const count = admit(atZero(changes), OVERRUN_ADMISSIONS + 1, sentAt);
		expect(count.admittedPastZero).toBe(0);
		expect(count.overrunResetAt).toBeUndefined();
	});

	it('one sent just before the rounding counts (the count told fresh)', () => {
		const count = atZero({ remainingAt: HOUR_MS - 2_000 });
		countAdmitted(count, HOUR_MS - RESET_RESOLUTION_MS - 1, HOUR_MS - 900);
		expect(count.admittedPastZero).toBe(1);
	});

	it('nor where the count is stale (told longer ago than it is believed)', () => {
		const count = atZero();
		for (let index = 0; index <= OVERRUN_ADMISSIONS; index++)
			countAdmitted(count, 1_000, 1_000 + REMAINING_TTL_MS);
		expect(count.admittedPastZero).toBe(0);
		// Just inside it, they count.
		countAdmitted(count, 1_000, 1_000 + REMAINING_TTL_MS - 1);
		expect(count.admittedPastZero).toBe(1);
	});

	it("a reset told in seconds from now moves by up to a second with each answer: the same reset's admissions add up", () => {
		const count = admit(atZero(), 3);
		count.remainingResetAt = HOUR_MS + RESET_RESOLUTION_MS;
		admit(count, 3);
		expect(count.admittedPastZero).toBe(6);
		expect(count.overrunResetAt).toBeDefined();
	});

	it("another reset (the count refilled and said 0 again) counts from none: admissions of the last one's are not added", () => {
		const count = admit(atZero(), OVERRUN_ADMISSIONS);
		count.remainingResetAt = HOUR_MS + RESET_RESOLUTION_MS + 1;
		admit(count, 1);
		expect(count.admittedPastZero).toBe(1);
		expect(count.pastZeroResetAt).toBe(HOUR_MS + RESET_RESOLUTION_MS + 1);
		expect(count.overrunResetAt).toBeUndefined();
	});
});

describe("a 429's reset, once the count is overrun (count.ts overrunReset)", () => {
	const overrun = () => admit(atZero(), OVERRUN_ADMISSIONS + 1);
	const now = HOUR_MS - OVERRUN_RESET_DOUBTED_MS;

	it('is the overrun count’s where it is (within a reset’s rounding) that reset, a minute or more away', () => {
		expect(overrunReset(overrun(), HOUR_MS, now)).toBe(true);
		expect(overrunReset(overrun(), HOUR_MS + RESET_RESOLUTION_MS, now)).toBe(true);
		expect(overrunReset(overrun(), HOUR_MS - RESET_RESOLUTION_MS, now - RESET_RESOLUTION_MS)).toBe(
			true,
		);
	});

	it.each<[string, () => CountState, number, number]>([
		['the count was not overrun', () => admit(atZero(), OVERRUN_ADMISSIONS), HOUR_MS, now],
		['the reset is another (beyond its rounding)', overrun, HOUR_MS + RESET_RESOLUTION_MS + 1, now],
		['the reset is another, earlier', overrun, HOUR_MS - RESET_RESOLUTION_MS - 1, now - 2_000],
		['the reset is under a minute away (a window’s, believed)', overrun, HOUR_MS, now + 1],
	])('is believed where %s', (_case, count, resetAt, at) => {
		expect(overrunReset(count(), resetAt, at)).toBe(false);
	});
});

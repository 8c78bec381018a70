import {
	append,
	countWhere,
	emptyLog,
	logSize,
	oldest,
	trim,
	type Log,
} from '../../../../nodes/shared/transport/rateControl/log';

// The logs a state keeps of what happened lately (admissions, the count's samples): each state sees its
// own entries, whatever later states append or trim, and a log trimmed for hours does not keep them all.

const entries = <T>(log: Log<T>): T[] => {
	const seen: T[] = [];
	countWhere(log, (entry) => {
		seen.push(entry);
		return true;
	});
	return seen;
};
const logOf = (...items: number[]) =>
	items.reduce((log, item) => append(log, item), emptyLog<number>());

describe('a state log', () => {
	it('keeps each earlier state its own entries when two later states append to it', () => {
		const earlier = logOf(1, 2);
		const one = append(earlier, 3);
		const other = append(earlier, 4);
		expect(entries(earlier)).toEqual([1, 2]);
		expect(entries(one)).toEqual([1, 2, 3]);
		expect(entries(other)).toEqual([1, 2, 4]);
		expect([logSize(earlier), logSize(one), logSize(other)]).toEqual([2, 3, 3]);
		expect(oldest(other)).toBe(1);
	});

	it('trims its oldest entries while they are to be dropped, keeping at least what it is told to keep', () => {
		const log = logOf(1, 2, 3, 4, 5);
		const trimmed = trim(log, (entry) => entry < 3);
		expect(entries(trimmed)).toEqual([3, 4, 5]);
		expect(logSize(trimmed)).toBe(3);
		expect(oldest(trimmed)).toBe(3);
		expect(entries(trim(log, () => true, 2))).toEqual([4, 5]);
		expect(entries(trim(log, () => false))).toEqual([1, 2, 3, 4, 5]);
		expect(entries(log)).toEqual([1, 2, 3, 4, 5]);
		// Appending after a trim: the trimmed entries stay gone, the others stay in order.
		const after = append(trimmed, 6);
		expect(entries(after)).toEqual([3, 4, 5, 6]);
		expect(logSize(after)).toBe(4);
		expect(countWhere(after, (entry) => entry % 2 === 0)).toBe(2);
	});

	it('does not hold on to the entries it trimmed away: a day of admissions, a few seconds kept', () => {
		let log = emptyLog<number>();
		for (let at = 0; at < 10_000; at++) log = trim(append(log, at), (entry) => at - entry > 5);
		expect(entries(log)).toEqual([9_994, 9_995, 9_996, 9_997, 9_998, 9_999]);
		expect(log.items.length).toBeLessThan(1_000);
	});
});

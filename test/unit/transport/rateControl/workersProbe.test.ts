import { climb, unknownPace } from '../../../../nodes/shared/transport/rateControl/pace';

// The probe of a worker that the others sharing the limit left nothing at first (its pace no answer
// put there), on pace.ts's climb: past its last wave's rate, once quiet for a while, at a slow pace.
const paced = (rate: number, floorRate: number) => ({
	...unknownPace(),
	rate,
	ceiling: rate,
	floorRate,
});
// Ten quiet admissions over 8 s (3 s past the quiet spell that lets the probe speed up), 20 s of work
// left at two a second: neither the 50 quiet admissions nor the long work that let it speed up before.
const quiet = { answers: 10, ms: 8_000 };
const lately = { latencyMs: 40, admittedLastSecond: 2 };

describe('a worker paced at a few a second by a first wave that admitted it nothing', () => {
	it('speeds its probe up with the time alone: the answers come too seldom to tell', () => {
		const pace = paced(2, 0);
		climb(pace, 40, quiet, lately);
		// Before: 2% a second (2.02); by time, three doublings past the quiet spell: 16% a second.
		expect(pace.rate).toBeGreaterThan(2.1);
	});

	it('not where an answer put the pace (a first wave admitted a handful: its floor, the limit)', () => {
		const pace = paced(2, 1.9);
		climb(pace, 40, quiet, lately);
		expect(pace.rate).toBe(2);
	});

	it('not at a pace fast enough for the answers to tell (ten a second and more)', () => {
		const pace = paced(10, 0);
		climb(pace, 200, quiet, lately);
		// 2% a second: ten admissions are fewer than the 50 quiet ones that speed it up.
		expect(pace.rate).toBeLessThan(10.05);
	});
});

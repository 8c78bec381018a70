import { readIetfStructured } from '../../../../nodes/shared/transport/rateControl/headers/ietf-structured';

// The IETF structured fields at their edges: which policy binds where several are told, and which
// figures count.

const defined = (reading: object) =>
	Object.fromEntries(Object.entries(reading).filter(([, value]) => value !== undefined));
const read = (headers: Record<string, unknown>) => defined(readIetfStructured(headers));

describe('which of several policies binds', () => {
	it('the least left, though told first and refilled sooner', () => {
		expect(read({ ratelimit: '"second";r=2;t=1, "hour";r=4000;t=3000' })).toEqual({
			remaining: 2,
			resetMs: 1_000,
		});
	});

	it('of equal least left, the later refill, whichever comes first', () => {
		expect(read({ ratelimit: '"a";r=0;t=60, "b";r=0;t=1' })).toEqual({
			remaining: 0,
			resetMs: 60_000,
		});
	});

	it('of equal least left and equal refills, the first told (its policy gives the limit)', () => {
		expect(
			read({
				'ratelimit-policy': '"a";q=10;w=1, "b";q=20;w=2',
				ratelimit: '"a";r=0;t=1, "b";r=0;t=1',
			}),
		).toEqual({ limit: 10, windowMs: 1_000, remaining: 0, resetMs: 1_000 });
	});

	it('a refill told beats none, whichever comes first', () => {
		expect(read({ ratelimit: '"a";r=0, "b";r=0;t=5' })).toEqual({ remaining: 0, resetMs: 5_000 });
		expect(read({ ratelimit: '"a";r=0;t=5, "b";r=0' })).toEqual({ remaining: 0, resetMs: 5_000 });
	});

	it('where none tells what is left, the first that tells a refill (its policy gives the limit)', () => {
		expect(
			read({
				'ratelimit-policy': '"a";q=10;w=1, "b";q=20;w=2',
				ratelimit: '"a";x=1, "b";t=3, "c";t=9',
			}),
		).toEqual({ limit: 20, windowMs: 2_000, resetMs: 3_000 });
	});

	it('a policy RateLimit does not name gives no limit, though others are told', () => {
		expect(read({ 'ratelimit-policy': '"a";q=10;w=1', ratelimit: '"b";r=4;t=1' })).toEqual({
			remaining: 4,
			resetMs: 1_000,
		});
	});
});

describe('with no RateLimit, the policy of lowest rate', () => {
	it('of equal rates, the first told', () => {
		expect(read({ 'ratelimit-policy': '"a";q=10;w=1, "b";q=20;w=2' })).toEqual({
			limit: 10,
			windowMs: 1_000,
		});
	});

	it('a policy without a window is per second', () => {
		expect(read({ 'ratelimit-policy': '"a";q=5, "b";q=30;w=10' })).toEqual({
			limit: 3 * 10,
			windowMs: 10_000,
		});
		expect(read({ 'ratelimit-policy': '"a";q=2, "b";q=30;w=10' })).toEqual({ limit: 2 });
	});

	it('a window of 0 is taken as a second for the rate, and tells no window', () => {
		expect(read({ 'ratelimit-policy': '"a";q=5;w=0, "b";q=3;w=1' })).toEqual({
			limit: 3,
			windowMs: 1_000,
		});
		expect(read({ 'ratelimit-policy': '"a";q=2;w=0, "b";q=3;w=1' })).toEqual({ limit: 2 });
	});

	it('a policy without a quota is passed over', () => {
		expect(read({ 'ratelimit-policy': '"a";w=1, "b";q=3;w=1' })).toEqual({
			limit: 3,
			windowMs: 1_000,
		});
	});
});

describe('repeated and odd items', () => {
	it('a policy told twice that disagrees on one figure only is dropped; others stay', () => {
		expect(
			read({
				'ratelimit-policy': '"a";q=10;w=1, "a";q=10;w=2, "b";q=20;w=1',
			}),
		).toEqual({ limit: 20, windowMs: 1_000 });
	});

	it('a policy told twice, agreeing, then a third time disagreeing, is dropped', () => {
		expect(read({ ratelimit: ['"a";r=1;t=1', '"a";r=1;t=1', '"a";r=2;t=1'] })).toEqual({});
	});

	it('items named by a number or a boolean are no policy', () => {
		expect(read({ ratelimit: '?1;r=1;t=1, "a";r=5;t=2' })).toEqual({
			remaining: 5,
			resetMs: 2_000,
		});
	});

	it('a count of 0 is a count; the largest safe integer is one, beyond the syntax none', () => {
		expect(read({ ratelimit: '"a";r=0;t=0' })).toEqual({ remaining: 0, resetMs: 0 });
		expect(read({ ratelimit: '"a";r=999999999999999' })).toEqual({
			remaining: 999_999_999_999_999,
		});
	});
});

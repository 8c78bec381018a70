import { runClass } from './simScenario';

// A token bucket of a few a second with a burst of 1: the first wave admits one, the pace searches up
// from about one a second, doubling each second, and its first refusal comes within a step of the
// limit. At a few a second one step is 20-40% of the pace, and what was admitted over the seconds
// before that refusal is mostly the search's slow start (bench:sim s209, s193, s203, s223, s248).
describe('a bucket of a few a second and a burst of 1', () => {
	it('is paced near its rate after the search meets it, not at what the search admitted: 4/s', async () => {
		// bench:sim s209 (4/s, burst 1, 45 ms): admitted 277 ms apart, refused 228 ms apart; paced at
		// 2.2/s after that wave (what was admitted over the 5 s before it), 1.80x the floor.
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 4, burst: 1 },
				latencyMs: 45,
				jitterMs: 2,
			},
			{ rows: 75 },
		);
		expect(result.rowsAnswered).toBe(75);
		expect(result.otherFailed).toBe(0);
		expect(result.vsFloor).toBeLessThan(1.4);
	});
});

describe('a budget of 2 a second, no token stored', () => {
	it('is not taken for a burst of 1: its first lookup went alone and spent one of the two', async () => {
		// bench:sim s58 (a sliding log of 2 per second): the lone first lookup admitted, the first wave
		// one more. Paced from the step before the refusal as a burst of 1 would be, the log took that
		// pace for a second and refused the next: 1.14 -> 1.44x the floor.
		const result = await runClass(
			{
				limiter: {
					family: 'sliding-window',
					ratePerSecond: 2,
					burst: 2,
					limit: 2,
					windowMs: 1_000,
				},
				headers: 'x-ratelimit',
				retryAfter: 'zero',
				latencyMs: 17,
				jitterMs: 1,
			},
			{ rows: 31, noToken: true },
		);
		expect(result.rowsAnswered).toBe(31);
		expect(result.vsFloor).toBeLessThan(1.3);
	});
});

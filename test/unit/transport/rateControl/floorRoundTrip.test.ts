import { climb, unknownPace } from '../../../../nodes/shared/transport/rateControl/pace';
import { runClass } from './simScenario';

// A pace that is only a floor (a first wave admitted too few to measure a rate: a bucket of burst 1)
// searches upwards until a wave. Doubling each second, a bucket of 428/s was met 9 s into a sheet of
// 3.5 s at the limit (bench:sim s31, 3.1x the floor). Where a round trip brings more than one answer,
// it doubles each round trip, as TCP's slow start; below that, or from a burst of more than one, each
// second as before (a burst of a few lets the pace pass the limit for that many requests, each growing
// it, before a 429 tells: s47, s177, s255).

/** A floor of `rate` a second, nothing measured yet, from a first wave that admitted `burst` at once. */
const floorOf = (rate: number, burst = 1) => ({
	...unknownPace(),
	rate,
	lowerBound: rate,
	floorBurst: burst,
});
const quiet = { answers: 1, ms: 0 };

describe('a pace that is only a floor', () => {
	it('doubles over the answers of one round trip: four at 100/s and 40 ms', () => {
		const pace = floorOf(100);
		for (let answer = 0; answer < 4; answer++) climb(pace, 10_000, quiet, 40);
		// Each answer a quarter of a doubling at the pace it finds (a little less as it grows): about
		// 1.75x; doubling each second, four answers at 100/s were 1.03x.
		expect(pace.rate).toBeGreaterThan(170);
		expect(pace.rate).toBeLessThan(200);
	});

	it('the longer the round trip, the more answers a doubling takes: 100/s at 200 ms', () => {
		const pace = floorOf(100);
		for (let answer = 0; answer < 4; answer++) climb(pace, 10_000, quiet, 200);
		// Twenty answers a round trip: four are about a fifth of a doubling (1.15x).
		expect(pace.rate).toBeGreaterThan(110);
		expect(pace.rate).toBeLessThan(120);
	});

	it('from a first wave that admitted two at once: doubles each second, whatever the round trip', () => {
		const pace = floorOf(100, 2);
		for (let answer = 0; answer < 4; answer++) climb(pace, 10_000, quiet, 40);
		// Four answers at 100/s: 1.03x.
		expect(pace.rate).toBeGreaterThan(102);
		expect(pace.rate).toBeLessThan(104);
	});

	it('fewer than one answer a round trip: doubles each second, not at each answer', () => {
		const pace = floorOf(4);
		for (let answer = 0; answer < 2; answer++) climb(pace, 10_000, quiet, 100);
		// About half a second of answers at 4/s: 1.38x (each answer doubling would give 16).
		expect(pace.rate).toBeGreaterThan(5);
		expect(pace.rate).toBeLessThan(6);
	});
});

describe('a bucket of a high rate and burst 1, telling nothing but 429 (bench:sim s31)', () => {
	it('is met within a few seconds, not after the sheet would have ended at the limit', async () => {
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 428, burst: 1 },
				retryAfter: 'zero',
				latencyMs: 39,
				jitterMs: 1,
			},
			{ rows: 1500 },
		);
		expect(result.rowsAnswered).toBe(1500);
		expect(result.otherFailed).toBe(0);
		expect(result.share429).toBeLessThan(0.02);
		expect(result.vsFloor).toBeLessThan(2.6);
	});
});

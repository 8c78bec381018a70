import { VirtualClock } from '../../../../bench/sim/virtualClock';
import { RateController } from '../../../../nodes/shared/transport/rateControl';
import { ADMITTED_SPAN_MAX_MS } from '../../../../nodes/shared/transport/rateControl/constants';
import { limitOf, nextStart } from '../../../../nodes/shared/transport/rateControl/modes';
import { unknownPace } from '../../../../nodes/shared/transport/rateControl/pace';
import {
	unknownRegistry,
	type ControlState,
} from '../../../../nodes/shared/transport/rateControl/state';
import { realRandom } from '../../../../nodes/shared/transport/rateControl/random';
import { transition } from '../../../../nodes/shared/transport/rateControl/transitions';
import { play, send, type Step } from './story';
import { driveTenant } from './tenantDriver';

// Queue-mode workers sharing one limit meet the same 429s at the same moments: what breaks their
// symmetry is chance, drawn by each controller from its Random and handed to the pure transition as
// the 429's `phase` (where within its interval this worker resumes). Stories on the transition.

/** A 429 to a request sent at `sentAt`, with this worker's draw. */
const refusedWith = (phase: number, sentAt: number, at: number): Step => ({
	at,
	event: { kind: 'rateLimited', report: { sentAt, status: 429 }, phase },
});

/** A worker's whole concurrency (20) sent at `at`, every request refused a moment later. */
const wave = (at: number, phase = 0): Step[] => [
	...Array.from({ length: 20 }, () => send(at)),
	...Array.from({ length: 20 }, () => refusedWith(phase, at, at + 1)),
];

describe('a worker whose first waves admitted nothing (others spend the limit)', () => {
	// Two waves of 20, nothing admitted, no Retry-After: the first pauses everybody until 2,000 (a
	// second after sending began); the second, at 2,000, is refused at 2,001.
	const twoWaves = (phase: number) => play([...wave(1_000, phase), ...wave(2_000, phase)]).state;

	it('is paced after the pause instead of asking with its whole concurrency again', () => {
		// Before, it knew no limit and sent all 20 after every pause, 90-100% refused, for seconds
		// (bench:sim s22: 38 s, 80 rows failed).
		const state = twoWaves(0);
		expect(limitOf(state, 3_001).kind).toBe('paced');
		expect(state.pausedUntil).toBe(3_001);
		let after = nextStart(state, 3_001);
		expect(after.at).toBe(0);
		after = nextStart(transition(after.state, { kind: 'started' }, 3_001).state, 3_001);
		// One request per pause (a second), searching upwards from there.
		expect(after.at).toBeGreaterThan(3_001 + 900);
	});

	it('pauses as at a first limit, until a second after the second wave', () => {
		expect(play([...wave(1_000), ...wave(2_000)]).actions).toContainEqual({
			kind: 'pause',
			until: 3_001,
			why: 'firstLimit',
		});
	});

	it('a wave long after the last (its admissions forgotten) is a first wave again: not paced from nothing', () => {
		// Admissions are remembered for ADMITTED_SPAN_MAX_MS: from then on, none remembered says nothing.
		const after = (gap: number) =>
			limitOf(play([...wave(1_000), ...wave(1_000 + gap)]).state, 1_000_000).kind;
		expect(after(ADMITTED_SPAN_MAX_MS - 1)).toBe('paced');
		expect(after(ADMITTED_SPAN_MAX_MS)).toBe('unknown');
	});

	it('admissions before the last wave do not count: refused again with none since, it is paced', () => {
		// Two admitted, a quiet spell (what was admitted before it is not measured against), then two
		// waves: the first of them knows no rate, the second has nothing admitted since the first.
		const admittedEarly: Step[] = [
			send(0),
			send(0),
			{ at: 50, event: { kind: 'answered', report: { sentAt: 0, status: 200 }, workLeft: 1_000 } },
			{ at: 50, event: { kind: 'answered', report: { sentAt: 0, status: 200 }, workLeft: 1_000 } },
		];
		const { state } = play([...admittedEarly, ...wave(2_000), ...wave(3_000)]);
		expect(limitOf(state, 1_000_000).kind).toBe('paced');
	});

	it('an admission answered at the moment of the 429 belongs to its wave, not to the time since', () => {
		const { state } = play([
			send(999),
			...wave(1_000),
			{
				at: 1_001,
				event: { kind: 'answered', report: { sentAt: 999, status: 200 }, workLeft: 1_000 },
			},
			...wave(2_000, 0.75),
		]);
		// The first wave's late admission (pace.ts, measureFirstWave): one admitted a pause, so it is paced
		// below one a second from the first wave on, not resent with its whole concurrency at the pause end.
		expect(limitOf(state, 3_001).kind).toBe('paced');
		expect(state.pace.rate).toBeLessThan(1);
		expect(nextStart(state, 3_001).at).toBeGreaterThan(3_001);
	});

	it('resumes at a phase of its own: workers refused alike do not all ask at the pause end', () => {
		const early = nextStart(twoWaves(0.25), 3_001).at;
		const late = nextStart(twoWaves(0.75), 3_001).at;
		// Before, each resumed with its whole concurrency at the pause end, together.
		expect(early).toBeCloseTo(3_001 + 250, 6);
		expect(late).toBeCloseTo(3_001 + 750, 6);
	});

	it('a first wave whose admissions are still on their way is not taken for one that admitted nothing', () => {
		// A refusal comes back before an admission's answer: one of the first wave admitted, answered
		// after the 429, says the registry gives this worker something; the second wave is measured so,
		// and resumes at its pause's end whatever the draw.
		const withOneAdmitted = (phase: number) =>
			play([
				...wave(1_000),
				{
					at: 1_050,
					event: { kind: 'answered', report: { sentAt: 1_000, status: 200 }, workLeft: 1_000 },
				},
				...wave(2_000, phase),
			]).state;
		expect(withOneAdmitted(0.75).pace.floorRate).toBeGreaterThan(0);
		expect(nextStart(withOneAdmitted(0.75), 3_001).at).toBe(
			nextStart(withOneAdmitted(0), 3_001).at,
		);
	});
});

describe('workers at the same floor pace refused in step', () => {
	// A worker paced at one a second, its floor (what asking all at once gave it), refused twice up to
	// 10,000 and again now with nothing admitted between: the follower of another worker a few ms ahead.
	const atFloor = (wavesInRow: number): ControlState => ({
		...unknownRegistry(),
		requests: 50,
		answered: 40,
		firstSentAt: 0,
		lastEventAt: 10_000,
		recentEvents: [10_000],
		wavesInRow,
		congestionSince: 10_000,
		lastCongestionAt: 10_000,
		pace: { ...unknownPace(), rate: 1, ceiling: 1, floorRate: 1, creditAt: 10_000 },
	});
	const resumesAt = (phase: number, wavesInRow = 2) => {
		const { state } = play([send(11_000), refusedWith(phase, 11_000, 11_010)], atFloor(wavesInRow));
		expect(state.pace.rate).toBe(1);
		return nextStart(state, 11_010).at!;
	};

	it('resume at phases of their own, half an interval either way, the same on average', () => {
		// Before, both resumed exactly an interval after their 429 (12,010): a fixed few ms apart for
		// good, the follower refused at every request until its rows gave up (bench:sim s116: 47 rows).
		expect(resumesAt(0.1)).toBeCloseTo(11_610, 6);
		expect(resumesAt(0.9)).toBeCloseTo(12_410, 6);
	});

	it('above its floor, in a row or not, it keeps its pace exactly (it is finding its limit)', () => {
		// Paced at 4 a second over a floor of 1: the wave halves the pace to 2 a second.
		const { state } = play([send(11_000), refusedWith(0.9, 11_000, 11_010)], {
			...atFloor(2),
			pace: { ...unknownPace(), rate: 4, ceiling: 4, floorRate: 1, creditAt: 10_000 },
		});
		expect(state.pace.rate).toBe(2);
		expect(nextStart(state, 11_010).at).toBeCloseTo(11_510, 6);
	});

	it('two waves in a row keep their pace exactly (a pace meeting its limit, a single process)', () => {
		expect(resumesAt(0.1, 1)).toBeCloseTo(12_010, 6);
		expect(resumesAt(0.9, 1)).toBeCloseTo(12_010, 6);
	});

	it('an admission ends the waves in a row: the next refusal keeps its pace exactly', () => {
		const { state } = play(
			[
				send(10_500),
				{
					at: 10_600,
					event: { kind: 'answered', report: { sentAt: 10_500, status: 200 }, workLeft: 1_000 },
				},
				send(11_000),
				refusedWith(0.9, 11_000, 11_010),
			],
			atFloor(2),
		);
		expect(nextStart(state, 11_010).at).toBeCloseTo(12_010, 6);
	});
});

describe('each controller draws from the Random it was given', () => {
	let clock: VirtualClock;
	const { answer, burst } = driveTenant(() => clock);

	/** A worker whose two first waves of 20 admitted nothing: when (ms from the start) it asks again. */
	async function resumesAfterTwoEmptyWaves(random: () => number): Promise<number> {
		clock = new VirtualClock();
		const startedAt = clock.now();
		const tenant = new RateController(clock, random).join({ maxConcurrency: 20 });
		await burst(tenant, 20, 0);
		await burst(tenant, 20, 0);
		return (await answer(tenant, { status: 200 })) - startedAt;
	}

	it('two workers refused alike resume where their own draws say', async () => {
		// The first wave pauses everybody a second; the second, at 1,000, paces one a second from 2,000,
		// each worker at its own phase within that second.
		expect(await resumesAfterTwoEmptyWaves(() => 0.25)).toBeCloseTo(2_250, 6);
		expect(await resumesAfterTwoEmptyWaves(() => 0.75)).toBeCloseTo(2_750, 6);
	});

	it("in n8n the draws are Math.random's: within [0, 1), not all alike", () => {
		const draws = Array.from({ length: 20 }, () => realRandom());
		for (const draw of draws) {
			expect(draw).toBeGreaterThanOrEqual(0);
			expect(draw).toBeLessThan(1);
		}
		expect(new Set(draws).size).toBeGreaterThan(1);
	});
});

import {
	MIN_WAIT_MS,
	STORM_PAUSE_MAX_MS,
	TOLD_RESET_MIN_MS,
} from '../../../../nodes/shared/transport/rateControl/constants';
import { modeOf, waitIsTheLimit } from '../../../../nodes/shared/transport/rateControl/modes';
import { admitted, play, refused, send, type Step, type Told, rateOf } from './story';

// 429s that say to wait long, story by story on the pure transition: when a wait is a spent quota's
// (the limit itself: who cannot wait that long fails now), a storm's, or only a pause, read through
// modeOf and waitIsTheLimit.

const HOUR = 3_600_000;

// Ten admitted, then a 429: paced from 2,000 on (a first limit's pause counted from when sending began).
const firstLimit: Step[] = [...admitted(1_000, 10), send(1_100), refused(1_100, 1_150)];

describe('waves told to wait long, nothing admitted between them', () => {
	it('one such wave is a first limit: a short pause, no spent quota', () => {
		const { state, actions } = play([send(1_000), refused(1_000, 1_050, { retryAfterMs: HOUR })]);
		expect(modeOf(state, 1_050).kind).toBe('paused');
		expect(waitIsTheLimit(state, 1_050, 2_000)).toBe(false);
		expect(actions.filter((action) => action.kind === 'pause')).toEqual([
			{ kind: 'pause', until: 2_000, why: 'firstLimit' },
		]);
	});

	it('two within the storm window are a spent quota: everybody waits the hour, and that wait is the limit', () => {
		const steps = [
			send(1_000),
			refused(1_000, 1_050, { retryAfterMs: HOUR }),
			send(2_000),
			refused(2_000, 2_050, { retryAfterMs: HOUR }),
		];
		const { state } = play(steps);
		const last = play(steps.slice(3), play(steps.slice(0, 3)).state);
		expect(last.actions).toEqual([
			{ kind: 'congestion', as: 'wave' },
			{ kind: 'pause', until: 2_050 + HOUR, why: 'quotaSpent' },
		]);
		expect(modeOf(state, 2_050)).toMatchObject({ kind: 'quotaSpent', until: 2_050 + HOUR });
		expect(waitIsTheLimit(state, 2_050, 2_050 + HOUR)).toBe(true);
	});

	it('two more than the storm window apart are two first limits, no spent quota', () => {
		const { state } = play([
			send(1_000),
			refused(1_000, 1_050, { retryAfterMs: HOUR }),
			send(4_000),
			refused(4_000, 4_050, { retryAfterMs: HOUR }),
		]);
		expect(modeOf(state, 4_050).kind).toBe('paused');
		expect(waitIsTheLimit(state, 4_050, 5_050)).toBe(false);
	});

	it.each([
		['a short Retry-After', 2_000],
		["a storm's longest pause exactly", STORM_PAUSE_MAX_MS],
	])('two told %s are no spent quota', (_told, retryAfterMs) => {
		const { state } = play([
			send(1_000),
			refused(1_000, 1_050, { retryAfterMs }),
			send(2_000),
			refused(2_000, 2_050, { retryAfterMs }),
		]);
		expect(modeOf(state, 2_050).kind).toBe('paused');
		expect(waitIsTheLimit(state, 2_050, 3_050)).toBe(false);
	});
});

describe('a storm', () => {
	// Paced, then two more waves within the storm window, nothing admitted: the third wave is a storm.
	const storm = (told: Told = {}): Step[] => [
		...firstLimit,
		send(2_000),
		refused(2_000, 2_050),
		send(2_100),
		refused(2_100, 2_150, told),
	];

	it('pauses everybody for a second at first, twice as long the next time, up to the Retry-After', () => {
		const first = play(storm({ retryAfterMs: 5_000 }));
		expect(first.actions.slice(-2)).toEqual([
			{ kind: 'congestion', as: 'wave' },
			{ kind: 'pause', until: 3_150, why: 'storm' },
		]);
		expect(modeOf(first.state, 2_150)).toMatchObject({ kind: 'storm', until: 3_150 });
		const second = play(
			[send(3_150), refused(3_150, 3_200, { retryAfterMs: 5_000 })],
			first.state,
		).state;
		expect(modeOf(second, 3_200)).toMatchObject({ kind: 'storm', until: 5_200 });
	});

	it('keeps the pace: still refused after its pause says nothing of how fast the registry admits', () => {
		const { state } = play(storm());
		const rate = rateOf(state);
		const after = play([send(3_150), refused(3_150, 3_200)], state).state;
		expect(modeOf(after, 3_200).kind).toBe('storm');
		expect(rateOf(after)).toBe(rate);
	});

	it('a wave long after its pause, with fewer waves in the storm window, pauses nobody', () => {
		const { state } = play([...storm(), send(5_000), refused(5_000, 5_050)]);
		expect(modeOf(state, 5_050).kind).toBe('paced');
	});
});

describe('a 429 telling 0 left and when the budget is back', () => {
	/** Paced after a first limit, then a wave whose 429 tells `told`. */
	const wave = (told: Told) => play([...firstLimit, send(2_100), refused(2_100, 2_150, told)]);

	it("further than a bucket's next token: nobody sends before then, and that wait is the limit", () => {
		const { state, actions } = wave({ remaining: 0, resetMs: 30_000 });
		expect(actions.slice(-2)).toEqual([
			{ kind: 'congestion', as: 'wave' },
			{ kind: 'pause', until: 2_100 + 30_000, why: 'quotaSpent' },
		]);
		expect(modeOf(state, 2_150)).toMatchObject({ kind: 'quotaSpent', until: 32_100 });
		expect(waitIsTheLimit(state, 2_150, 32_100)).toBe(true);
	});

	it.each([
		['some left', { remaining: 3, resetMs: 30_000 }],
		["a reset as near as a bucket's next token", { remaining: 0, resetMs: 1_500 }],
		['a reset exactly TOLD_RESET_MIN_MS away', { remaining: 0, resetMs: TOLD_RESET_MIN_MS }],
		['a sooner Retry-After', { remaining: 0, resetMs: 30_000, retryAfterMs: 5_000 }],
	])('not with %s: the pace goes on', (_told, told) => {
		const { state } = wave(told);
		expect(modeOf(state, 2_150).kind).toBe('paced');
		expect(waitIsTheLimit(state, 2_150, 2_150 + MIN_WAIT_MS)).toBe(false);
	});

	it.each([
		['a later Retry-After', 5_000],
		['a Retry-After just as far', 3_000],
	])('with %s: nobody sends before the reset', (_told, retryAfterMs) => {
		const { state } = wave({ remaining: 0, resetMs: 3_000, retryAfterMs });
		expect(modeOf(state, 2_150)).toMatchObject({ kind: 'quotaSpent', until: 5_100 });
	});

	it("not where the reset falls when the first limit's pause ends: only a reset beyond it is a quota's wait", () => {
		// Ten admitted from 1,000, the 429 to a request sent at 1,100 comes at 3,000: paused until 4,000.
		const at = (resetMs: number) =>
			play([...admitted(1_000, 10), send(1_100), refused(1_100, 3_000, { remaining: 0, resetMs })])
				.state;
		expect(modeOf(at(2_900), 3_000)).toMatchObject({ kind: 'paused', until: 4_000 });
		expect(modeOf(at(3_000), 3_000)).toMatchObject({ kind: 'quotaSpent', until: 4_100 });
	});
});

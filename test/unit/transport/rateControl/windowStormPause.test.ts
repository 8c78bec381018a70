import {
	STORM_PAUSE_MS,
	STORM_UNTOLD_PAUSE_MS,
} from '../../../../nodes/shared/transport/rateControl/constants';
import { modeOf } from '../../../../nodes/shared/transport/rateControl/modes';
import { untoldStormPauseMs } from '../../../../nodes/shared/transport/rateControl/pace';
import { admitted, play, refused, send, type Step } from './story';

// A storm's pause where no Retry-After says how long (a window of a second that says nothing refuses
// until a reset nobody told: windowBare.test.ts runs it on the virtual clock).
describe('untoldStormPauseMs', () => {
	it.each([
		// [pace a second, storm pauses in a row, pause ms]
		[200, 0, 400],
		[100, 0, 400],
		[100, 1, 800],
		[100, 2, 1_000],
		[80, 0, 500],
		[50, 0, 800],
		[50, 1, 1_000],
		[20, 0, 1_000],
		[undefined, 0, 1_000],
	])('at a pace of %p a second, after %i storm pauses: %i ms', (rate, level, ms) => {
		expect(untoldStormPauseMs(rate, level)).toBe(ms);
	});
});

// The storm's pause on the pure transition: paced after a first limit, then waves within two seconds
// with nothing admitted, each 429 telling nothing of how long (or, last, a Retry-After of a second).
describe("a storm's pause where no Retry-After says how long", () => {
	/** A first limit after `count` admitted within 0.4 s, then two waves: a storm at 2,150. */
	const storm = (count: number, told = {}): Step[] => [
		...admitted(1_000, count, {}, 400 / count),
		send(1_400),
		refused(1_400, 1_450),
		send(2_000),
		refused(2_000, 2_050),
		send(2_100),
		refused(2_100, 2_150, told),
	];
	const pauseAt2150 = (steps: Step[]) => {
		const mode = modeOf(play(steps).state, 2_150);
		if (mode.kind !== 'storm') throw new Error(`expected a storm, got ${mode.kind}`);
		return mode.until - 2_150;
	};

	it('is short at a pace of hundreds a second', () => {
		expect(pauseAt2150(storm(400))).toBe(STORM_UNTOLD_PAUSE_MS);
	});

	it('is a second at a pace of a few a second', () => {
		expect(pauseAt2150(storm(10))).toBe(STORM_PAUSE_MS);
	});

	it('is what Retry-After says where it says', () => {
		expect(pauseAt2150(storm(400, { retryAfterMs: 1_000 }))).toBe(1_000);
	});
});

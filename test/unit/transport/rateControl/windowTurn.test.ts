import {
	EARLY_RESET_HOLD_MS,
	TURN_BRACKETS,
	TURN_PERIOD_MS,
	TURN_NARROW_MS,
} from '../../../../nodes/shared/transport/rateControl/constants';
import { modeOf } from '../../../../nodes/shared/transport/rateControl/modes';
import type { RequestReport } from '../../../../nodes/shared/transport/rateControl/types';
import {
	nextTurn,
	noTurn,
	turnAdmitted,
	turnLearned,
	turnRefused,
	type TurnState,
} from '../../../../nodes/shared/transport/rateControl/windowTurn';
import { admitted, ok, play, refused, send, type Step } from './story';

// A window that tells nothing (issue 20 item 5): its turn learned from the last refused and the first
// admitted request's send times, laid over a second.
const bare = (sentAt: number, told: Partial<RequestReport> = {}): RequestReport => ({
	sentAt,
	...told,
});

/** Refused at each `refusedAt` (answered `roundTripMs` later), then admitted at `admittedAt`. */
function bracket(turn: TurnState, refusedAt: number[], admittedAt: number, roundTripMs = 2): void {
	for (const sentAt of refusedAt) turnRefused(turn, bare(sentAt), sentAt + roundTripMs);
	turnAdmitted(turn, bare(admittedAt));
}

describe('windowTurn: the turn of a window that tells nothing', () => {
	it('learns nothing from refusals alone, nor from an admission sent before the last refusal', () => {
		const turn = noTurn();
		turnRefused(turn, bare(1_500), 1_502);
		turnAdmitted(turn, bare(1_490));
		expect(turn.at).toBeUndefined();
		expect(turnLearned(turn)).toBe(false);
		expect(nextTurn(turn, 1_600)).toBeUndefined();
	});

	it('brackets the turn between the last refusal and the first admission after it, late by the refusal round trip', () => {
		const turn = noTurn();
		bracket(turn, [1_980, 1_990], 2_004, 3);
		expect(turn).toMatchObject({ at: 2_007, widthMs: 17, brackets: 1, refusedSentAt: undefined });
	});

	it('keeps the latest refusal, whatever order the refusals are told in', () => {
		const turn = noTurn();
		turnRefused(turn, bare(1_990), 1_992);
		turnRefused(turn, bare(1_980), 1_993);
		expect(turn).toMatchObject({ refusedSentAt: 1_990, refusedRoundTripMs: 2 });
	});

	it('narrows the turn with brackets a whole number of seconds later, and ends a pause at its late edge', () => {
		const turn = noTurn();
		bracket(turn, [1_995], 2_003);
		bracket(turn, [4_998], 5_010);
		expect(turn).toMatchObject({ at: 5_005, widthMs: 7, brackets: 2 });
		expect(turnLearned(turn)).toBe(TURN_BRACKETS <= 2);
		expect(nextTurn(turn, 5_500)).toBe(6_005);
		expect(nextTurn(turn, 6_005)).toBe(6_005);
		expect(nextTurn(turn, 6_006)).toBe(7_005);
	});

	it('starts afresh where a bracket misses the learned turn (a bucket, a log: no one phase)', () => {
		const turn = noTurn();
		bracket(turn, [1_990], 2_010);
		bracket(turn, [3_400], 3_420);
		expect(turn).toMatchObject({ at: 3_422, widthMs: 22, brackets: 1 });
	});

	it('learns nothing from a bracket of a second or more: every phase lies in it', () => {
		const turn = noTurn();
		bracket(turn, [1_000], 1_998);
		expect(turn.at).toBeUndefined();
		bracket(turn, [3_000], 3_997);
		expect(turn.at).toBe(3_999);
	});

	it('halves a wide learned turn: a pause ends at its middle', () => {
		const turn = noTurn();
		bracket(turn, [1_500], 1_998);
		turn.brackets = TURN_BRACKETS;
		expect(turn.widthMs).toBeGreaterThan(TURN_NARROW_MS);
		expect(nextTurn(turn, 2_100)).toBe(2_000 - 500 / 2 + TURN_PERIOD_MS);
	});

	it('narrows the learned turn by a refusal sent within it (the turn is later)', () => {
		const turn = noTurn();
		bracket(turn, [1_500], 1_998);
		turnRefused(turn, bare(2_900), 2_902);
		expect(turn).toMatchObject({ at: 2_000, widthMs: 100 });
		turnRefused(turn, bare(2_700), 2_702);
		expect(turn).toMatchObject({ at: 2_000, widthMs: 100 });
	});

	it('moves the learned turn later where a request sent at its late edge is refused (reckoned early)', () => {
		const turn = noTurn();
		bracket(turn, [1_990], 2_000, 0);
		turnRefused(turn, bare(3_000), 3_002);
		expect(turn).toMatchObject({ at: 3_000 + EARLY_RESET_HOLD_MS, widthMs: EARLY_RESET_HOLD_MS });
		turnRefused(turn, bare(4_100), 4_102);
		expect(turn).toMatchObject({ at: 3_000 + EARLY_RESET_HOLD_MS });
	});

	it('gives the turn after a request left, even where its refusal came back after that turn', () => {
		const turn = noTurn();
		bracket(turn, [1_995], 2_000, 0);
		turn.brackets = TURN_BRACKETS;
		expect(nextTurn(turn, 2_999)).toBe(3_000);
	});

	it.each([
		['a count', { remaining: 0 }],
		['a reset', { resetMs: 1_000 }],
		['a limit', { limit: 100 }],
		['a Retry-After', { retryAfterMs: 1_000 }],
	])('stays out of it where a refusal tells %s', (_, told) => {
		const turn = noTurn();
		turnRefused(turn, bare(1_990, told), 1_992);
		bracket(turn, [2_990], 3_010);
		bracket(turn, [3_990], 4_010);
		expect(turn.told).toBe(true);
		expect(turn.at).toBeUndefined();
		expect(nextTurn(turn, 4_500)).toBeUndefined();
	});

	it('stays out of it where an admission tells a count', () => {
		const turn = noTurn();
		bracket(turn, [1_990], 2_010);
		turnAdmitted(turn, bare(2_020, { remaining: 5 }));
		expect(turn.told).toBe(true);
		expect(turnLearned(turn)).toBe(false);
	});
});

// The transition: a window of a second that says nothing, turning (as sent) at 2,000-2,001 and
// 3,000-3,001. Refused from 3,990 (its budget spent again), wave after wave, everybody waits until the
// learned turn, not a guessed pause (STORM_UNTOLD_PAUSE_MS: until 4,397).
describe('a bare window whose turn is learned', () => {
	const story: Step[] = (
		[
			...admitted(1_000, 40, {}, 10),
			send(1_395),
			refused(1_395, 1_396),
			send(2_001),
			ok(2_001, 2_050),
			...admitted(2_010, 97, {}, 10).filter(({ at }) => at < 2_990),
			send(2_990),
			refused(2_990, 2_991),
			send(3_001),
			ok(3_001, 3_050),
			...admitted(3_010, 97, {}, 10).filter(({ at }) => at < 3_990),
			send(3_990),
			refused(3_990, 3_991),
			send(3_993),
			refused(3_993, 3_994),
			send(3_996),
			refused(3_996, 3_997),
		] as Step[]
	).sort((a, b) => a.at - b.at);

	it('learns the turn at 3,001-3,002', () => {
		const { state } = play(story);
		expect(state.turn).toMatchObject({ at: 3_002, brackets: 2 });
		expect(state.turn.widthMs).toBeLessThanOrEqual(12);
	});

	it('pauses everybody, at the third refusal from 3,990 (a storm), until the turn at 4,002', () => {
		const mode = modeOf(play(story).state, 3_997);
		expect(mode).toMatchObject({ kind: 'storm', until: 4_002 });
	});
});

import {
	EARLY_RESET_HOLD_MS,
	TURN_BRACKETS,
	TURN_NARROW_MS,
	TURN_PERIOD_MS,
} from '../../../../nodes/shared/transport/rateControl/constants';
import type { RequestReport } from '../../../../nodes/shared/transport/rateControl/types';
import {
	nextTurn,
	noTurn,
	turnAdmitted,
	turnLearned,
	turnRefused,
	type TurnState,
} from '../../../../nodes/shared/transport/rateControl/windowTurn';

// The bare window's turn at its edges (windowTurn.ts): the cases the mutation run showed untold.
const bare = (sentAt: number, told: Partial<RequestReport> = {}): RequestReport => ({
	sentAt,
	...told,
});

/** A turn learned at `at` (as sent), `widthMs` wide, from `brackets` brackets. */
const learned = (at: number, widthMs: number, brackets = TURN_BRACKETS): TurnState => ({
	...noTurn(),
	at,
	widthMs,
	brackets,
});

describe('windowTurn at its edges', () => {
	it('keeps the round trip of the refusal told last among those sent in one moment (the queue behind it)', () => {
		const turn = noTurn();
		turnRefused(turn, bare(1_990), 1_992);
		turnRefused(turn, bare(1_990), 1_997);
		turnAdmitted(turn, bare(2_004));
		expect(turn).toMatchObject({ at: 2_011, widthMs: 21 });
	});

	it('learns nothing from an admission sent in the same moment as the last refusal', () => {
		const turn = noTurn();
		turnRefused(turn, bare(1_990), 1_992);
		turnAdmitted(turn, bare(1_990));
		expect(turn).toMatchObject({ at: undefined, refusedSentAt: 1_990 });
	});

	it('leaves the learned turn where a refusal is sent EARLY_RESET_HOLD_MS or more after it', () => {
		const turn = learned(2_000, 10);
		turnRefused(turn, bare(3_000 + EARLY_RESET_HOLD_MS), 3_000 + EARLY_RESET_HOLD_MS + 2);
		expect(turn).toMatchObject({ at: 2_000, widthMs: 10 });
	});

	it('starts afresh where a bracket only touches the learned turn a second later', () => {
		const turn: TurnState = {
			...learned(2_005, 10, 1),
			refusedSentAt: 3_005,
			refusedRoundTripMs: 2,
		};
		turnAdmitted(turn, bare(3_010));
		expect(turn).toMatchObject({ at: 3_012, widthMs: 7, brackets: 1 });
	});

	it('narrows by the learned turn a second before the nearest whole seconds (a wide bracket ending early)', () => {
		// Turns within [1,600, 2,000], [2,600, 3,000], [3,600, 4,000]; the bracket (2,950, 3,550] is nearest
		// the third, and holds only the second's end.
		const turn: TurnState = { ...learned(2_000, 400, 1), refusedSentAt: 2_950 };
		turnAdmitted(turn, bare(3_550));
		expect(turn).toMatchObject({ at: 3_000, widthMs: 50, brackets: 2 });
	});

	it('narrows by the learned turn a second after the nearest whole seconds (a wide learned turn)', () => {
		// Turns within [1,300, 2,000], [2,300, 3,000], [3,300, 4,000]; the bracket (3,050, 3,450] is nearest
		// the second, and holds only the third's start.
		const turn: TurnState = { ...learned(2_000, 700, 1), refusedSentAt: 3_050 };
		turnAdmitted(turn, bare(3_450));
		expect(turn).toMatchObject({ at: 3_450, widthMs: 150, brackets: 2 });
	});

	it('ends a pause at the late edge of a turn exactly TURN_NARROW_MS wide', () => {
		expect(nextTurn(learned(2_005, TURN_NARROW_MS), 2_500)).toBe(3_005);
	});

	it('gives the learned turn itself for a request sent seconds before it', () => {
		expect(nextTurn(learned(3_005, 5), 1_000)).toBe(3_005);
	});

	it('has learned nothing from one bracket alone (a bucket, a log give one too)', () => {
		const turn = noTurn();
		turnRefused(turn, bare(1_995), 1_997);
		turnAdmitted(turn, bare(2_003));
		expect(turn).toMatchObject({ at: 2_005, brackets: 1 });
		expect(TURN_BRACKETS).toBeGreaterThan(1);
		expect(turnLearned(turn)).toBe(false);
		expect(nextTurn(turn, 2_500)).toBeUndefined();
	});

	it('forgets a learned turn once an admission tells a count', () => {
		const turn = learned(2_005, 5);
		turnAdmitted(turn, bare(2_500, { remaining: 5 }));
		expect(turnLearned(turn)).toBe(false);
		expect(nextTurn(turn, 2_600)).toBeUndefined();
	});

	it('learns nothing from the bracket an admission telling a count closes', () => {
		const turn = noTurn();
		turnRefused(turn, bare(1_990), 1_992);
		turnAdmitted(turn, bare(2_010, { remaining: 5 }));
		expect(turn.at).toBeUndefined();
	});

	it('leaves a told turn as it was: later bare refusals keep nothing', () => {
		const turn = noTurn();
		turnRefused(turn, bare(1_990, { retryAfterMs: 1_000 }), 1_992);
		turnRefused(turn, bare(2_990), 2_992);
		expect(turn).toEqual({ ...noTurn(), told: true });
	});

	it('halves a learned turn wider than TURN_NARROW_MS, whole seconds later', () => {
		expect(nextTurn(learned(2_005, TURN_NARROW_MS + 2), 2_500)).toBe(
			2_005 - (TURN_NARROW_MS + 2) / 2 + TURN_PERIOD_MS,
		);
	});
});

import { CONFIRM_AFTER_MS } from '../../../../nodes/shared/transport/rateControl/constants';
import { modeOf } from '../../../../nodes/shared/transport/rateControl/modes';
import { ok, play, refused, send, SUSPECTED_AT, suspectedWindow } from './story';

// A 429 from a registry that tells its budget on its answers (X-RateLimit-Remaining and a reset), story
// by story on the pure transition: a window suspected, or the budget spent and paced on.

// A window suspected (story.ts); one request alone a moment later tells window from bucket.
const PROBE = SUSPECTED_AT + CONFIRM_AFTER_MS;
const suspected = suspectedWindow;

it('a 429 at the end of a told budget, with a reset, is one congestion event: a window suspected', () => {
	const before = play(suspected.slice(0, -1)).state;
	const { state, actions } = play(suspected.slice(-1), before);
	expect(actions).toEqual([{ kind: 'congestion', as: 'windowSuspected' }]);
	expect(modeOf(state, SUSPECTED_AT).kind).toBe('window');
});

describe('once the lone request after a suspected window was admitted (a bucket)', () => {
	// The count spent again, a 429 saying 0 left and a reset 300 ms after it left.
	const bucket = [
		...suspected,
		send(PROBE),
		ok(PROBE, PROBE + 50),
		send(1_400),
		ok(1_400, 1_450, { remaining: 1 }),
		send(1_500),
	];

	it('a 429 at the end of the budget is the budget spent: nobody sends until the reset it told', () => {
		const before = play(bucket).state;
		const { state, actions } = play(
			[refused(1_500, 1_550, { remaining: 0, resetMs: 300 })],
			before,
		);
		expect(actions).toEqual([
			{ kind: 'congestion', as: 'budgetSpent' },
			{ kind: 'pause', until: 1_850, why: 'budgetSpent' },
		]);
		expect(modeOf(state, 1_550)).toMatchObject({
			kind: 'paused',
			until: 1_850,
			limit: { kind: 'headerBudget' },
		});
	});
});

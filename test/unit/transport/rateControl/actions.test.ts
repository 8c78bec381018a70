import { type Action, pause } from '../../../../nodes/shared/transport/rateControl/actions';
import { unknownRegistry } from '../../../../nodes/shared/transport/rateControl/state';

// pause() is how every transition stops all sending: it tells a pause once, never shortens one, and
// keeps when the spell of pauses began (the admitted rate of a spell leaves its paused time out).
describe('pause: nobody sends before until', () => {
	it('tells a new pause and holds every start until it ends', () => {
		const state = unknownRegistry();
		const actions: Action[] = [];
		pause(state, 1_000, actions, 2_000, 'firstLimit');
		expect(actions).toEqual([{ kind: 'pause', until: 2_000, why: 'firstLimit' }]);
		expect(state.pausedUntil).toBe(2_000);
		expect(state.pausedSince).toBe(1_000);
	});

	it('never shortens a pause, and does not tell again one that already reaches as far', () => {
		const state = unknownRegistry();
		const actions: Action[] = [];
		pause(state, 1_000, actions, 5_000, 'storm');
		pause(state, 1_100, actions, 3_000, 'burstRefused');
		pause(state, 1_200, actions, 5_000, 'burstRefused');
		expect(actions).toEqual([{ kind: 'pause', until: 5_000, why: 'storm' }]);
		expect(state.pausedUntil).toBe(5_000);
	});

	it('lengthens a pause under way without starting a new spell', () => {
		const state = unknownRegistry();
		const actions: Action[] = [];
		pause(state, 1_000, actions, 2_000, 'firstLimit');
		pause(state, 1_500, actions, 3_000, 'storm');
		expect(actions.map((a) => a.kind === 'pause' && a.until)).toEqual([2_000, 3_000]);
		expect(state.pausedUntil).toBe(3_000);
		expect(state.pausedSince).toBe(1_000);
	});

	it('counts a pause that begins as the last one ends as the same spell', () => {
		const state = unknownRegistry();
		pause(state, 1_000, [], 2_000, 'firstLimit');
		pause(state, 2_000, [], 2_500, 'storm');
		expect(state.pausedSince).toBe(1_000);
	});

	it('starts a new spell once the last pause is over', () => {
		const state = unknownRegistry();
		pause(state, 1_000, [], 2_000, 'firstLimit');
		pause(state, 5_000, [], 6_000, 'storm');
		expect(state.pausedSince).toBe(5_000);
		expect(state.pausedUntil).toBe(6_000);
	});
});

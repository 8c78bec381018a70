import type { Action } from '../../../../nodes/shared/transport/rateControl/actions';
import { MIN_WAIT_MS } from '../../../../nodes/shared/transport/rateControl/constants';
import { modeOf, nextStart, type Mode } from '../../../../nodes/shared/transport/rateControl/modes';
import {
	unknownRegistry,
	type ControlState,
} from '../../../../nodes/shared/transport/rateControl/state';
import {
	transition,
	type ControlEvent,
} from '../../../../nodes/shared/transport/rateControl/transitions';
import type { RequestReport } from '../../../../nodes/shared/transport/rateControl/types';

// The controller's one transition, told what happened and when: no clock, no timers, no waits. Each
// story is a list of moments; the table says which mode the registry is in after it.

type Told = Omit<RequestReport, 'sentAt'>;
type Step = { at: number; event: ControlEvent };

const send = (at: number): Step => ({ at, event: { kind: 'started' } });
const ok = (sentAt: number, at: number, told: Told = {}): Step => ({
	at,
	event: { kind: 'answered', report: { sentAt, status: 200, ...told }, workLeft: 1_000 },
});
const refused = (sentAt: number, at: number, told: Told = {}): Step => ({
	at,
	event: { kind: 'rateLimited', report: { sentAt, status: 429, ...told } },
});
const noAnswer = (sentAt: number, at: number): Step => ({
	at,
	event: { kind: 'unanswered', report: { sentAt } },
});

/** Requests every 10 ms from `from`, each answered 50 ms later as told. */
function admitted(from: number, count: number, told: Told = {}): Step[] {
	const sends = Array.from({ length: count }, (_, index) => from + 10 * index);
	return [...sends.map(send), ...sends.map((sentAt) => ok(sentAt, sentAt + 50, told))].sort(
		(a, b) => a.at - b.at,
	);
}

function play(steps: Step[], from: ControlState = unknownRegistry()) {
	let state = from;
	const actions: Action[] = [];
	for (const { at, event } of steps) {
		const next = transition(state, event, at);
		state = next.state;
		actions.push(...next.actions);
	}
	return { state, actions };
}

// Ten requests admitted from 1 s on, then the eleventh refused: the first limit seen.
const firstLimit = [...admitted(1_000, 10), send(1_100), refused(1_100, 1_150)];

const stories: Array<{ story: string; steps: Step[]; at: number; mode: Mode['kind'] | Mode }> = [
	{ story: 'nothing heard yet', steps: [], at: 0, mode: 'unknown' },
	{
		story: 'answers without rate-limit headers',
		steps: admitted(1_000, 10),
		at: 1_200,
		mode: 'unknown',
	},
	{
		story: 'answers telling a count',
		steps: [send(1_000), ok(1_000, 1_050, { remaining: 50 })],
		at: 1_050,
		mode: { kind: 'headerBudget', left: 50, refillIntervalMs: 0 },
	},
	{
		// Refused within a pause of the first request: the pause counts from when sending began (1 s), and
		// nothing told, one request asks alone halfway (1,550: windowTurn.ts askFirstTurn).
		story: 'the first 429 after ten admissions',
		steps: firstLimit,
		at: 1_150,
		mode: { kind: 'paused', until: 1_550, limit: { kind: 'paced', rate: 10 } },
	},
	{
		story: 'after the first pause',
		steps: firstLimit,
		at: 2_000,
		mode: { kind: 'paced', rate: 10 },
	},
	{
		story: 'a 429 saying Retry-After: 0 (read as none: the default pause)',
		steps: [send(1_000), refused(1_000, 1_050, { retryAfterMs: 0 })],
		at: 1_050,
		mode: { kind: 'paused', until: 2_000, limit: { kind: 'unknown' } },
	},
	{
		story: 'a 429 saying to wait 30 ms (the floor under every pause)',
		steps: [send(1_000), refused(1_000, 1_050, { retryAfterMs: 30 })],
		at: 1_050,
		mode: { kind: 'paused', until: 1_050 + MIN_WAIT_MS, limit: { kind: 'unknown' } },
	},
	{
		story: 'a 429 when the count is spent and a reset is told (a window is suspected)',
		steps: [
			send(1_000),
			ok(1_000, 1_050, { remaining: 2, resetMs: 5_000 }),
			send(1_060),
			ok(1_060, 1_080, { remaining: 1, resetMs: 5_000 }),
			send(1_090),
			refused(1_090, 1_110, { remaining: 0, resetMs: 4_000 }),
		],
		at: 1_110,
		mode: 'window',
	},
	{
		// An hourly quota's count and Reset beside a per-second limit: its Reset is not this 429's wait.
		story: "a 429 while the count says thousands are left (another quota's count)",
		steps: [
			send(1_000),
			ok(1_000, 1_050, { remaining: 4_990, resetMs: 3_000_000 }),
			send(1_060),
			refused(1_060, 1_110, { remaining: 4_989, resetMs: 3_000_000, retryAfterMs: 1_000 }),
		],
		at: 1_110,
		// A second from when requests began to go together (the first went alone): not 50 minutes. One
		// answer measures no rate, but paces from the floor it shows: one over the 50 ms of sending and the
		// pause (bench:sim's small bursts).
		mode: { kind: 'paused', until: 2_060, limit: { kind: 'paced', rate: 1_000 / (50 + 1_000) } },
	},
	{
		story: 'a constant count of 0 while requests it held back are admitted (refuted)',
		steps: [
			send(1_000),
			ok(1_000, 1_050, { remaining: 0 }),
			send(1_060),
			ok(1_060, 1_110, { remaining: 0 }),
			send(1_120),
			ok(1_120, 1_170, { remaining: 0 }),
		],
		at: 1_170,
		mode: 'unknown',
	},
	{
		story: 'two waves with nothing admitted, each saying to wait an hour (a spent quota)',
		steps: [
			send(1_000),
			refused(1_000, 1_050, { retryAfterMs: 3_600_000 }),
			send(2_000),
			refused(2_000, 2_050, { retryAfterMs: 3_600_000 }),
		],
		at: 2_050,
		mode: { kind: 'quotaSpent', until: 2_050 + 3_600_000, limit: { kind: 'unknown' } },
	},
	{
		story: 'three waves within two seconds while paced, nothing admitted (a storm)',
		steps: [...firstLimit, send(2_000), refused(2_000, 2_050), send(2_100), refused(2_100, 2_150)],
		at: 2_150,
		mode: 'storm',
	},
	{
		story: 'an admission after a storm',
		steps: [
			...firstLimit,
			send(2_000),
			refused(2_000, 2_050),
			send(2_100),
			refused(2_100, 2_150),
			send(3_200),
			ok(3_200, 3_250),
		],
		at: 3_250,
		mode: 'paced',
	},
	{
		story: 'a first request that times out (no answer: nothing learned)',
		steps: [send(1_000), noAnswer(1_000, 4_000)],
		at: 4_000,
		mode: 'unknown',
	},
];

describe('rate control: event -> mode', () => {
	it.each(stories)('$story', ({ steps, at, mode }) => {
		const { state } = play(steps);
		const actual = modeOf(state, at);
		if (typeof mode === 'string') expect(actual.kind).toBe(mode);
		else expect(actual).toMatchObject(mode);
	});
});

describe('rate control: what a transition tells the controller', () => {
	it('the first 429 is one congestion event and one pause', () => {
		expect(play(firstLimit).actions).toEqual([
			{ kind: 'congestion', as: 'wave' },
			{ kind: 'pause', until: 1_550, why: 'firstLimit' },
		]);
	});

	it('429s to requests sent before the last event belong to it: one wave, one decrease', () => {
		const { state: afterFirst } = play([...admitted(1_000, 10), send(1_100), send(1_101)]);
		const first = play([refused(1_100, 1_150)], afterFirst);
		const second = play([refused(1_101, 1_151)], first.state);
		expect(second.actions).toEqual([]);
		expect(second.state.pace.rate).toBe(first.state.pace.rate);
	});

	it('a later wave lowers the pace by at least 5%', () => {
		const { state: paced } = play([...firstLimit, ...admitted(2_000, 10)]);
		const rate = paced.pace.rate!;
		const { state } = play([send(2_200), refused(2_200, 2_250)], paced);
		expect(state.pace.rate).toBeLessThanOrEqual(0.95 * rate);
		expect(state.pace.rate).toBeGreaterThanOrEqual(0.5 * rate * 0.95);
	});
});

describe('rate control: the transition is pure', () => {
	/** What a state says: its logs as the entries it sees (states share a log's array, log.ts). */
	const seen = (state: ControlState) =>
		JSON.stringify(state, (_key, value: unknown) => {
			if (value instanceof Set) return [...(value as Set<number>)];
			if (value && typeof value === 'object' && 'items' in value && 'from' in value) {
				const log = value as { items: unknown[]; from: number; to: number };
				return log.items.slice(log.from, log.to);
			}
			return value;
		});

	it('leaves the state it was given as it was, whatever the event', () => {
		const { state } = play([...firstLimit, send(2_000), ok(2_000, 2_050, { remaining: 3 })]);
		const before = seen(state);
		const steps = [send(2_100), ok(2_100, 2_150), refused(2_100, 2_150), noAnswer(2_100, 9_000)];
		const results = steps.map((step) => transition(state, step.event, step.at).state);
		// When the next start may be: asked at every start, it reckons the credit on a copy.
		for (const at of [2_050, 2_100, 60_000]) nextStart(state, at);
		expect(seen(state)).toBe(before);
		// Two futures of one state do not see each other's answers.
		expect(results[1].admitted.to - results[1].admitted.from).toBe(
			state.admitted.to - state.admitted.from + 1,
		);
		const other = transition(state, ok(2_100, 2_160).event, 2_160).state;
		expect(seen(results[1])).not.toContain('2160');
		expect(seen(other)).not.toContain('2150');
	});
});

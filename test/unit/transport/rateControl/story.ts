import type { Action } from '../../../../nodes/shared/transport/rateControl/actions';
import { MIN_ANSWERS_FOR_RATE } from '../../../../nodes/shared/transport/rateControl/constants';
import { limitOf, nextStart } from '../../../../nodes/shared/transport/rateControl/modes';
import {
	unknownRegistry,
	type ControlState,
} from '../../../../nodes/shared/transport/rateControl/state';
import {
	transition,
	type ControlEvent,
} from '../../../../nodes/shared/transport/rateControl/transitions';
import type { RequestReport } from '../../../../nodes/shared/transport/rateControl/types';

// A controller's story for the edge tests: moments, each an event told to the pure transition. No
// clock, no timers: what a story leaves is read through modeOf / nextStart (when requests may start).
// As the controller does, each start first asks nextStart and keeps the state it returns (a window
// rolled over at its reset, the credit reckoned).

export type Told = Omit<RequestReport, 'sentAt'>;
export type Step = { at: number; event: ControlEvent };

export const send = (at: number): Step => ({ at, event: { kind: 'started' } });
export const ok = (sentAt: number, at: number, told: Told = {}, workLeft = 1_000): Step => ({
	at,
	event: { kind: 'answered', report: { sentAt, status: 200, ...told }, workLeft },
});
export const answeredAs = (status: number, sentAt: number, at: number, told: Told = {}): Step => ({
	at,
	event: { kind: 'answered', report: { sentAt, ...told, status }, workLeft: 1_000 },
});
export const refused = (sentAt: number, at: number, told: Told = {}, workLeft?: number): Step => ({
	at,
	event: { kind: 'rateLimited', report: { sentAt, status: 429, ...told }, workLeft },
});
export const noAnswer = (sentAt: number, at: number): Step => ({
	at,
	event: { kind: 'unanswered', report: { sentAt } },
});

/** Requests every `everyMs` from `from`, each answered `latencyMs` later as told. */
export function admitted(
	from: number,
	count: number,
	told: Told = {},
	everyMs = 10,
	latencyMs = 50,
): Step[] {
	const sends = Array.from({ length: count }, (_, index) => from + everyMs * index);
	return [...sends.map(send), ...sends.map((sentAt) => ok(sentAt, sentAt + latencyMs, told))].sort(
		(a, b) => a.at - b.at,
	);
}

/**
 * A count of 2, then 1, then a 429 saying 0 left and a reset 4 s after it left (at 1,090): a window is
 * suspected at SUSPECTED_AT.
 */
export const SUSPECTED_AT = 1_110;
export const suspectedWindow: Step[] = [
	send(1_000),
	ok(1_000, 1_050, { remaining: 2, resetMs: 5_000 }),
	send(1_060),
	ok(1_060, 1_080, { remaining: 1, resetMs: 5_000 }),
	send(1_090),
	refused(1_090, SUSPECTED_AT, { remaining: 0, resetMs: 4_000 }),
];

/**
 * The paced rate a state keeps (requests/s) at `now` (by default: whatever a pause, the limit after it);
 * throws where no pace governs (a window, a count's budget, nothing known).
 */
export function rateOf(state: ControlState, now = Number.POSITIVE_INFINITY): number {
	const limit = limitOf(state, now);
	if (limit.kind !== 'paced') throw new Error(`expected a pace, got ${limit.kind}`);
	return limit.rate;
}

export function play(steps: Step[], from: ControlState = unknownRegistry()) {
	let state = from;
	const actions: Action[] = [];
	for (const { at, event } of steps) {
		if (event.kind === 'started') state = nextStart(state, at).state;
		const next = transition(state, event, at);
		state = next.state;
		actions.push(...next.actions);
	}
	return { state, actions };
}

/** How many requests nextStart lets go at `now` at once (each started as it is let go), at most 100. */
export function atOnce(state: ControlState, now: number): number {
	let count = 0;
	for (; count < 100; count++) {
		const asked = nextStart(state, now);
		if (asked.at !== 0) return count;
		state = transition(asked.state, { kind: 'started' }, now).state;
	}
	return count;
}

const pacedRate = (state: ControlState, now: number) => {
	const limit = limitOf(state, now);
	if (limit.kind !== 'paced') throw new Error(`expected a pace, got ${limit.kind}`);
	return limit.rate;
};

/**
 * pace.edges' floor story (fewer than MIN_ANSWERS_FOR_RATE admitted, a 429, twenty admitted, a second 429)
 * where every answer tells an hour's quota falling by `fall` an answer and both 429s say far more of it is
 * left: the 429s are a per-second limit's. `told` gives the next answer's count; `remaining` what is left.
 */
export function hourlyQuotaWaves(fall: number): {
	steps: Step[];
	told: () => { remaining: number };
	remaining: () => number;
} {
	let remaining = 4_000;
	const told = () => ({ remaining: (remaining -= fall) });
	const steps: Step[] = [];
	for (let index = 0; index < MIN_ANSWERS_FOR_RATE - 1; index++)
		steps.push(send(1_000 + 10 * index));
	for (let index = 0; index < MIN_ANSWERS_FOR_RATE - 1; index++)
		steps.push(ok(1_000 + 10 * index, 1_050 + 10 * index, told()));
	steps.push(send(1_100), refused(1_100, 1_150, { retryAfterMs: 1_000, remaining }));
	for (let index = 0; index < 20; index++) {
		const at = 3_000 + 50 * index;
		steps.push(send(at), ok(at, at + 10, told()));
	}
	steps.push(send(4_000), refused(4_000, 4_010, { remaining }));
	return { steps, told, remaining: () => remaining };
}

/**
 * workers.ts `othersRefusal`'s story (othersSpend.test's: a pace learnt from two waves, every answer
 * telling an hour's quota that falls by `fall` an answer, each 429 saying far more of it is left), then
 * `admissions` more admitted and `faults` answered 503 (a gateway's, no admission), a quarter of a second
 * apart, then one 429: the pace just before that 429 and just after.
 */
export function loneRefusal(
	fall: number,
	admissions: number,
	faults = 0,
): { before: number; after: number } {
	const quota = hourlyQuotaWaves(fall);
	const { steps, told } = quota;
	// Past a congestion spell: the lone 429 is a wave of its own.
	let at = 5_500;
	for (let index = 0; index < admissions + faults; index++) {
		steps.push(
			send(at),
			index < admissions ? ok(at, at + 10, told()) : answeredAs(503, at, at + 10),
		);
		at += 250;
	}
	const state = play(steps).state;
	const before = pacedRate(state, at);
	const after = pacedRate(
		play([send(at), refused(at, at + 1, { remaining: quota.remaining() })], state).state,
		at + 1,
	);
	return { before, after };
}

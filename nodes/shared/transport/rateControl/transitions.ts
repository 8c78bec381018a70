import type { Action } from './actions';
import {
	ADMITTED_SPAN_MAX_MS,
	ADMITTED_SPAN_MS,
	BURST_BLAME_MS,
	LATENCY_SMOOTHING,
	QUIET_SPELL_MS,
	SHARED_QUIET_MS,
} from './constants';
import { countAdmitted, othersSpend, recordRemaining } from './count';
import { firstAskAnswered, firstPauseAdmission } from './firstAsk';
import { append, countWhere, trim } from './log';
import { catchUpCredit, climb, firstWaveAnswered, refreshCredit } from './pace';
import { rateLimited } from './rateLimited';
import { slowStartAnswered, slowStartRefused } from './slowStart';
import { copyState, type ControlState } from './state';
import type { RequestReport } from './types';
import { windowAnswered, windowStarted } from './window';
import { earliestReset } from './windowReset';
import { askAnswered, asking, turnAdmitted, turnRefused } from './windowTurn';

/** What happens to a controller: a request leaves, or its try ends in one of three ways. */
export type ControlEvent =
	| { kind: 'started' }
	/** An answer other than 429 (`workLeft`: lookups still to send by every execution sharing the limit). */
	| { kind: 'answered'; report: RequestReport; workLeft: number }
	/**
	 * `phase`: a draw in [0, 1) from the controller's Random: where within its interval this controller
	 * resumes after the wave (0 where a story gives none: at once, as without chance). `workLeft` as for
	 * an answer; undefined is taken as none (a first pause then asks as where nothing was told).
	 */
	| { kind: 'rateLimited'; report: RequestReport; phase?: number; workLeft?: number }
	/** No answer: a timeout, a dropped connection, or a permit given back unsent. */
	| { kind: 'unanswered'; report: RequestReport };

/**
 * The controller's one transition: pure (the state passed in is left as it was), with time only from
 * `now`. Everything the controller learns of its registry goes through here.
 */
export function transition(
	state: ControlState,
	event: ControlEvent,
	now: number,
): { state: ControlState; actions: Action[] } {
	const next = copyState(state);
	const actions: Action[] = [];
	if (event.kind === 'started') started(next, now);
	else {
		// "Retry-After: 0" or a date in the past (a registry clock behind) says nothing of how long the
		// limit lasts: read as no Retry-After, never as "at once". (A count below zero never gets here:
		// rateControl/headers reads it as no count.)
		const told = event.report;
		const report: RequestReport = {
			...told,
			retryAfterMs:
				told.retryAfterMs !== undefined && told.retryAfterMs > 0 ? told.retryAfterMs : undefined,
		};
		tryEnded(next, report, now);
		const askedUntil = askAnswered(next.turn, report);
		if (askedUntil !== undefined)
			firstAskAnswered(next, now, askedUntil, report, event.kind === 'answered', actions);
		if (event.kind === 'rateLimited') {
			slowStartRefused(next);
			turnRefused(next.turn, report, now);
			if (askedUntil === undefined)
				rateLimited(next, now, report, actions, event.phase ?? 0, event.workLeft ?? 0);
		} else if (event.kind === 'answered') answered(next, now, report, event.workLeft);
	}
	return { state: next, actions };
}

function started(state: ControlState, now: number): void {
	// Before a limit is known, a quiet spell (nothing in flight, no answer for a while) starts the count
	// afresh: a first 429 is measured against what was sent since, not against the form's few lookups
	// an hour ago and the idle time between them.
	if (
		state.pace.rate === undefined &&
		state.inFlight === 0 &&
		now - state.lastAnswerAt >= QUIET_SPELL_MS
	) {
		state.firstSentAt = undefined;
		state.firstWaveLead = undefined;
		state.answeredSinceEvent = 0;
	}
	state.inFlight += 1;
	state.requests += 1;
	// The pace is measured from when requests began to go together: a first request that went alone
	// (to fetch the token) and was answered before the second left does not count as time admitted.
	if (
		state.firstSentAt === undefined ||
		(state.requests === 2 && state.lastAnswerAt >= state.firstSentAt)
	)
		state.firstSentAt = now;
	state.count.startedSinceRemaining += 1;
	state.lastStartAt = now;
	if (state.window) windowStarted(state.window, now);
	const pace = state.pace;
	// The request that asks alone spends no credit and begins no burst: refused, the pause ends as if
	// it had not gone (firstAsk.ts).
	if (pace.rate !== undefined && !asking(state.turn, now)) {
		refreshCredit(pace, now);
		// Spending credit saved up beyond the pace: a 429 soon after blames the burst, not the pace. A
		// burst begins with the first spend after a congestion event (one that came in the ms of the last
		// spend came after it: what the registry refused then was spent before), or once the last one can
		// no longer be blamed (credit saved up again over a quiet spell, a minute on: its own first start
		// counts).
		if (pace.credit >= catchUpCredit(pace) + 1) {
			if (!state.burstSinceEvent || now - state.lastBurstAt >= BURST_BLAME_MS)
				state.burstStartedAt = now;
			state.lastBurstAt = now;
			state.burstSinceEvent = true;
		}
		pace.credit -= 1;
	}
}

/** Whatever the answer: the request is out, and a window or a reset may have something to say. */
function tryEnded(state: ControlState, report: RequestReport, now: number): void {
	state.inFlight -= 1;
	state.lastTryEndedAt = now;
	if (report.status !== undefined) state.lastAnswerAt = now;
	if (state.window) {
		windowAnswered(state.window, report, now);
		if (state.window.refuted) {
			state.window = undefined;
			state.refillsSeen = true;
		}
	} else state.resetAt = earliestReset(state.resetAt, report, now);
}

function answered(state: ControlState, now: number, report: RequestReport, workLeft: number): void {
	state.answered += 1;
	state.answeredSinceEvent += 1;
	// An admission ends a storm: the waves around it were congestion, not a registry refusing all.
	state.stormLevel = 0;
	// Only an admission says a spent quota is back (a 503 or a dropped connection says nothing of it).
	const succeeded = report.status !== undefined && report.status >= 200 && report.status < 300;
	if (succeeded) {
		state.lastAdmittedAt = now;
		state.quotaSpentUntil = 0;
		turnAdmitted(state.turn, report);
		firstPauseAdmission(state, report, now, workLeft);
	}
	if (succeeded && state.firstWaveLead === undefined && !state.rateLimitedEver)
		state.firstWaveLead = { report, at: now };
	state.recentEvents = [];
	state.wavesInRow = 0;
	state.admitted = trim(
		append(state.admitted, { at: now, sentAt: report.sentAt, succeeded }),
		({ at }) => now - at > ADMITTED_SPAN_MAX_MS,
	);
	state.latencyMs += (now - report.sentAt - state.latencyMs) * LATENCY_SMOOTHING;
	if (succeeded) countAdmitted(state.count, report.sentAt, now);
	if (report.remaining !== undefined)
		recordRemaining(state.count, {
			now,
			sentAt: report.sentAt,
			remaining: report.remaining,
			resetAt: report.resetMs === undefined ? undefined : report.sentAt + report.resetMs,
			answered: state.answered,
			inFlight: state.inFlight,
		});
	// Others spend the quota until the counts have said ours alone for SHARED_QUIET_MS: then a lone 429
	// is ours again, and the probe waits for quiet as a single process's does.
	if (othersSpend(state.count)) {
		state.pace.shared = true;
		state.othersSpentAt = now;
	} else if (now - state.othersSpentAt >= SHARED_QUIET_MS) state.pace.shared = false;
	slowStartAnswered(state, report);
	if (firstWaveAnswered(state.pace, report.sentAt)) return;
	climb(
		state.pace,
		workLeft,
		{
			answers: state.answeredSinceEvent,
			ms: now - (state.lastEventAt ?? now),
		},
		{
			latencyMs: state.latencyMs,
			// Successes only: a burst of quick failures shows no refill.
			admittedLastSecond: countWhere(
				state.admitted,
				({ at, succeeded }) => succeeded && now - at < ADMITTED_SPAN_MS,
			),
		},
	);
}

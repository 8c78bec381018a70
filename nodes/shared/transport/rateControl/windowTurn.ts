import { EARLY_RESET_HOLD_MS, TURN_BRACKETS, TURN_NARROW_MS, TURN_PERIOD_MS } from './constants';
import type { RequestReport } from './types';

/**
 * A window that tells nothing (a bare 429: no Retry-After, no count, no reset) still shows when it turns:
 * the last request refused and the first admitted after it were sent on either side of its turn. A
 * window's length is whole seconds as registries state them (1 s to 15 min), so its turns, however far
 * apart and wherever the first began, fall at one phase of the second: brackets from several turns,
 * laid over one second, narrow that phase. A token bucket's refusals end when a token comes back, a
 * sliding log's when a request of ours leaves it: wherever our sending put them, not on one phase, and
 * their brackets soon miss each other (the learned phase is dropped and learned afresh).
 *
 * Plain data, edited only on a transition's copy (transitions.ts).
 */
export interface TurnState {
	/** The latest refused request (a bare 429) with no admission sent after it seen yet. */
	refusedSentAt: number | undefined;
	/**
	 * How long that refusal took to come back: a refusal answers at once, so this is the time our own
	 * event loop held it (sending many together queues them). A request sent in that same moment reached
	 * the registry at most this much after it left: the bracket's late end allows for it.
	 */
	refusedRoundTripMs: number;
	/** The latest moment the turn may fall, as sent by us (the narrowed bracket's end); undefined: none learned. */
	at: number | undefined;
	/** How wide the narrowed bracket is, ending at `at`. */
	widthMs: number;
	/** Brackets that fell on one phase, in a row. */
	brackets: number;
	/** How far refusals at its edge moved the turn since the last bracket (a turn reckoned early). */
	movedMs: number;
	/** The registry told something of its limit (a count, a reset, a Retry-After): its word rules, not this. */
	told: boolean;
	/** An admission told a count (a registry that tells it on every answer, not on its 429s alone). */
	countAdmitted: boolean;
	/**
	 * The first pause's end, while one request asks alone, earlier, whether the registry admits again
	 * (askFirstTurn); it goes from `askAt`. Undefined: nobody asks.
	 */
	askedUntil: number | undefined;
	askAt: number;
	/**
	 * A first pause whose ask waits for an admission's round trip (its 429s came back before any
	 * admission): the refused request's send time and the pause's end. Undefined: none waits.
	 */
	askDeferred: { sentAt: number; until: number } | undefined;
}

export const noTurn = (): TurnState => ({
	refusedSentAt: undefined,
	refusedRoundTripMs: 0,
	at: undefined,
	widthMs: 0,
	brackets: 0,
	movedMs: 0,
	told: false,
	countAdmitted: false,
	askedUntil: undefined,
	askAt: 0,
	askDeferred: undefined,
});

/** Whether an answer tells anything of the limit: such a registry is read by what it tells. */
const tells = (report: RequestReport): boolean =>
	report.remaining !== undefined ||
	report.resetMs !== undefined ||
	report.limit !== undefined ||
	report.retryAfterMs !== undefined;

/**
 * A 429: where it is bare, the turn lies after this request left. Sent within the learned turn's
 * bracket, the turn is later than that; sent just after it (a pause ended there, refused), the turn was
 * reckoned a little early: it lies within EARLY_RESET_HOLD_MS after this request (as a window's early
 * reset, window.ts), and the pause that follows ends there.
 */
export function turnRefused(turn: TurnState, report: RequestReport, now: number): void {
	if (tells(report)) turn.told = true;
	if (turn.told) return;
	if (turn.refusedSentAt === undefined || report.sentAt >= turn.refusedSentAt) {
		turn.refusedSentAt = report.sentAt;
		turn.refusedRoundTripMs = now - report.sentAt;
	}
	if (turn.at === undefined) return;
	const learned = turn.at + Math.round((report.sentAt - turn.at) / TURN_PERIOD_MS) * TURN_PERIOD_MS;
	const after = report.sentAt - learned;
	if (after < 0 && -after < turn.widthMs) turn.widthMs = -after;
	else if (after >= 0 && after < EARLY_RESET_HOLD_MS) {
		// Moved on once already and refused again: no turn this second (a window of seconds): the
		// learned turn stands, the pause ends at its next second.
		const movedMs = turn.movedMs + after + EARLY_RESET_HOLD_MS;
		if (movedMs > EARLY_RESET_HOLD_MS * 2) return;
		turn.movedMs = movedMs;
		turn.at = report.sentAt + EARLY_RESET_HOLD_MS;
		turn.widthMs = EARLY_RESET_HOLD_MS;
	}
}

/**
 * An admission: sent after the last refusal, it closes a bracket (the refusal's send time, its own]
 * that holds a turn; laid over the learned one (shifted by whole seconds), it narrows it, or (missing
 * it) starts the learning afresh.
 */
export function turnAdmitted(turn: TurnState, report: RequestReport): void {
	if (tells(report)) turn.told = true;
	if (report.remaining !== undefined) turn.countAdmitted = true;
	const refusedSentAt = turn.refusedSentAt;
	if (turn.told || refusedSentAt === undefined || report.sentAt <= refusedSentAt) return;
	turn.refusedSentAt = undefined;
	turn.movedMs = 0;
	const from = refusedSentAt;
	const to = report.sentAt + turn.refusedRoundTripMs;
	// A bracket a second or wider holds every phase: it tells nothing.
	if (to - from >= TURN_PERIOD_MS) return;
	if (turn.at !== undefined) {
		const shift = Math.round((to - turn.at) / TURN_PERIOD_MS) * TURN_PERIOD_MS;
		for (const by of [shift, shift - TURN_PERIOD_MS, shift + TURN_PERIOD_MS]) {
			const end = Math.min(to, turn.at + by);
			const start = Math.max(from, turn.at + by - turn.widthMs);
			if (end > start) {
				turn.at = end;
				turn.widthMs = end - start;
				turn.brackets += 1;
				return;
			}
		}
	}
	turn.at = to;
	turn.widthMs = to - from;
	turn.brackets = 1;
}

/**
 * The first learned turn at or after `from` (a refused request's send time: where its refusal came back
 * after that turn, the turn is due at once), as sent: a request that leaves then reaches the registry
 * just past it. Undefined where none is learned (TURN_BRACKETS).
 */
export function nextTurn(turn: TurnState, from: number): number | undefined {
	if (!turnLearned(turn)) return undefined;
	// A wide bracket is halved: a request sent at its middle is admitted (its late half goes) or refused
	// (its early half goes).
	const at = turn.widthMs > TURN_NARROW_MS ? turn.at! - turn.widthMs / 2 : turn.at!;
	return at + Math.max(0, Math.ceil((from - at) / TURN_PERIOD_MS)) * TURN_PERIOD_MS;
}

/** Brackets enough on one phase, and nothing told of the limit. */
export const turnLearned = (turn: TurnState): boolean =>
	!turn.told && turn.at !== undefined && turn.brackets >= TURN_BRACKETS;

/**
 * The first wave refused within a second of its start: a fixed window turns somewhere between the
 * refused request and the first pause's end (a second after sending began), a sliding log's requests
 * leave only then, a bucket refills all along. One request asks alone:
 * - nothing told, halfway, where a window's turn is as likely before as after;
 * - a count told on admissions too (`countAdmitted`), its reset within the pause, and no Retry-After
 *   (the registry's word for this refusal: a first pause asked before it cost slow buckets of burst 2,
 *   docs/performance.md session 49), with `longWork` (constants.ts ASK_MIN_WORK): at once. A bucket
 *   whose Reset rounds its next token up to a second admits it (bench:sim s31, 428/s, burst 1: paced
 *   from 1/s, 2.06x its floor), a second's window refuses it (one 429). A count told on 429s alone
 *   asks nothing sooner: four workers sharing such a limit lost 3-5% over 20 draws (seed 3 s257, seed
 *   2 s34), each one's ask meeting the others' sends.
 * Only where its answer (`roundTripMs`, an admission's) is due before the pause ends: admitted (a
 * window turned, a bucket refilled), everybody goes on; refused, the pause ends as it would have (one
 * 429 more). Where no admission has come back yet, the ask waits for one (askOnAdmission). When that
 * request goes, or the whole pause where nothing asks.
 */
export function askFirstTurn(
	turn: TurnState,
	report: RequestReport,
	pauseEnd: number,
	roundTripMs: number,
	now: number,
	longWork: boolean,
): number {
	turn.askDeferred = undefined;
	const unknownRoundTrip = roundTripMs === Number.POSITIVE_INFINITY;
	// Asking sooner than the halfway ask of a registry that tells nothing: only with long work.
	if ((turn.told || unknownRoundTrip) && !longWork) return pauseEnd;
	if (
		turn.told &&
		(report.retryAfterMs !== undefined || (report.resetMs ?? 0) > pauseEnd - report.sentAt)
	)
		return pauseEnd;
	if (unknownRoundTrip) {
		turn.askDeferred = { sentAt: report.sentAt, until: pauseEnd };
		return pauseEnd;
	}
	if (turn.told && !turn.countAdmitted) return pauseEnd;
	return scheduleAsk(turn, report.sentAt, pauseEnd, roundTripMs, now);
}

/**
 * An admission came back during a first pause whose ask waited for one (`pausedUntil`: that pause's
 * end, still): the ask's moment, where it is due before then; undefined where nothing asks.
 */
export function askOnAdmission(
	turn: TurnState,
	report: RequestReport,
	now: number,
	pausedUntil: number,
	longWork: boolean,
): number | undefined {
	const deferred = turn.askDeferred;
	if (deferred === undefined) return undefined;
	turn.askDeferred = undefined;
	if (!longWork || (turn.told && !turn.countAdmitted)) return undefined;
	// Another pause by now (another wave's): this ask is not that pause's.
	if (deferred.until !== pausedUntil) return undefined;
	const askAt = scheduleAsk(turn, deferred.sentAt, pausedUntil, now - report.sentAt, now);
	return askAt < pausedUntil ? askAt : undefined;
}

function scheduleAsk(
	turn: TurnState,
	refusedSentAt: number,
	pauseEnd: number,
	roundTripMs: number,
	now: number,
): number {
	const askAt = turn.told ? now : Math.max(now, (refusedSentAt + pauseEnd) / 2);
	if (askAt + roundTripMs >= pauseEnd) return pauseEnd;
	turn.askedUntil = pauseEnd;
	turn.askAt = askAt;
	return askAt;
}

/** Whether a request asking alone is awaited: nobody else starts until its answer, or the pause's end. */
export const asking = (turn: TurnState, now: number): boolean =>
	turn.askedUntil !== undefined && now < turn.askedUntil;

/**
 * A try ended: where it was the request that asked alone (sent from `askAt`, before the pause's end),
 * its answer ends the asking, and the pause's end is returned (firstAsk.ts: a refusal is no wave, the
 * registry still refuses what the first wave met).
 */
export function askAnswered(turn: TurnState, report: RequestReport): number | undefined {
	const askedUntil = turn.askedUntil;
	if (askedUntil === undefined || report.sentAt < turn.askAt) return undefined;
	turn.askedUntil = undefined;
	// Sent at the pause's end or later, it asked nothing: everybody was going again.
	return report.sentAt < askedUntil ? askedUntil : undefined;
}

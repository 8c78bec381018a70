import { LOG_HOLDS_OURS_SHARE } from './constants';
import { RESET_RESOLUTION_MS } from './headers/reading';
import type { ControlState } from './state';
import type { RequestReport } from './types';
import { suspectWindow, type WindowState } from './windowState';

// A sliding log taken for a window: when its oldest request leaves (its next reset) and when it has room,
// reckoned from our own requests and what the first request after a reset was told.

/**
 * A log's next reset from its first request's answer: when the oldest request it holds leaves, one
 * window after that request reached the registry (at most a round trip, the lead's, after it left).
 * Found empty, the lead is that oldest and tells the window: in seconds its reset, told as a time
 * (Unix seconds) the whole seconds short of it (rounded up to the registry clock's second, the reset
 * holds the part of a second the request arrived in; windows are whole seconds as registries state
 * them). Found holding others, those are ours of the last windows (what a log holds), the oldest of
 * the most recent as many. Either way the reset told is rounded up, up to a second late: the lead sent
 * at it reaches the registry just past a whole second, its own reset is told a second late again,
 * every window (bench:sim s272: one 1 s window in 2 s). A fixed window on the clock's seconds is no
 * such log: the refusal of the lead sent ahead shows it (windowAnswered).
 */
export function leadReset(
	window: WindowState,
	report: RequestReport,
	now: number,
): number | undefined {
	// How far the registry is, whatever else the answer tells (the IETF RateLimit field without its
	// Policy tells no limit).
	window.roundTripMs = now - report.sentAt;
	if (
		window.resetsAsTold ||
		report.resetMs === undefined ||
		report.limit === undefined ||
		report.remaining === undefined
	)
		return undefined;
	const others = report.limit - 1 - report.remaining;
	if (others === 0) window.windowMs = toldWindowMs(report.resetMs, report.resetToldAsTime === true);
	const windowMs = window.windowMs;
	// Found holding fewer than ours that went less than a window before it (LOG_HOLDS_OURS_SHARE of them):
	// those left at a reset, not one by one (a fixed window, as a lead alone after others stopped finds
	// it, or beside workers whose requests of the new window it finds): no log. A log holds them all.
	const held =
		windowMs === undefined
			? 0
			: window.previousStarts.filter(
					(start) => start > report.sentAt - windowMs + window.roundTripMs,
				).length;
	if (others < LOG_HOLDS_OURS_SHARE * held) window.keepsRequests = false;
	else if (others > 0) window.keepsRequests = true;
	// Holding others where no log is: whose, and when they leave, nothing tells (the reset told).
	const oldest =
		others === 0
			? report.sentAt
			: window.keepsRequests
				? window.previousStarts[window.previousStarts.length - others]
				: undefined;
	return window.windowMs === undefined || oldest === undefined
		? undefined
		: oldest + window.windowMs + window.roundTripMs;
}

/** A log's length from the reset its lead was told, where the lead found it empty. */
function toldWindowMs(resetMs: number, asTime: boolean): number | undefined {
	const windowMs = asTime
		? (Math.ceil(resetMs / RESET_RESOLUTION_MS) - 1) * RESET_RESOLUTION_MS
		: resetMs;
	return windowMs >= RESET_RESOLUTION_MS ? windowMs : undefined;
}

/**
 * When a log of a known length holding our last `limit` requests has room again: once the one `limit`
 * back has left it, a window after it reached the registry (0 where unknown, fewer were sent, or the
 * answers show no log: a fixed window's budget comes back whole at its reset, whenever ours went). The
 * lead alone, the others a round trip later: a reset's first request found those still in the log
 * (bench:sim s169, 7 a second: 8 requests in 2 s).
 */
export function logRoom(window: WindowState): number {
	const log = window.keepsRequests || (window.drains && !window.refills);
	const sent = [...window.previousStarts, ...window.starts];
	const back = sent.length - (window.limit ?? Number.POSITIVE_INFINITY);
	return !log || window.windowMs === undefined || back < 0
		? 0
		: sent[back] + window.windowMs + window.roundTripMs;
}

/**
 * A window suspected after a first wave: what a log holds of ours is that wave's admitted requests,
 * each until a window after it arrived. A wave that leaves over tens of ms (spread out: branch wave2)
 * and the lead at the told reset finds all but the first still there: unseeded, it knew neither whose they
 * were nor the log's length, reckoned a budget of 1 and waited for a reset told a second late (bench:sim
 * s32, a 2 s log of 64: 64 every 3 s). The first answer since sending began found the log empty, as a
 * lead does, and its told reset is the log's length (leadReset); our last `limit` admitted since it
 * (the token's lone request, the wave) are what the log holds of ours.
 */
export function firstWaveLog(state: ControlState, now: number, resetAt: number): WindowState {
	const window = suspectWindow(now, resetAt);
	const lead = state.firstWaveLead;
	// Found holding others (workers' requests): whose, and how long they stay, nothing tells.
	if (
		lead === undefined ||
		lead.report.limit === undefined ||
		lead.report.remaining !== lead.report.limit - 1
	)
		return window;
	leadReset(window, lead.report, lead.at);
	window.limit = lead.report.limit;
	window.waveFrom = lead.report.sentAt;
	for (let at = state.admitted.from; at < state.admitted.to; at++) {
		const { sentAt, succeeded } = state.admitted.items[at];
		if (succeeded) waveAdmitted(window, sentAt);
	}
	return window;
}

/**
 * A request of the first wave admitted (answered before the window was suspected, or after: the wave's
 * answers come over a round trip): it is in what a log holds of ours, oldest first. One sent in the
 * moment the refusal came back, before it was read, went with the wave: nothing starts after it in that
 * moment (the probe waits). The roll keeps the last `limit` (rollIfDue); those before them left a log
 * before the last `limit` could come in, and what reads the log before the roll counts from the newest.
 */
export function waveAdmitted(window: WindowState, sentAt: number): void {
	if (sentAt < window.waveFrom || sentAt > window.waveUntil) return;
	window.previousStarts = [...window.previousStarts, sentAt].sort((a, b) => a - b);
}

import { GATEWAY_LIMIT_ADMITTED_MS } from './constants';
import { countWhere } from './log';
import type { ControlState } from './state';
import type { RequestReport } from './types';

/**
 * Whether a gateway's bare 503 (answerReport.ts `bareGateway503`: no Retry-After, no count, no words of
 * the registry's) is a rate limit's refusal, read as a 429, or an outage, left to the circuit breaker.
 * nginx's limit_req says both alike; what tells them apart is whether the registry admits anybody:
 * - a limit refuses some while it admits others at its rate: the registry admitted a request (a 2xx)
 *   in the last GATEWAY_LIMIT_ADMITTED_MS;
 * - or this is the first wave, sent before the registry answered anything: a limit's refusals come
 *   back at once, before the admissions of their own wave (the registry's latency), so nothing can have
 *   been admitted yet.
 * An outage admits nothing: once GATEWAY_LIMIT_ADMITTED_MS has passed since the last admission (and
 * after the first wave), every bare 503 is an outage's again, counted by the breaker, which says the
 * registry seems to be down as before. No outage can be waited out endlessly: its 503s are read as a
 * limit's for that span at most, and each lookup's waits for a limit end at its Max Rate-Limit Wait.
 */
export function gatewayRefusalIsLimit(
	state: ControlState,
	report: RequestReport,
	now: number,
): boolean {
	if (state.firstAnswerAt === undefined || report.sentAt < state.firstAnswerAt) return true;
	return (
		countWhere(
			state.admitted,
			({ at, succeeded }) => succeeded && now - at <= GATEWAY_LIMIT_ADMITTED_MS,
		) > 0
	);
}

import {
	decideRetry,
	firstTry,
	type RetryDecision,
	type Tries,
	type TryResult,
} from '../../../nodes/shared/transport/retryDecision';
import { MAX_RATE_LIMITED_TRIES } from '../../../nodes/shared/transport/retryPolicy';

// After each try of a lookup, one pure decision: finish, try again at once, wait, or back off. Told the
// try's result, what the lookup has spent and the time; no clock, no waits.
const limits = { maxAttempts: 3, maxRateLimitWaitMs: 60_000 };
const now = 100_000;
const timeout: TryResult = {
	kind: 'transient',
	failure: { kind: 'no-response', reason: 'timeout', code: 'ETIMEDOUT', attempts: 1 },
	retryAfterMs: undefined,
	probe: false,
};
const http503 = (retryAfterMs?: number, probe = false): TryResult => ({
	kind: 'transient',
	failure: { kind: 'http', status: 503, body: '', attempts: 1 },
	retryAfterMs,
	probe,
});
const tries = (spent: Partial<Tries>): Tries => ({ ...firstTry(), ...spent });

const cases: Array<{
	when: string;
	result: TryResult;
	tries: Tries;
	decision: Partial<RetryDecision>;
}> = [
	{
		when: 'an outcome the try decided (the execution stopped)',
		result: { kind: 'final', outcome: { kind: 'cancelled' } },
		tries: firstTry(),
		decision: { kind: 'finish', outcome: { kind: 'cancelled' } },
	},
	{
		when: 'a permit given back unsent',
		result: { kind: 'unsent' },
		tries: firstTry(),
		decision: { kind: 'again', tries: firstTry() },
	},
	{
		when: 'a first timeout',
		result: timeout,
		tries: firstTry(),
		decision: { kind: 'backOff', timeout: true, backoffAttempt: 1, tries: tries({ attempt: 2 }) },
	},
	{
		when: 'a 503 on the last attempt',
		result: http503(),
		tries: tries({ attempt: 3 }),
		decision: { kind: 'finish' },
	},
	{
		when: "the breaker's probe failing on the last attempt (the row waits for the breaker's verdict)",
		result: http503(undefined, true),
		tries: tries({ attempt: 3 }),
		decision: { kind: 'backOff', tries: tries({ attempt: 3 }) },
	},
	{
		when: 'a 503 asking to wait past the rate-limit wait',
		result: http503(61_000),
		tries: firstTry(),
		decision: { kind: 'finish' },
	},
	{
		when: 'a first 429 saying to wait 2 s',
		result: { kind: 'rateLimited', status: 429, retryAfterMs: 2_000, delayMs: 2_000 },
		tries: firstTry(),
		decision: {
			kind: 'wait',
			ms: 2_000,
			tries: tries({ rateLimited: 1, rateLimitedSince: now, refusedWith: 429 }),
		},
	},
	{
		when: 'a 403 for the rate limit whose wait would end past the wait budget: named a 403',
		result: { kind: 'rateLimited', status: 403, retryAfterMs: 2_000, delayMs: 2_000 },
		tries: tries({ rateLimited: 3, rateLimitedSince: now - 59_000 }),
		decision: {
			kind: 'finish',
			outcome: {
				kind: 'failed',
				failure: { kind: 'rate-limited', waitedMs: 59_000, retryAfterMs: 2_000, status: 403 },
			},
		},
	},
	{
		when: 'the last 429 a lookup may meet',
		result: { kind: 'rateLimited', status: 429, retryAfterMs: undefined, delayMs: 100 },
		tries: tries({ rateLimited: MAX_RATE_LIMITED_TRIES - 1, rateLimitedSince: now }),
		decision: { kind: 'finish' },
	},
	{
		when: 'everybody paused past the wait budget, after its own 420: named the 420',
		result: { kind: 'paused', until: now + 5_000 },
		tries: tries({ rateLimitedSince: now - 1_000, refusedWith: 420 }),
		decision: {
			kind: 'finish',
			outcome: {
				kind: 'failed',
				failure: { kind: 'rate-limited', waitedMs: 1_000, retryAfterMs: 5_000, status: 420 },
			},
		},
	},
	{
		when: 'a 401 to a token renewed meanwhile',
		result: { kind: 'tokenResend', refusal: { status: 401 } },
		tries: firstTry(),
		decision: { kind: 'again', tries: tries({ tokenResends: 1 }) },
	},
	{
		when: 'a fourth 401 to tokens renewed meanwhile',
		result: { kind: 'tokenResend', refusal: { status: 401 } },
		tries: tries({ tokenResends: 3 }),
		decision: { kind: 'refuseToken', refusal: { status: 401 } },
	},
];

describe('after a try', () => {
	it.each(cases)('$when', ({ result, tries: spent, decision }) => {
		expect(decideRetry(result, spent, limits, now)).toMatchObject(decision);
	});
});

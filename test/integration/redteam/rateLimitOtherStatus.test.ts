import type { OutgoingHttpHeaders } from 'node:http';

import { runRows } from '../../../harness/fixtures';
import { scriptedEngine } from '../../support/scriptedEngine';
import { RateLimiter, type RateDecision } from '../../../sandbox/limiters';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: registries and the gateways in front of them do not all say "rate limit" with a 429.
// GitHub-style APIs answer 403 with X-RateLimit-Remaining: 0 when the limit is spent, and 403 with
// Retry-After for a secondary limit; Twitter-style APIs answer 420 Enhance Your Calm. The node read
// each as what the status says elsewhere: a 403 failed its row at once, telling the user the
// credential's plan or scope lacks company data (it does not: the next second it answers), and a 420
// failed its row as an unknown answer. On a sheet paced by such a registry, every row refused so
// failed, and the rate controller never heard of the limit, so it kept sending at the full concurrency.

/** A token bucket of 10 a second, 2 at once, refusing with `refusal`'s status and headers. */
const refusingWith = (refusal: (decision: RateDecision) => [number, OutgoingHttpHeaders]) => {
	const state = { limiter: new RateLimiter({ ratePerSecond: 10, burst: 2 }), refused: 0 };
	const handler = (_request: unknown, response: Parameters<typeof json>[0]) => {
		const decision = state.limiter.take('client');
		if (decision.allowed) return json(response, 200, GOOD_RECORD);
		state.refused += 1;
		const [status, headers] = refusal(decision);
		json(
			response,
			status,
			{ message: 'API rate limit exceeded' },
			headers as Record<string, string>,
		);
	};
	return { state, handler };
};

const ROWS = Array.from({ length: 40 }, (_, index) => ({
	country: 'de',
	companyId: `HRB${index}`,
}));

describe.each([
	[
		'403 with X-RateLimit-Remaining: 0 (a spent primary limit, GitHub-style)',
		(decision: RateDecision): [number, OutgoingHttpHeaders] => [
			403,
			{
				'x-ratelimit-limit': String(decision.limit),
				'x-ratelimit-remaining': '0',
				'x-ratelimit-reset': String(decision.resetSeconds),
			},
		],
	],
	[
		'403 with Retry-After (a secondary limit, GitHub-style)',
		(decision: RateDecision): [number, OutgoingHttpHeaders] => [
			403,
			{ 'retry-after': String(decision.allowed ? 0 : decision.retryAfterSeconds) },
		],
	],
	[
		'420 Enhance Your Calm with Retry-After',
		(decision: RateDecision): [number, OutgoingHttpHeaders] => [
			420,
			{ 'retry-after': String(decision.allowed ? 0 : decision.retryAfterSeconds) },
		],
	],
])('a registry whose rate limit answers %s', (_name, refusal) => {
	let registry: ScriptedRegistry;
	const { state, handler } = refusingWith(refusal);
	scriptedRegistryEachTest((started) => {
		registry = started;
		state.limiter = new RateLimiter({ ratePerSecond: 10, burst: 2 });
		state.refused = 0;
	}, handler);

	it('is waited out as a 429 is: every row registered, none failed', async () => {
		const engine = scriptedEngine(registry);
		const { registered, notRegistered, errors } = await runRows(engine, ROWS, {
			onError: 'continueErrorOutput',
		});
		expect(errors.map((item) => item.json.error)).toEqual([]);
		expect(notRegistered).toEqual([]);
		expect(registered.map((item) => item.pairedItem)).toEqual(
			ROWS.map((_row, index) => ({ item: index })),
		);
		// The limit was met, and it paced the sheet.
		expect(state.refused).toBeGreaterThan(0);
	});
});

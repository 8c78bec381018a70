import { SimulatedRegistry } from '../../../../bench/sim/registry';
import { NODE_DEFAULTS } from '../../../../bench/sim/sheet';
import { runClass } from './simScenario';

// A count the registry lets requests past, and the quotas any rule for it must not hammer (session 49).
// Told on every answer with a far reset (an hourly quota of 5,000 that the registry does not enforce, or
// enforces per something else), workers paced by the count read each admission at 0 left as the refill
// and send ever fewer, never refused: bench:sim seed 4 s178, two workers, 9,000 rows in 382 s where the
// floor is 2.7 s. Those stories are known failures. A rule that took such a count for no budget once a
// request sent after its 0 was admitted (`countOverrun`) passed them, and was taken out after two red-team
// reviews: a quota the registry does enforce whose count is one behind (as a lagging counter is) was then
// hammered once spent: without Retry-After 3,680 requests and 3,479 429s over 446 s (the code before: 203
// and 2 in 1.5 s); ended by a storm of refusals at its 0, still 2,690 429s where each 429 said
// `Retry-After: 1`, and a 5-minute quota with a 10-minute wait failed 49 rows that the code before
// answered. The quota stories below pass on this code and are what such a rule must keep passing.
const QUOTA = { limit: 300, windowMs: 50 * 60_000 };

describe('a count the registry admits requests past (known failures)', () => {
	it.failing(
		'two workers whose sheets outrun an hourly count the registry does not enforce go on at the limit',
		async () => {
			const result = await runClass(
				{
					limiter: {
						family: 'fixed-window',
						ratePerSecond: 111,
						burst: 1,
						limit: 100_000,
						windowMs: 900_000,
					},
					headers: 'x-ratelimit',
					longQuota: QUOTA,
					latencyMs: 35,
					jitterMs: 0,
				},
				{ processes: 2, rows: 400 },
			);
			expect(result.rowsAnswered).toBe(800);
			expect(result.failedByLimit).toBe(0);
			// Before: 14.8x the floor.
			expect(result.vsFloor).toBeLessThan(1.5);
		},
	);

	it.failing(
		"and a per-second limit's 429 that comes with that count's 0 and its hour-long reset fails no row",
		async () => {
			// bench:sim seed 5 s62: the 429 said 0 left until the quota's reset, 50 minutes away; taken for a
			// spent quota, every waiting row failed at once (270).
			const result = await runClass(
				{
					limiter: {
						family: 'sliding-window',
						ratePerSecond: 80,
						burst: 1,
						limit: 400,
						windowMs: 5_000,
					},
					headers: 'x-ratelimit',
					longQuota: QUOTA,
					latencyMs: 50,
					jitterMs: 10,
				},
				{ processes: 2, executions: 2, rows: 300 },
			);
			expect(result.rowsAnswered).toBe(1200);
			expect(result.failedByLimit).toBe(0);
		},
	);
});

describe('a count that says 0 on every answer, beside a window that tells its reset', () => {
	it("believes the window's 429 and its reset of seconds: under 2% 429s (bench:sim seed 5 s207)", async () => {
		// The constant 0 is overrun at once (admitted at 0 left); the 429s of the 10 s log come with 0 left
		// and its reset seconds away. Doubted too (at any distance), they were 2.6% of the requests.
		const result = await runClass(
			{
				limiter: {
					family: 'sliding-window',
					ratePerSecond: 289,
					burst: 1,
					limit: 2890,
					windowMs: 10_000,
				},
				headers: 'x-ratelimit',
				nonsense: 'remaining-0',
				latencyMs: 13,
				jitterMs: 4,
			},
			{ name: 's207', processes: 2, rows: 1500 },
		);
		expect(result.rowsAnswered).toBe(3000);
		expect(result.failedByLimit).toBe(0);
		expect(result.share429).toBeLessThan(0.02);
	});
});

/**
 * A registry of one quota it enforces: `limit` per `windowMs` (its counter restarts then), whose count is
 * `behind` admissions behind (it says 0 while `behind` are still let through, as a lagging counter does).
 * Its 429 says Retry-After `retryAfterS` where given. Replaces the simulated registry's answers for one run.
 */
async function againstQuota(
	quota: { limit: number; windowMs: number; behind: number; retryAfterS?: number },
	sheet: { rows: number },
) {
	let used = 0;
	let resetAt = 0;
	const answers = { requests: 0, refused: 0 };
	const spy = jest
		.spyOn(SimulatedRegistry.prototype as never, 'answer')
		.mockImplementation(function (this: {
			clock: { now(): number };
			counters: { requests: number; rateLimited: number };
		}) {
			const now = this.clock.now();
			if (resetAt === 0 || now >= resetAt) [resetAt, used] = [now + quota.windowMs, 0];
			const headers = (left: number) => ({
				'x-ratelimit-limit': String(quota.limit),
				'x-ratelimit-remaining': String(Math.max(0, left)),
				'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)),
			});
			const refused = used >= quota.limit + quota.behind;
			if (!refused) used += 1;
			answers.requests += 1;
			this.counters.requests += 1;
			if (refused)
				[answers.refused, this.counters.rateLimited] = [
					answers.refused + 1,
					this.counters.rateLimited + 1,
				];
			const wait =
				quota.retryAfterS === undefined ? {} : { 'retry-after': String(quota.retryAfterS) };
			return refused
				? { kind: 'response', status: 429, headers: { ...headers(0), ...wait }, body: {} }
				: {
						kind: 'response',
						status: 200,
						headers: headers(quota.limit - quota.behind - used),
						body: {
							isRegistered: false,
							officialName: 'N/A',
							status: 'N/A',
							registrationDate: 'N/A',
						},
					};
		} as never);
	try {
		return { ...(await runClass({ headers: 'x-ratelimit' }, sheet)), ...answers };
	} finally {
		spy.mockRestore();
	}
}

// The red-team reviews' registries (session 49): a quota the registry enforces, whose count is one behind.
// Once spent, its refusals say 0 left until the quota's reset: the rows left fail at once (or wait for
// the reset, within Max Rate-Limit Wait), and the registry hears few 429s.
describe('a quota the registry enforces, its count one behind', () => {
	it('an hourly 200 and 400 rows: the rest fail within seconds, a storm of 429s at most', async () => {
		const result = await againstQuota(
			{ limit: 200, windowMs: 3_600_000, behind: 1 },
			{ rows: 400 },
		);
		expect(result.rowsAnswered).toBe(400);
		expect(result.failedByLimit).toBe(199);
		// With the overrun rule: 3,680 requests, 3,479 429s, 446 s; with its storm end 240, 39, 2.4 s.
		expect(result.requests).toBeLessThan(300);
		expect(result.refused).toBeLessThan(60);
		expect(result.ms).toBeLessThan(5_000);
	});

	it.each([1, 5, 60])('the same with Retry-After: %i s on its 429s', async (retryAfterS) => {
		const result = await againstQuota(
			{ limit: 200, windowMs: 3_600_000, behind: 1, retryAfterS },
			{ rows: 400 },
		);
		expect(result.failedByLimit).toBe(199);
		// With the rule and its storm end: 2,690 / 737 / 204 429s (RA 1 / 5 / 60 s), up to 31 minutes.
		expect(result.refused).toBeLessThan(60);
		expect(result.ms).toBeLessThan(retryAfterS * 1_000 + 5_000);
	});

	it('a 5-minute 100 with Max Rate-Limit Wait at 10 minutes: every row waits for the quota and is answered', async () => {
		const wait = NODE_DEFAULTS.maxRateLimitWaitMs;
		(NODE_DEFAULTS as { maxRateLimitWaitMs: number }).maxRateLimitWaitMs = 600_000;
		try {
			const result = await againstQuota(
				{ limit: 100, windowMs: 300_000, behind: 1 },
				{ rows: 150 },
			);
			// With the overrun rule: 49 rows failed, 980 429s (with its storm end too, where 429s say Retry-After: 1).
			expect(result.failedByLimit).toBe(0);
			expect(result.rowsAnswered).toBe(150);
			expect(result.refused).toBeLessThan(60);
		} finally {
			(NODE_DEFAULTS as { maxRateLimitWaitMs: number }).maxRateLimitWaitMs = wait;
		}
	});
});

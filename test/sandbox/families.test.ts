import {
	startSandbox,
	type LimiterFamily,
	type RateLimitHeaders,
	type Sandbox,
} from '../../sandbox/server';
import { lookup, tokenFor, type RawResponse } from './client';

// Issue 10: each limiter family a registry may use, as a client sees it over HTTP, in each header mode.
describe('sandbox limiter families over HTTP', () => {
	let sandbox: Sandbox;
	let token: string;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
		token = await tokenFor(sandbox);
	});
	afterEach(() => sandbox.resetAll());
	afterAll(async () => await sandbox.close());

	const sequence = async (count: number) => {
		const responses: RawResponse[] = [];
		for (let index = 0; index < count; index++)
			responses.push(await lookup(sandbox, '/v1/company/de/HRB12345', token));
		return responses;
	};
	const statuses = (responses: RawResponse[]) => responses.map((response) => response.status);
	/**
	 * Limits whose windows and refills are an hour or more long: a short sequence sent now meets one window
	 * and no refill however slow the machine is (the window edges, on exact times, are limiters.test.ts's).
	 * An aligned hour ending within a minute is waited out first, so a sequence never straddles two.
	 */
	const HOUR_MS = 3_600_000;
	const awayFromHourEdge = async () => {
		const left = HOUR_MS - (Date.now() % HOUR_MS);
		if (left < 60_000) await new Promise((resolve) => setTimeout(resolve, left + 20));
	};
	const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

	// The longest Retry-After each may ask for: one token back at 1 per 1000 s; the hour's (rest of its) window.
	const families: Array<[LimiterFamily, object, number]> = [
		['token-bucket', { ratePerSecond: 0.001, burst: 5 }, 1000],
		['fixed-window', { limit: 5, windowMs: HOUR_MS }, 3600],
		['sliding-window', { limit: 5, windowMs: HOUR_MS }, 3600],
	];
	const modes: RateLimitHeaders[] = ['always', '429-only', 'none'];

	describe.each(families)('%s', (family, limits, longestWaitSeconds) => {
		it.each(modes)('admits exactly 5, then 429; headers %s', async (mode) => {
			sandbox.setRateLimit({ family, ...limits });
			sandbox.setRateLimitHeaders(mode);
			await awayFromHourEdge();
			const responses = await sequence(7);
			expect(statuses(responses)).toEqual([200, 200, 200, 200, 200, 429, 429]);
			const [first, , , , last] = responses;
			const limited = responses[5];
			expect(limited.json).toEqual({
				message: 'Rate limit exceeded. Please wait and try again later.',
			});
			if (mode === 'always') {
				expect(first.headers['x-ratelimit-limit']).toBe('5');
				expect(first.headers['x-ratelimit-remaining']).toBe('4');
				expect(last.headers['x-ratelimit-remaining']).toBe('0');
				expect(Number(last.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(1);
			} else {
				for (const name of RATE_HEADERS) expect(first.headers[name]).toBeUndefined();
			}
			if (mode === 'none') {
				for (const name of [...RATE_HEADERS, 'retry-after'])
					expect(limited.headers[name]).toBeUndefined();
			} else {
				expect(limited.headers['x-ratelimit-limit']).toBe('5');
				expect(limited.headers['x-ratelimit-remaining']).toBe('0');
				const retryAfter = Number(limited.headers['retry-after']);
				expect(retryAfter).toBeGreaterThanOrEqual(
					family === 'fixed-window' ? 1 : longestWaitSeconds,
				);
				expect(retryAfter).toBeLessThanOrEqual(longestWaitSeconds);
				expect(limited.headers['x-ratelimit-reset']).toBe(limited.headers['retry-after']);
			}
		});
	});

	it('the daily quota applies to the window families too', async () => {
		sandbox.setRateLimit({ family: 'sliding-window', limit: 100, dailyQuota: 2 });
		const responses = await sequence(3);
		expect(statuses(responses)).toEqual([200, 200, 429]);
		expect(Number(responses[2].headers['retry-after'])).toBeGreaterThan(0);
	});

	it.each(['0', '-5', 'Thu, 01 Jan 1970 00:00:00 GMT', '3000000'])(
		'a Retry-After override of %s is sent raw on every 429, whatever the format and header mode',
		async (value) => {
			sandbox.setRateLimit({ ratePerSecond: 0.001, burst: 1 });
			sandbox.setRetryAfterOverride(value);
			sandbox.setRetryAfterFormat('none');
			sandbox.setRateLimitHeaders('none');
			const [ok, limited] = await sequence(2);
			expect(ok.status).toBe(200);
			expect(limited.status).toBe(429);
			expect(limited.headers['retry-after']).toBe(value);
			expect((await lookup(sandbox, '/v1/company/de/HRB99429', token)).headers['retry-after']).toBe(
				value,
			);
			sandbox.setRetryAfterOverride(undefined);
			expect((await sequence(1))[0].headers['retry-after']).toBeUndefined();
		},
	);

	it('resetAll restores the starting limits, headers and Retry-After', async () => {
		sandbox.setRateLimit({ family: 'fixed-window', limit: 1, windowMs: 60_000 });
		sandbox.setRateLimitHeaders('none');
		sandbox.setRetryAfterOverride('0');
		await sequence(2);
		sandbox.resetAll();
		const responses = await sequence(3);
		expect(statuses(responses)).toEqual([200, 200, 200]);
		expect(responses[0].headers['x-ratelimit-limit']).toBe('1000');
	});
});

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { engineFor, expectEachRowOnce, runRows } from '../../harness/fixtures';
import { expectRightOutputs, reliabilitySheet } from '../support/reliabilitySheet';

// Issue "Fill any registry's rate limit": every limiter family a registry may use, with every Retry-After
// format. The node must end with every row answered, one token, and 429s kept rare: a stuck pace or a
// retry storm fails here. (A file of its own: jest runs files side by side, and these 15 runs are the
// longest part of the reliability checks.)
const ROWS = 200;
/** de/HRB12345 once, and 180 distinct unknown ids. */
const LOOKUPS = 181;

describe('reliability under each limiter family', () => {
	let sandbox: Sandbox;
	beforeEach(async () => {
		sandbox = await startSandbox({ port: 0, faults: { latencyMs: 5, jitterMs: 10 } });
	});
	afterEach(async () => await sandbox.close());

	const families = [
		{
			name: 'token bucket, X-RateLimit-* on every answer',
			limits: { ratePerSecond: 150, burst: 20 },
			headers: 'always',
		},
		{
			name: 'token bucket, headers only on 429',
			limits: { ratePerSecond: 150, burst: 20 },
			headers: '429-only',
		},
		{ name: 'token bucket, bare 429s', limits: { ratePerSecond: 150, burst: 20 }, headers: 'none' },
		{
			name: 'fixed window 40 per 250 ms',
			limits: { family: 'fixed-window', limit: 40, windowMs: 250 },
			headers: 'always',
		},
		{
			name: 'sliding window 40 per 250 ms',
			limits: { family: 'sliding-window', limit: 40, windowMs: 250 },
			headers: '429-only',
		},
	] as const;
	describe.each(families)('$name', ({ limits, headers }) => {
		it.each(['seconds', 'http-date', 'none'] as const)(
			'Retry-After as %s: every row answered, few 429s, one token',
			async (format) => {
				sandbox.setRateLimit(limits);
				sandbox.setRetryAfterFormat(format);
				sandbox.setRateLimitHeaders(headers);
				const engine = engineFor(sandbox);
				const branches = await runRows(engine, reliabilitySheet(ROWS), {
					onError: 'continueErrorOutput',
				});
				expectEachRowOnce(branches, ROWS);
				expectRightOutputs(branches);
				expect(branches.errors).toHaveLength(0);
				expect(branches.registered).toHaveLength(ROWS / 10);
				expect(branches.notRegistered).toHaveLength(ROWS - ROWS / 10);
				// Each distinct lookup answered once. A retry storm would multiply the requests; pacing keeps
				// 429s to a fraction of the lookups.
				expect(sandbox.counters.lookupsByStatus[200]).toBe(LOOKUPS);
				expect(sandbox.counters.lookupsByStatus[429] ?? 0).toBeLessThan(LOOKUPS / 3);
				expect(sandbox.counters.tokenRequests).toBe(1);
			},
		);
	});
});

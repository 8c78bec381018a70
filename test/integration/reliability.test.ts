import type { IDataObject } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { engineFor, expectEachRowOnce, runRows, type Branches } from '../../harness/fixtures';

// A few hundred rows under each kind of trouble; every input row must come out exactly once, on the
// right output. Transient faults (500, 502, 503, 504, resets, timeouts) are in faults.test.ts.
const ROWS = 300;

/** Rows of distinct companies: every 10th is registered (gb/04417982 … are not: unknown ids). */
function sheet(rows = ROWS): IDataObject[] {
	return Array.from({ length: rows }, (_, index) =>
		index % 10 === 0
			? { country: 'de', companyId: 'HRB12345', row: index }
			: { country: 'gb', companyId: String(30_000_000 + index), row: index },
	);
}

/** Registered rows must be exactly the de/HRB12345 rows that did not fail. */
function expectRightOutputs(branches: Branches): void {
	for (const item of branches.registered)
		expect(item.json.officialName).toBe('Müller & Söhne Präzisionsteile GmbH');
	for (const item of branches.notRegistered) expect(item.json.isRegistered).toBe(false);
	for (const item of branches.errors) expect(typeof item.json.error).toBe('string');
}

describe('reliability on a few hundred rows', () => {
	let sandbox: Sandbox;
	beforeEach(async () => {
		sandbox = await startSandbox({ port: 0, faults: { latencyMs: 5, jitterMs: 10 } });
	});
	afterEach(async () => await sandbox.close());

	// Issue "Fill any registry's rate limit": every limiter family a registry may use. The node must end
	// with every row answered, one token, and 429s kept rare: a stuck pace or a retry storm fails here.
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
				const branches = await runRows(engine, sheet(), { onError: 'continueErrorOutput' });
				expectEachRowOnce(branches, ROWS);
				expectRightOutputs(branches);
				expect(branches.errors).toHaveLength(0);
				expect(branches.registered).toHaveLength(30);
				expect(branches.notRegistered).toHaveLength(270);
				// 271 distinct lookups. A retry storm would multiply the requests; pacing keeps 429s few.
				expect(sandbox.counters.lookupsByStatus[200]).toBe(271);
				expect(sandbox.counters.lookupsByStatus[429] ?? 0).toBeLessThan(100);
				expect(sandbox.counters.tokenRequests).toBe(1);
			},
		);
	});

	it('a fixed window that sends its budget and reset: the budget is spent whole and the reset awaited, so 429s stay few', async () => {
		sandbox.setRateLimit({ family: 'fixed-window', limit: 40, windowMs: 1000 });
		sandbox.setRateLimitHeaders('always');
		sandbox.setRetryAfterFormat('none');
		const engine = engineFor(sandbox);
		const started = Date.now();
		const branches = await runRows(engine, sheet(200), { onError: 'continueErrorOutput' });
		expectEachRowOnce(branches, 200);
		expect(branches.errors).toHaveLength(0);
		// 181 lookups at 40 per window: five windows at least. Probing each window into 429s cost 64 before;
		// now only requests that reach a window a little before its reset (jitter) meet one: a few per run.
		expect(sandbox.counters.lookupsByStatus[200]).toBe(181);
		expect(sandbox.counters.lookupsByStatus[429] ?? 0).toBeLessThanOrEqual(20);
		// Five windows mean four resets waited for: more than 3 s wherever in a window the run began (it may
		// begin at the end of one, so 4 s is not a bound).
		expect(Date.now() - started).toBeGreaterThan(3000);
	});

	it('a fixed window whose reset falls while its first budget is being spent is still found to be a window: 429s stay few', async () => {
		// The window's first reset comes while its first budget is spent, so the budget is seen to refill; before,
		// that made the window a bucket for the rest of the run, paced by a refill it never had: a 429 or more per window.
		sandbox.setRateLimit({ family: 'fixed-window', limit: 100, windowMs: 1000 });
		sandbox.setRateLimitHeaders('always');
		sandbox.setRetryAfterFormat('none');
		sandbox.setFaults({ latencyMs: 45, jitterMs: 10 });
		const engine = engineFor(sandbox);
		await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 850));
		const branches = await runRows(engine, sheet(800), { onError: 'continueErrorOutput' });
		expectEachRowOnce(branches, 800);
		expect(branches.errors).toHaveLength(0);
		// 721 lookups, eight windows: 45 429s before the change, 3 after.
		expect(sandbox.counters.lookupsByStatus[200]).toBe(721);
		expect(sandbox.counters.lookupsByStatus[429] ?? 0).toBeLessThanOrEqual(15);
	});

	it('a slow token bucket that sends its budget on every answer meets few 429s: answers that overtake each other, or a 429, start no burst', async () => {
		// 4 per second, bursts of 10: its reset says when one token is back, so it may be taken for a window.
		sandbox.setRateLimit({ ratePerSecond: 4, burst: 10 });
		sandbox.setRateLimitHeaders('always');
		sandbox.setRetryAfterFormat('seconds');
		sandbox.setFaults({ latencyMs: 45, jitterMs: 10 });
		const engine = engineFor(sandbox);
		const branches = await runRows(engine, sheet(40), { onError: 'continueErrorOutput' });
		expectEachRowOnce(branches, 40);
		expect(branches.errors).toHaveLength(0);
		expect(sandbox.counters.lookupsByStatus[200]).toBe(37);
		// 7 before the change (a burst after the first 429, and counts read out of order), 2 after.
		expect(sandbox.counters.lookupsByStatus[429] ?? 0).toBeLessThanOrEqual(4);
	});

	it('tokens revoked twice mid-run cost one token request each, and no row', async () => {
		const revokeAt = new Set([60, 180]);
		sandbox.onLookup(() => {
			const answered = sandbox.counters.lookupsByStatus[200] ?? 0;
			if (revokeAt.delete(answered)) sandbox.revokeAllTokens();
		});
		const engine = engineFor(sandbox);
		const branches = await runRows(engine, sheet(), { onError: 'continueErrorOutput' });
		expectEachRowOnce(branches, ROWS);
		expectRightOutputs(branches);
		expect(branches.errors).toHaveLength(0);
		expect(revokeAt.size).toBe(0);
		expect(sandbox.counters.tokensIssued).toBe(3);
		expect(engine.credentials.preAuthentications.filter((call) => call.expired)).toHaveLength(2);
		// Only requests already in flight at a revocation meet the 401 (at most the concurrency, 20).
		expect(sandbox.counters.lookupsByStatus[401]).toBeLessThanOrEqual(2 * 21);
	});

	it('malformed JSON on some rows fails those rows with a contract error', async () => {
		sandbox.setFaults({ shareMalformed: 0.05 });
		const engine = engineFor(sandbox);
		const branches = await runRows(engine, sheet(), { onError: 'continueErrorOutput' });
		expectEachRowOnce(branches, ROWS);
		expectRightOutputs(branches);
		expect(branches.errors.length).toBeGreaterThan(0);
		for (const item of branches.errors)
			expect(item.json.error).toContain('the response body is not a JSON object');
	});

	it('keeps input order on each output, with pairedItem pointing at the right row', async () => {
		sandbox.setFaults({ jitterMs: 40 });
		const engine = engineFor(sandbox);
		const branches = await runRows(engine, sheet());
		for (const output of [branches.registered, branches.notRegistered]) {
			const paired = output.map((item) => (item.pairedItem as { item: number }).item);
			expect(paired).toEqual([...paired].sort((a, b) => a - b));
		}
		for (const item of branches.notRegistered) {
			const row = (item.pairedItem as { item: number }).item;
			expect(item.json.lookup).toEqual({ countryCode: 'gb', companyId: String(30_000_000 + row) });
		}
	});

	it('honours Max Requests per Second', async () => {
		const engine = engineFor(sandbox);
		const rows = sheet(21);
		const started = Date.now();
		await runRows(engine, rows, { options: { maxRequestsPerSecond: 10 } });
		// 21 rows, 3 shared: 19 requests at 10 per second take at least 1.8 s.
		expect(sandbox.counters.lookups).toBe(19);
		expect(Date.now() - started).toBeGreaterThanOrEqual(1700);
		expect(sandbox.counters.lookupsByStatus[429]).toBeUndefined();
	});
});

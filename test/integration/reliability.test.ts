import { startSandbox, type Sandbox } from '../../sandbox/server';
import { engineFor, expectEachRowOnce, runRows } from '../../harness/fixtures';
import { expectRightOutputs, reliabilitySheet as sheet } from '../support/reliabilitySheet';

// A few hundred rows under each kind of trouble; every input row must come out exactly once, on the
// right output. Each limiter family is in reliability.families.test.ts; transient faults (500, 502, 503,
// 504, resets, timeouts) are in faults.test.ts.
const ROWS = 150;

describe('reliability on a few hundred rows', () => {
	let sandbox: Sandbox;
	beforeEach(async () => {
		sandbox = await startSandbox({ port: 0, faults: { latencyMs: 5, jitterMs: 10 } });
	});
	afterEach(async () => await sandbox.close());

	it('a fixed window that sends its budget and reset: the budget is spent whole and the reset awaited, so 429s stay few', async () => {
		sandbox.setRateLimit({ family: 'fixed-window', limit: 40, windowMs: 1000 });
		sandbox.setRateLimitHeaders('always');
		sandbox.setRetryAfterFormat('none');
		const engine = engineFor(sandbox);
		const branches = await runRows(engine, sheet(200), { onError: 'continueErrorOutput' });
		expectEachRowOnce(branches, 200);
		expect(branches.errors).toHaveLength(0);
		// 181 lookups at 40 per window: five windows at least, so four resets waited for (a node that did not
		// wait would meet a 429 for every request beyond a window's 40). Probing each window into 429s cost
		// 64 before; now only requests that reach a window a little before its reset (jitter) meet one.
		expect(sandbox.counters.lookupsByStatus[200]).toBe(181);
		expect(sandbox.counters.lookupsByStatus[429] ?? 0).toBeLessThanOrEqual(20);
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
		const revokeAt = new Set([40, 100]);
		sandbox.onLookup(() => {
			const answered = sandbox.counters.lookupsByStatus[200] ?? 0;
			if (revokeAt.delete(answered)) sandbox.revokeAllTokens();
		});
		const engine = engineFor(sandbox);
		const branches = await runRows(engine, sheet(ROWS), { onError: 'continueErrorOutput' });
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
		const branches = await runRows(engine, sheet(ROWS), { onError: 'continueErrorOutput' });
		expectEachRowOnce(branches, ROWS);
		expectRightOutputs(branches);
		expect(branches.errors.length).toBeGreaterThan(0);
		for (const item of branches.errors)
			expect(item.json.error).toContain('the response body is not a JSON object');
	});

	it('keeps input order on each output, with pairedItem pointing at the right row', async () => {
		sandbox.setFaults({ jitterMs: 40 });
		const engine = engineFor(sandbox);
		const branches = await runRows(engine, sheet(ROWS));
		for (const output of [branches.registered, branches.notRegistered]) {
			const paired = output.map((item) => (item.pairedItem as { item: number }).item);
			expect(paired).toEqual([...paired].sort((a, b) => a - b));
		}
		for (const item of branches.notRegistered) {
			const row = (item.pairedItem as { item: number }).item;
			expect(item.json.lookup).toEqual({ countryCode: 'gb', companyId: String(30_000_000 + row) });
		}
	});

	it('honours Max Requests per Second: no second holds more than that many arrivals', async () => {
		const arrivals: number[] = [];
		sandbox.onLookup(() => arrivals.push(Date.now()));
		const engine = engineFor(sandbox);
		await runRows(engine, sheet(21), { options: { maxRequestsPerSecond: 10 } });
		// 21 rows, 3 shared: 19 requests. At 10 per second, the 11th arrives a second or more after the
		// first, and so on for every 11 in a row (100 ms of slack: the server counts after its 5-15 ms latency).
		expect(sandbox.counters.lookups).toBe(19);
		const spans = arrivals.slice(10).map((arrival, index) => arrival - arrivals[index]);
		expect(Math.min(...spans)).toBeGreaterThanOrEqual(900);
		expect(sandbox.counters.lookupsByStatus[429]).toBeUndefined();
	});
});

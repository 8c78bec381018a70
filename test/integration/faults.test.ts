import type { IDataObject } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { engineFor, expectEachRowOnce, runRows } from '../../harness/fixtures';

// Issue "Hostile world", transient faults: lookups are retried per row (500, 502, 503, 504, resets,
// timeouts) instead of re-running the sheet, and a registry that is down stops the run quickly.
// 100 rows and a 10% share. The dice are rolled per request target (faultRepeats), from the seed and the
// company id alone, so which rows meet the fault is fixed, whatever the order: 13 of the first sheet's 100,
// 12 of the second's, 9 of the third's; "more than 5" cannot miss by chance.
const ROWS = 100;
/** The outage checks: the breaker's bounds (about 30 rows spend their own tries) need a longer sheet. */
const DOWN_ROWS = 200;
const sheet = (offset = 0, rows = ROWS): IDataObject[] =>
	Array.from({ length: rows }, (_, index) => ({
		country: 'gb',
		companyId: String(50_000_000 + offset + index),
	}));

/**
 * Requests that met the fault, by what the sandbox counted (dropped connections count under 0; a timed-out
 * request is answered, 200, only after the client gave up). Only the timeout case sets Request Timeout:
 * elsewhere a loaded machine's slow answer must not count as a fault. Its slow answers come long after
 * the timeout, so an answer that is merely late on a busy machine is not taken for the fault either.
 */
const FAULTS = [
	{ name: 'HTTP 500', faults: { share500: 0.1 }, counted: [500], options: {} },
	{ name: 'HTTP 502', faults: { share502: 0.1 }, counted: [502], options: {} },
	{ name: 'HTTP 503', faults: { share503: 0.1 }, counted: [503], options: {} },
	{ name: 'HTTP 504', faults: { share504: 0.1 }, counted: [504], options: {} },
	{ name: 'a reset connection', faults: { shareDrop: 0.1 }, counted: [0], options: {} },
	{
		name: 'a timeout',
		faults: { shareTimeout: 0.1, slowMs: 10_000 },
		counted: [],
		options: { timeout: 3 },
	},
] as const;

describe('transient faults', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, seed: 7 });
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.resetAll();
		sandbox.resetCounters();
		// Every request as it arrives (a timed-out one is counted only when answered, after the test).
		sandbox.lookupLog.length = 0;
	});

	describe.each(FAULTS)('$name on 10% of 100 rows', ({ faults, counted, options }) => {
		it('with retries (the default): every row answered, none failed', async () => {
			sandbox.setFaults({ ...faults, faultRepeats: 1 });
			const engine = engineFor(sandbox);
			const branches = await runRows(engine, sheet(), { onError: 'continueErrorOutput', options });
			expectEachRowOnce(branches, ROWS);
			expect(branches.errors).toHaveLength(0);
			expect(branches.notRegistered).toHaveLength(ROWS);
			for (const status of counted)
				expect(sandbox.counters.lookupsByStatus[status] ?? 0).toBeGreaterThan(5);
			// The fault fired (its rows were asked again), and each faulted row cost one more request, no more.
			expect(sandbox.lookupLog.length).toBeGreaterThan(ROWS + 5);
			expect(sandbox.lookupLog.length).toBeLessThanOrEqual(ROWS + 30);
		});

		it('with Max Attempts 1: exactly the rows that met the fault fail, each with its own error', async () => {
			sandbox.setFaults({ ...faults, faultRepeats: 1 });
			const engine = engineFor(sandbox);
			const branches = await runRows(engine, sheet(100_000), {
				onError: 'continueErrorOutput',
				options: { ...options, maxAttempts: 1 },
			});
			expectEachRowOnce(branches, ROWS);
			expect(branches.errors.length).toBeGreaterThan(5);
			expect(branches.errors.length + branches.notRegistered.length).toBe(ROWS);
			// Never a second request for a row; every answered row had its one. (A request sent on a kept-alive
			// connection the registry has just reset may fail before it arrives.)
			expect(sandbox.lookupLog.length).toBeLessThanOrEqual(ROWS);
			expect(sandbox.lookupLog.length).toBeGreaterThanOrEqual(branches.notRegistered.length);
		});
	});

	it('a fault that outlasts Max Attempts fails its row, saying how often it was tried', async () => {
		sandbox.setFaults({ share503: 0.1, faultRepeats: 3 });
		const engine = engineFor(sandbox);
		const branches = await runRows(engine, sheet(200_000), { onError: 'continueErrorOutput' });
		expectEachRowOnce(branches, ROWS);
		expect(branches.errors.length).toBeGreaterThan(5);
		for (const item of branches.errors)
			expect(item.json.error).toBe(
				'The registry is unavailable (HTTP 503 Service Unavailable) (tried 3 times)',
			);
	});

	// Both ways of being down at once, each on a sandbox of its own: the breaker's tolerance is 10 s of
	// real time, spent once for the two.
	it('a registry that is down (refusing connections, or 503 to all) is given up on: the rows not yet in flight fail by one message, and few requests are sent', async () => {
		const down = async (mode: 'refuse' | '503') => {
			const registry = await startSandbox({ port: 0, seed: 7 });
			try {
				const engine = engineFor(registry);
				await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }]); // a token is stored
				registry.resetCounters();
				registry.setRegistryDown(mode);
				const branches = await runRows(engine, sheet(300_000, DOWN_ROWS), {
					onError: 'continueErrorOutput',
				});
				return { mode, branches, baseUrl: registry.baseUrl, lookups: registry.counters.lookups };
			} finally {
				await registry.close();
			}
		};
		for (const { mode, branches, baseUrl, lookups } of await Promise.all([
			down('refuse'),
			down('503'),
		])) {
			expectEachRowOnce(branches, DOWN_ROWS);
			expect({ mode, errors: branches.errors.length }).toEqual({ mode, errors: DOWN_ROWS });
			const message = `The Company Registry at ${baseUrl} seems to be down; this row was not looked up`;
			const spentOwnTries = branches.errors.filter((item) => item.json.error !== message);
			// The breaker opens once 10 first tries failed (its smallest sample); until then at most those 10
			// and the 20 in flight (Max Concurrent Requests) have started, and only they may run out of their
			// own tries; every later row gets the outage's one message.
			const startedBeforeOpening = 10 + 20;
			expect(spentOwnTries.length).toBeLessThanOrEqual(startedBeforeOpening);
			for (const item of spentOwnTries)
				expect(String(item.json.error)).toMatch(/\(tried 3 times\)$/);
			// Those rows' three tries each, and the breaker's probes (10 s of cool-downs from 1 s doubling to
			// 4 s: at most 10): far fewer than the 200 rows.
			expect({ mode, lookups: lookups <= startedBeforeOpening * 3 + 10 }).toEqual({
				mode,
				lookups: true,
			});
		}
	});
});

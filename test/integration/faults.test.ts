import type { IDataObject } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { engineFor, expectEachRowOnce, runRows } from '../../harness/fixtures';
import { OUTAGE_TOLERANCE_MS } from '../../nodes/shared/transport/retryPolicy';

// Issue "Hostile world", transient faults: lookups are retried per row (500, 502, 503, 504, resets,
// timeouts) instead of re-running the sheet, and a registry that is down stops the run quickly.
const ROWS = 500;
const sheet = (offset = 0): IDataObject[] =>
	Array.from({ length: ROWS }, (_, index) => ({ country: 'gb', companyId: String(50_000_000 + offset + index) }));

/** Requests that met the fault, by what the sandbox counted (dropped connections count under 0). */
const FAULTS = [
	{ name: 'HTTP 500', faults: { share500: 0.05 }, counted: [500] },
	{ name: 'HTTP 502', faults: { share502: 0.05 }, counted: [502] },
	{ name: 'HTTP 503', faults: { share503: 0.05 }, counted: [503] },
	{ name: 'HTTP 504', faults: { share504: 0.05 }, counted: [504] },
	{ name: 'a reset connection', faults: { shareDrop: 0.05 }, counted: [0] },
	{ name: 'a timeout', faults: { shareTimeout: 0.05, slowMs: 1500 }, counted: [] },
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
	});

	describe.each(FAULTS)('$name on 5% of 500 rows', ({ faults, counted }) => {
		it('with retries (the default): every row answered, none failed', async () => {
			sandbox.setFaults({ ...faults, faultRepeats: 1 });
			const engine = engineFor(sandbox);
			const branches = await runRows(engine, sheet(), { onError: 'continueErrorOutput', options: { timeout: 1 } });
			expectEachRowOnce(branches, ROWS);
			expect(branches.errors).toHaveLength(0);
			expect(branches.notRegistered).toHaveLength(ROWS);
			const met = counted.reduce<number>((sum, status) => sum + (sandbox.counters.lookupsByStatus[status] ?? 0), 0);
			if (counted.length > 0) expect(met).toBeGreaterThan(5);
			// Each faulted row costs one more request, no more.
			expect(sandbox.counters.lookups).toBeLessThanOrEqual(ROWS + 50);
		});

		it('with Max Attempts 1: exactly the rows that met the fault fail, each with its own error', async () => {
			sandbox.setFaults({ ...faults, faultRepeats: 1 });
			const engine = engineFor(sandbox);
			const logged = sandbox.lookupLog.length;
			const branches = await runRows(engine, sheet(100_000), { onError: 'continueErrorOutput', options: { timeout: 1, maxAttempts: 1 } });
			expectEachRowOnce(branches, ROWS);
			expect(branches.errors.length).toBeGreaterThan(5);
			expect(branches.errors.length + branches.notRegistered.length).toBe(ROWS);
			// One request per row (counted as it arrives: a timed-out one is answered only later).
			expect(sandbox.lookupLog.length - logged).toBe(ROWS);
		});
	});

	it('a fault that outlasts Max Attempts fails its row, saying how often it was tried', async () => {
		sandbox.setFaults({ share503: 0.05, faultRepeats: 3 });
		const engine = engineFor(sandbox);
		const branches = await runRows(engine, sheet(200_000), { onError: 'continueErrorOutput' });
		expectEachRowOnce(branches, ROWS);
		expect(branches.errors.length).toBeGreaterThan(5);
		for (const item of branches.errors) expect(item.json.error).toBe('The registry is unavailable (HTTP 503 Service Unavailable) (tried 3 times)');
	});

	describe.each(['refuse', '503'] as const)('a registry that is down (%s)', (mode) => {
		it('ends soon after the outage tolerance, every row failed by the same message, fewer than 50 requests', async () => {
			const engine = engineFor(sandbox);
			await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }]); // a token is stored
			sandbox.resetCounters();
			sandbox.setRegistryDown(mode);
			const started = Date.now();
			const branches = await runRows(engine, sheet(300_000), { onError: 'continueErrorOutput' });
			const seconds = (Date.now() - started) / 1000;
			expectEachRowOnce(branches, ROWS);
			expect(branches.errors).toHaveLength(ROWS);
			const messages = new Set(branches.errors.map((item) => item.json.error));
			expect([...messages]).toEqual([`The Company Registry at ${sandbox.baseUrl} seems to be down; this row was not looked up`]);
			// The breaker holds the rows for OUTAGE_TOLERANCE_MS (10 s) of failed probes before it gives up (issue 21).
			expect(seconds).toBeLessThan(OUTAGE_TOLERANCE_MS / 1000 + 5);
			expect(sandbox.counters.lookups).toBeLessThan(50);
		});
	});
});

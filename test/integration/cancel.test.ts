import type { IDataObject } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { engineFor, lookupWorkflow, REGISTRY_NODE } from '../../harness/fixtures';

// Stopping an execution (n8n's Stop button, or a timeout) while the node waits: for a Retry-After, for a
// retry's back-off, or for the rate controller's pace. The node must end its waits at once and send
// nothing more. A run that kept waiting would outlast the test's limit; the requests are counted.
describe('an execution stopped while the node waits', () => {
	let sandbox: Sandbox;
	beforeAll(async () => (sandbox = await startSandbox({ port: 0 })));
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.resetAll();
		sandbox.resetCounters();
		sandbox.lookupLog.length = 0;
		sandbox.onLookup(undefined);
	});

	const rows: IDataObject[] = Array.from({ length: 20 }, (_, index) => ({
		country: 'gb',
		companyId: String(70_000_000 + index),
	}));

	/**
	 * Requests sent after the stop. Every row not answered by then says it was stopped, not that the run
	 * failed (nothing did), on the error output n8n keeps with the stopped execution.
	 */
	async function stopAfterFirstLookups(options: IDataObject, lookups: number): Promise<number> {
		const engine = engineFor(sandbox);
		let cancel: (() => void) | undefined;
		let sentWhenStopped = -1;
		let stop: NodeJS.Timeout | undefined;
		sandbox.onLookup((count) => {
			if (count < lookups || sentWhenStopped >= 0) return;
			// Stopped once the node has begun to wait: 300 ms without a request. (300 ms after a count, on a
			// loaded machine, requests sent before the stop were still arriving after it.)
			clearTimeout(stop);
			stop = setTimeout(() => {
				sentWhenStopped = sandbox.lookupLog.length;
				cancel?.();
			}, 300);
		});
		const result = await engine.execute(
			lookupWorkflow({ options, onError: 'continueErrorOutput' }),
			{
				rows,
				onStarted: (stop) => (cancel = stop),
			},
		);
		expect(sentWhenStopped).toBeGreaterThan(0);
		const [registered, notRegistered, errors] = result.outputOf(REGISTRY_NODE);
		expect(registered.length + notRegistered.length + errors.length).toBe(rows.length);
		expect(errors.length).toBeGreaterThan(0);
		for (const item of errors)
			expect(item.json.error).toBe('The lookup was cancelled: the execution was stopped');
		// Let anything still scheduled run: nothing more may reach the registry.
		await new Promise((resolve) => setTimeout(resolve, 500));
		return sandbox.lookupLog.length - sentWhenStopped;
	}

	it('while it waits out a Retry-After of 30 s: it stops, and sends nothing more', async () => {
		sandbox.setRetryAfterOverride('30');
		sandbox.setRateLimit({ ratePerSecond: 1, burst: 1 });
		expect(await stopAfterFirstLookups({ maxRateLimitWait: 120 }, 2)).toBe(0);
	}, 20_000);

	it('while it backs off before a retry: it stops, and sends nothing more', async () => {
		sandbox.setFaults({ share503: 1 });
		sandbox.setRetryAfterOverride(undefined);
		expect(await stopAfterFirstLookups({ maxAttempts: 10, maxConcurrency: 1 }, 3)).toBe(0);
	}, 20_000);

	it('while it keeps to Max Requests per Second: it stops, and sends nothing more', async () => {
		expect(await stopAfterFirstLookups({ maxRequestsPerSecond: 1 }, 1)).toBe(0);
	}, 20_000);
});

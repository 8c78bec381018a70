import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { engineFor, expectEachRowOnce, runRows } from '../../harness/fixtures';

// Where retrying stops before Max Attempts does (batchRunner's retryDelay): the execution's retry budget,
// and a 503 whose Retry-After asks for more than Max Rate-Limit Wait. Both are told by counting requests.
describe('limits on retrying', () => {
	let sandbox: Sandbox;
	beforeAll(async () => (sandbox = await startSandbox({ port: 0, seed: 11 })));
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.resetAll();
		sandbox.resetCounters();
		sandbox.lookupLog.length = 0;
	});

	it('rows that keep failing share one retry budget: far fewer retries than Max Attempts allows, and every row still answers', async () => {
		const rows: IDataObject[] = Array.from({ length: 400 }, (_, index) => ({
			country: 'gb',
			companyId: String(60_000_000 + index),
		}));
		// About 30% of the rows answer 500 to every request; the others answer at once. Too few failures for
		// the circuit breaker (it opens on most requests failing): only the budget can stop the retries.
		sandbox.setFaults({ share500: 0.3, faultRepeats: 1_000 });
		const engine = engineFor(sandbox);
		const branches = await runRows(engine, rows, {
			onError: 'continueErrorOutput',
			options: { maxAttempts: 3 },
		});
		expectEachRowOnce(branches, rows.length);
		const failing = branches.errors.length;
		expect(failing).toBeGreaterThan(80);
		expect(branches.notRegistered).toHaveLength(rows.length - failing);
		for (const item of branches.errors)
			expect(item.json.error).toMatch(
				/^The registry could not process the lookup \(HTTP 500 Internal Server Error\)/,
			);
		const retries = sandbox.lookupLog.length - rows.length;
		// Max Attempts 3 would try each failing row twice more; the budget stops well before.
		expect(retries).toBeGreaterThan(0);
		expect(retries).toBeLessThan(2 * failing);
		// Rows tried once only (the budget was spent) say nothing of tries.
		const messages = new Set(branches.errors.map((item) => String(item.json.error)));
		expect(messages).toContain(
			'The registry could not process the lookup (HTTP 500 Internal Server Error)',
		);
	});

	describe('a 503 whose Retry-After is longer than Max Rate-Limit Wait', () => {
		let registry: Server;
		let url: string;
		const lookups: string[] = [];
		beforeAll(async () => {
			// A registry that is down for maintenance for two minutes, and says so.
			registry = createServer((request, response) => {
				request.resume();
				if (request.url === '/oauth/token') {
					response.writeHead(200, { 'content-type': 'application/json' });
					response.end(
						JSON.stringify({
							access_token: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ0ZXN0In0.',
							token_type: 'Bearer',
							expires_in: 3600,
						}),
					);
					return;
				}
				lookups.push(request.url ?? '');
				response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '120' });
				response.end(JSON.stringify({ message: 'Down for maintenance' }));
			});
			await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', () => resolve()));
			url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
		});
		afterAll(async () => {
			registry.closeAllConnections();
			await new Promise<void>((resolve) => registry.close(() => resolve()));
		});

		it('fails the row after its first request instead of waiting or retrying early', async () => {
			lookups.length = 0;
			const engine = engineFor(sandbox, { baseUrl: url, authUrl: url });
			const branches = await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }], {
				onError: 'continueErrorOutput',
				options: { maxRateLimitWait: 5 },
			});
			expect(branches.errors).toHaveLength(1);
			expect(branches.errors[0].json.error).toBe(
				'The registry is unavailable (HTTP 503 Service Unavailable)',
			);
			expect(lookups).toHaveLength(1);
		}, 30_000);
	});
});

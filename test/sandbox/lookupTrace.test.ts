import { startSandbox, type Sandbox } from '../../sandbox/server';
import { lookup, tokenFor } from './client';

// Issue 20 item 5: the sandbox tells a real run request by request (test:n8n's scale trace), only when asked.
describe('sandbox lookup trace', () => {
	let sandbox: Sandbox;
	let token: string;
	beforeAll(async () => {
		sandbox = await startSandbox({
			port: 0,
			rateLimit: { family: 'fixed-window', limit: 2, windowMs: 3_600_000 },
			rateLimitHeaders: 'none',
			retryAfterFormat: 'none',
		});
		token = await tokenFor(sandbox);
	});
	afterAll(async () => await sandbox.close());

	it('records nothing until asked, then each lookup: arrival, answer, status; no token request', async () => {
		await lookup(sandbox, '/v1/company/de/HRB12345', token);
		expect(sandbox.lookupTrace).toEqual([]);
		sandbox.traceLookups(true);
		const before = performance.timeOrigin + performance.now();
		for (let index = 0; index < 2; index++) await lookup(sandbox, '/v1/company/de/HRB12345', token);
		await tokenFor(sandbox);
		sandbox.traceLookups(false);
		await lookup(sandbox, '/v1/company/de/HRB12345', token);
		const after = performance.timeOrigin + performance.now();
		expect(sandbox.lookupTrace.map((entry) => entry.status)).toEqual([200, 429]);
		for (const entry of sandbox.lookupTrace) {
			expect(entry.arrivedAt).toBeGreaterThanOrEqual(before);
			expect(entry.answeredAt).toBeGreaterThanOrEqual(entry.arrivedAt);
			expect(entry.answeredAt).toBeLessThanOrEqual(after);
		}
		expect(sandbox.lookupTrace[0].arrivedAt).toBeLessThan(sandbox.lookupTrace[1].arrivedAt);
	});
});

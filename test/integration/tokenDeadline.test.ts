import { CompanyRegistryApi } from '../../credentials/CompanyRegistryApi.credentials';
import { testCredential } from '../../harness/credentialsTester';
import { CREDENTIAL_ID, expectEachRowOnce, runRows } from '../../harness/fixtures';
import { scriptedRegistry, type ScriptedRegistry } from '../support/scriptedRegistry';
import { scriptedEngine } from '../support/scriptedEngine';

// Issue 21 (red-team follow-up): a token endpoint that answers 200 and then trickles its body was never
// timed out nor aborted: rows failed as "the Company Registry seems to be down" (the stalled host was the
// Auth URL), and every token request's socket stayed open after the execution ended.

const rows = (count: number) =>
	Array.from({ length: count }, (_, index) => ({
		country: 'gb',
		companyId: String(80_000_000 + index),
	}));

describe('a token endpoint that trickles its answer', () => {
	let registry: ScriptedRegistry;
	/** Body bytes each token request got to write before the node hung up. */
	let trickled: number[];
	const byteEveryMs = 200;
	beforeEach(async () => {
		registry = await scriptedRegistry();
		trickled = [];
		registry.token = (_request, response) => {
			const exchange = trickled.push(0) - 1;
			response.writeHead(200, { 'content-type': 'application/json', 'content-length': 400 });
			response.flushHeaders();
			const timer = setInterval(() => {
				if (response.destroyed) return clearInterval(timer);
				response.write(' ');
				trickled[exchange] += 1;
			}, byteEveryMs);
			response.on('close', () => clearInterval(timer));
		};
	});
	afterEach(async () => await registry.close());

	it('20 rows, Request Timeout 1 s: every row fails naming the Auth URL and the deadline, and no socket outlives the execution', async () => {
		const engine = scriptedEngine(registry);
		const branches = await runRows(engine, rows(20), {
			onError: 'continueErrorOutput',
			options: { timeout: 1 },
		});
		expectEachRowOnce(branches, 20);
		expect(branches.errors).toHaveLength(20);
		for (const item of branches.errors) {
			expect(item.json.error).toBe(
				`The Auth URL ${registry.url}/oauth/token did not finish its token answer within 1 s (the Request Timeout); this row was not looked up`,
			);
		}
		expect(registry.lookups).toBe(0);
		// The first request goes alone while no token is stored, and a stalled exchange ends the sheet:
		// one exchange for 20 rows, not one per row and retry (24 before).
		expect(registry.tokenRequests).toBe(1);
		// Ended with the execution: nothing left open to trickle on.
		expect(await registry.socketsClosed(1000)).toBe(0);
		const afterwards = [...trickled];
		// Bounded by counting: each exchange was hung up after a handful of 200 ms bytes (1 s deadline),
		// and none wrote on once the execution had ended.
		expect(trickled.length).toBeGreaterThan(0);
		for (const bytes of trickled) expect(bytes).toBeLessThan(25);
		await registry.socketsClosed(600);
		expect(trickled).toEqual(afterwards);
	});

	describe("the credential's Test, with the token exchange's own deadline (30 s in n8n) shortened to 3 s", () => {
		const deadlineMs = CompanyRegistryApi.tokenTimeoutMs;
		beforeAll(() => (CompanyRegistryApi.tokenTimeoutMs = 3000));
		afterAll(() => (CompanyRegistryApi.tokenTimeoutMs = deadlineMs));

		it('against a byte every 200 ms fails at that deadline, naming the Auth URL', async () => {
			const engine = scriptedEngine(registry);
			await expect(testCredential(engine, CREDENTIAL_ID)).resolves.toEqual({
				status: 'Error',
				message: expect.stringContaining(
					`The Auth URL ${registry.url}/oauth/token did not finish its token answer within 3 s.`,
				) as unknown as string,
			});
			expect(registry.lookups).toBe(0);
			expect(await registry.socketsClosed(1000)).toBe(0);
			// One exchange, hung up at its deadline: about 15 bytes at one per 200 ms, not an endless read
			// (the answer declares 400).
			expect(trickled).toHaveLength(1);
			expect(trickled[0]).toBeLessThan(25);
		});
	});
});

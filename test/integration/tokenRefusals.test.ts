import { CREDENTIAL_ID, engineFor, expectEachRowOnce, runRows } from '../../harness/fixtures';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	SCRIPTED_TOKEN,
	type ScriptedRegistry,
} from '../support/scriptedRegistry';
import { scriptedEngine } from '../support/scriptedEngine';

// Issue 21 (6): a token too large for the registry's request headers (431, or 413) was never renewed,
// so the credential stayed broken until edited; and a token refused on a first run was reported as
// refused "also after fetching a new one" though only one had been fetched.

const rows = (count: number) =>
	Array.from({ length: count }, (_, index) => ({
		country: 'gb',
		companyId: String(70_000_000 + index),
	}));
/** A JWT-shaped token of about `kilobytes` KB. */
const bigToken = (kilobytes: number) =>
	`${SCRIPTED_TOKEN.split('.').slice(0, 2).join('.')}.${'s'.repeat(kilobytes * 1024)}`;

describe('a token too large for the request headers', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it('on a first run (Node answers 431 itself): one token, every row fails naming the size, not "also after a new one"', async () => {
		registry.token = (_request, response) =>
			json(response, 200, { access_token: bigToken(30), expires_in: 3600 });
		const engine = scriptedEngine(registry);
		const branches = await runRows(engine, rows(5), { onError: 'continueErrorOutput' });
		expectEachRowOnce(branches, 5);
		expect(branches.errors).toHaveLength(5);
		for (const item of branches.errors) {
			expect(item.json.error).toBe(
				'The registry refused the request as too large (HTTP 431): the access token the token endpoint just issued is 30 KB',
			);
		}
		expect(registry.tokenRequests).toBe(1);
	});

	it.each([431, 413])(
		'with a token stored from an earlier run (%s): renewed once, then every row fails naming the new size',
		async (status) => {
			const engine = scriptedEngine(registry);
			await runRows(engine, rows(1));
			expect(engine.credentials.stored(CREDENTIAL_ID)?.accessToken).toBe(SCRIPTED_TOKEN);
			registry.tokenRequests = 0;
			registry.lookups = 0;
			// A gateway that refuses every request's headers from now on; the token endpoint issues 12 KB tokens.
			registry.lookup = (_request, response) => json(response, status, { message: 'Too large' });
			registry.token = (_request, response) =>
				json(response, 200, { access_token: bigToken(12), expires_in: 3600 });
			const branches = await runRows(engine, rows(6), { onError: 'continueErrorOutput' });
			expectEachRowOnce(branches, 6);
			for (const item of branches.errors) {
				expect(item.json.error).toBe(
					`The registry refused the request as too large (HTTP ${status}), also with a new access token: the token is 12 KB`,
				);
			}
			expect(registry.tokenRequests).toBe(1);
			// One request per row; the renewing row's goes again with the old token, then n8n repeats it with the new one.
			expect(registry.lookups).toBeLessThanOrEqual(6 + 2);
		},
	);

	it('a renewal that brings a token the registry takes: every row is answered', async () => {
		const engine = scriptedEngine(registry);
		await runRows(engine, rows(1));
		registry.tokenRequests = 0;
		// The stored token has become too large for a proxy; the new one is small again.
		registry.lookup = (request, response) =>
			request.headers.authorization === `Bearer ${SCRIPTED_TOKEN}`
				? json(response, 431, {})
				: json(response, 200, GOOD_RECORD);
		registry.token = (_request, response) =>
			json(response, 200, { access_token: `${SCRIPTED_TOKEN}x`, expires_in: 3600 });
		const branches = await runRows(engine, rows(4), { onError: 'continueErrorOutput' });
		expect(branches.registered).toHaveLength(4);
		expect(registry.tokenRequests).toBe(1);
	});
});

describe('a token refused (401) on a first run', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => await sandbox.close());

	it('is not reported as refused "also after fetching a new one": only one was fetched', async () => {
		sandbox.setPermanent401(true);
		const engine = engineFor(sandbox);
		const branches = await runRows(engine, rows(3), { onError: 'continueErrorOutput' });
		for (const item of branches.errors)
			expect(item.json.error).toBe(
				'The registry rejected the access token the token endpoint had just issued (HTTP 401)',
			);
		expect(sandbox.counters.tokenRequests).toBe(1);
	});
});

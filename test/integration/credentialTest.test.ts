import { startSandbox, type Sandbox } from '../../sandbox/server';
import { testCredential } from '../../harness/credentialsTester';
import { elsewhereServer } from '../../harness/elsewhereServer';
import { CREDENTIAL_ID, engineFor } from '../../harness/fixtures';

// The credential's "Test" button, run as n8n 2.41.1's CredentialsTester runs it (RoutingNode in
// 'internal' mode through httpRequestWithAuthentication): the Bearer token goes to the Base URL only.

describe("the credential's Test, as n8n's CredentialsTester runs it", () => {
	let sandbox: Sandbox;
	let elsewhere: Awaited<ReturnType<typeof elsewhereServer>>;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => await sandbox.close());
	beforeEach(async () => {
		sandbox.resetAll();
		sandbox.resetCounters();
		elsewhere = await elsewhereServer();
	});
	afterEach(async () => await elsewhere.close());

	it('passes against the registry: one token exchange and one lookup', async () => {
		const engine = engineFor(sandbox);
		await expect(testCredential(engine, CREDENTIAL_ID)).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect(sandbox.counters.tokensIssued).toBe(1);
		expect(sandbox.counters.lookups).toBe(1);
	});

	it.each([301, 302, 307, 308] as const)(
		'a Base URL that redirects (%s) to another origin fails the Test, and that origin never sees the token',
		async (status) => {
			sandbox.setRedirect({ route: 'lookup', status, location: `${elsewhere.url}{path}` });
			const engine = engineFor(sandbox);
			const result = await testCredential(engine, CREDENTIAL_ID);
			expect(elsewhere.received).toEqual([]);
			expect(result.status).toBe('Error');
			expect(result.message).toBe(
				`The registry answered with a redirect (HTTP ${status}), which the Test does not follow: the access token is only ever sent to the Base URL. If the registry has moved, set the Base URL to its new address.`,
			);
		},
	);

	it('a token endpoint that redirects fails the Test without sending the secret on', async () => {
		sandbox.setRedirect({ route: 'token', status: 307, location: `${elsewhere.url}/oauth/token` });
		const result = await testCredential(engineFor(sandbox), CREDENTIAL_ID);
		expect(elsewhere.received).toEqual([]);
		expect(result).toMatchObject({ status: 'Error' });
		expect(result.message).toContain('answered with a redirect (HTTP 307), which is not followed');
	});
});

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { testCredential } from '../../harness/credentialsTester';
import { CREDENTIAL_ID, engineFor } from '../../harness/fixtures';

// The credential's "Test" button, run as n8n 2.41.1's CredentialsTester runs it (RoutingNode in
// 'internal' mode through httpRequestWithAuthentication): the Bearer token goes to the Base URL only.

/** A host at another origin that records every request and answers 200 with a record. */
async function otherOrigin(): Promise<{
	url: string;
	received: Array<IncomingMessage['headers']>;
	close(): Promise<void>;
}> {
	const received: Array<IncomingMessage['headers']> = [];
	const server: Server = createServer((request, response) => {
		received.push(request.headers);
		response.writeHead(200, { 'content-type': 'application/json' });
		response.end(
			JSON.stringify({
				isRegistered: true,
				officialName: 'Elsewhere GmbH',
				status: 'Active',
				registrationDate: '2020-01-01',
			}),
		);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		received,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

describe("the credential's Test, as n8n's CredentialsTester runs it", () => {
	let sandbox: Sandbox;
	let elsewhere: Awaited<ReturnType<typeof otherOrigin>>;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => await sandbox.close());
	beforeEach(async () => {
		sandbox.resetAll();
		sandbox.resetCounters();
		elsewhere = await otherOrigin();
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

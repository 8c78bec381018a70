import { CompanyRegistryApi } from '../../credentials/CompanyRegistryApi.credentials';
import { audienceFor } from '../../nodes/shared/transport/accessToken';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { REGISTRY_NODE, engineFor, noOpWorkflow, runRows } from '../../harness/fixtures';
import { TestNodeTypes } from '../../harness/nodeTypes';

// Sections 2.3, 4.1 and 5 from the credential's side.
describe('Company Registry API credential', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => sandbox.resetCounters());

	describe('audience (2.3: {base_url}/v1/)', () => {
		it.each([
			['https://api.verifiet.com', 'https://api.verifiet.com/v1/'],
			['https://api.verifiet.com/', 'https://api.verifiet.com/v1/'],
			['https://api.verifiet.com//', 'https://api.verifiet.com/v1/'],
			[' https://api.verifiet.com ', 'https://api.verifiet.com/v1/'],
		])('derives %p → %p when Audience is empty', (baseUrl, audience) => {
			expect(audienceFor({ baseUrl, audience: '' })).toBe(audience);
		});

		it('uses the Audience the user set', () => {
			expect(
				audienceFor({ baseUrl: 'https://api.verifiet.com', audience: 'https://other.example/v1/' }),
			).toBe('https://other.example/v1/');
		});
	});

	it('declares the fields n8n needs: a password secret and a hidden, expirable, password-typed token', () => {
		const credential = new CompanyRegistryApi();
		const byName = Object.fromEntries(
			credential.properties.map((property) => [property.name, property]),
		);
		expect(byName.clientSecret.typeOptions?.password).toBe(true);
		expect(byName.accessToken).toMatchObject({
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
		});
		expect(byName.baseUrl.default).toBe('https://api.verifiet.com');
		expect(byName.authUrl.default).toBe('https://login.verifiet.com');
	});

	it('its test request is a real lookup on {Base URL}/v1/, whatever slashes the Base URL ends with', () => {
		const credential = new CompanyRegistryApi();
		const { node, workflow } = noOpWorkflow(new TestNodeTypes());
		const baseURL = workflow.expression.getSimpleParameterValue(
			node,
			credential.test.request.baseURL as string,
			'internal',
			{ $credentials: { baseUrl: 'https://api.verifiet.com//' } },
			undefined,
			'',
		);
		expect(`${baseURL}${credential.test.request.url}`).toBe(
			'https://api.verifiet.com/v1/company/de/HRB12345',
		);
	});

	it('4.1: exchanges the client id and secret for a token with a JSON body, and n8n stores it', async () => {
		const engine = engineFor(sandbox);
		const { registered } = await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }]);
		expect(registered).toHaveLength(1);
		expect(sandbox.counters.tokensIssued).toBe(1);
		const stored = engine.credentials.stored('company-registry-sandbox');
		expect(String(stored?.accessToken).split('.')).toHaveLength(3);
	});

	const failureOf = async (credential: Record<string, string>, rows = 3) => {
		const engine = engineFor(sandbox, credential);
		const input = Array.from({ length: rows }, () => ({ country: 'de', companyId: 'HRB12345' }));
		const continued = await runRows(engine, input, { onError: 'continueErrorOutput' });
		const stopped = await runRows(engine, input);
		return { continued, stopped, message: String(stopped.result.errorOf(REGISTRY_NODE)?.message) };
	};

	it('a wrong client secret gets its own message naming the Auth URL, never the secret', async () => {
		const { continued, message } = await failureOf({ clientSecret: 'not-the-secret' });
		expect(message).toBe(
			`The token endpoint ${sandbox.authUrl}/oauth/token rejected the Client ID or Client Secret (HTTP 401 invalid_client). Check both values, as issued by the registry operator.`,
		);
		expect(continued.errors).toHaveLength(3);
		expect(continued.errors.every((item) => item.json.error === message)).toBe(true);
		expect(JSON.stringify([continued.result.run, message])).not.toContain('not-the-secret');
		// One refused exchange per execution: the remaining rows are not sent again.
		expect(sandbox.counters.tokenRequests).toBe(2);
		expect(sandbox.counters.lookups).toBe(0);
	});

	it('an unknown client id gets the same message (the server does not say which one was wrong)', async () => {
		const { message } = await failureOf({ clientId: 'nobody' }, 1);
		expect(message).toContain('rejected the Client ID or Client Secret');
	});

	it('a wrong audience gets its own message', async () => {
		const { message } = await failureOf({ audience: 'https://api.example.test/v1/' }, 1);
		expect(message).toBe(
			`The token endpoint ${sandbox.authUrl}/oauth/token refused the audience 'https://api.example.test/v1/' (HTTP 403 access_denied). The audience must be the API address with its version, e.g. https://api.verifiet.com/v1/; leave Audience empty to use {Base URL}/v1/.`,
		);
	});

	it('an unreachable Auth URL gets its own message', async () => {
		const { message } = await failureOf({ authUrl: 'http://127.0.0.1:9' }, 1);
		expect(message).toBe(
			"Could not reach the Auth URL http://127.0.0.1:9/oauth/token to get an access token. Check the credential's Auth URL and that n8n can reach that host.",
		);
	});

	it('an Auth URL that is not a token endpoint reports the status it got', async () => {
		const { message } = await failureOf({ authUrl: `${sandbox.baseUrl}/v1/` }, 1);
		expect(message).toBe(
			`The token request to ${sandbox.baseUrl}/v1/oauth/token failed with HTTP 404 NotFoundException`,
		);
	});
});

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// n8n-core's request helpers alone, the factory ExecuteContext takes `helpers.httpRequest` from: the
// whole of n8n-core and the harness's engine cost each mutant of the mutation run seconds to load.
import { getRequestHelperFunctions } from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';
import type {
	ICredentialDataDecryptedObject,
	IHttpRequestHelper,
	INodeType,
	INodeTypes,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { CompanyRegistryApi } from '../../credentials/CompanyRegistryApi.credentials';
import { tokenIssuedFor } from '../../nodes/shared/transport/accessToken';
import { noOpWorkflow } from '../../harness/noOpWorkflow';

// The credential on its own, as n8n calls it: preAuthentication with n8n-core's real httpRequest helper
// against a token endpoint on loopback, authenticate on a request, the Test's redirect rules. Each case
// takes milliseconds (the engine runs of credentials.test.ts take seconds), so the mutation run can
// afford every one of them per mutant.

interface Received {
	method?: string;
	url?: string;
	headers: IncomingMessage['headers'];
	body: string;
}

type Answer = (response: ServerResponse) => void;

/** A token endpoint that records each request and answers with `answer`. */
async function tokenEndpoint() {
	const received: Received[] = [];
	let answer: Answer = (response) => send(response, 200, { access_token: 'issued-token' });
	const server: Server = createServer((request, response) => {
		let body = '';
		request.setEncoding('utf8');
		request.on('data', (chunk: string) => (body += chunk));
		request.on('end', () => {
			received.push({ method: request.method, url: request.url, headers: request.headers, body });
			answer(response);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		received,
		answerWith: (next: Answer) => (answer = next),
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

function send(response: ServerResponse, status: number, body: unknown, headers = {}): void {
	const payload = typeof body === 'string' ? body : JSON.stringify(body);
	response.writeHead(status, {
		'content-type': 'application/json',
		'content-length': Buffer.byteLength(payload),
		...headers,
	});
	response.end(payload);
}

/** The No Op node's type, as far as a workflow holding it needs one (no parameters). */
const noOpTypes: INodeTypes = {
	getByName: () => noOpType,
	getByNameAndVersion: () => noOpType,
	getKnownTypes: () => ({}),
};
const noOpType = {
	description: { displayName: 'No Op', name: 'noOp', properties: [], version: 1 },
} as unknown as INodeType;

/**
 * What n8n hands preAuthentication: `this.helpers.httpRequest`, n8n-core's own (ExecuteContext's
 * helpers are this factory's; its httpRequest reads nothing of the execution's data but an eval mock
 * and tracing, which a plain n8n has not).
 */
function requestHelper(): IHttpRequestHelper {
	const { node, workflow } = noOpWorkflow(noOpTypes);
	const { httpRequest } = getRequestHelperFunctions(
		workflow,
		node,
		{} as IWorkflowExecuteAdditionalData,
	);
	return { helpers: { httpRequest } };
}

const SECRET = 'the-client-secret-4711';
const credential = new CompanyRegistryApi();

describe('the token exchange (preAuthentication) against a token endpoint', () => {
	let endpoint: Awaited<ReturnType<typeof tokenEndpoint>>;
	let helper: IHttpRequestHelper;
	beforeAll(() => (helper = requestHelper()));
	beforeEach(async () => (endpoint = await tokenEndpoint()));
	afterEach(async () => await endpoint.close());

	const credentials = (changes: ICredentialDataDecryptedObject = {}) => ({
		clientId: 'the-client',
		clientSecret: SECRET,
		baseUrl: 'https://api.example.test',
		authUrl: endpoint.url,
		audience: '',
		...changes,
	});
	const exchange = async (changes: ICredentialDataDecryptedObject = {}) =>
		await credential.preAuthentication.call(helper, credentials(changes));
	const failure = async (changes: ICredentialDataDecryptedObject = {}) => {
		const error = await exchange(changes).then(
			() => undefined,
			(thrown: unknown) => thrown as Error,
		);
		expect(error).toBeInstanceOf(Error);
		expect(JSON.stringify({ message: error?.message, error })).not.toContain(SECRET);
		return String(error?.message);
	};
	const tokenUrl = () => `${endpoint.url}/oauth/token`;

	it('posts the client id, secret, derived audience and grant type as JSON to {Auth URL}/oauth/token, and returns the token', async () => {
		// With the token, what it was asked for (accessToken.ts judges it; n8n stores both).
		await expect(exchange({ authUrl: ` ${endpoint.url}// ` })).resolves.toEqual({
			accessToken: 'issued-token',
			tokenIssuedFor: tokenIssuedFor(credentials()),
		});
		expect(endpoint.received).toHaveLength(1);
		const [request] = endpoint.received;
		expect(request.method).toBe('POST');
		expect(request.url).toBe('/oauth/token');
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(JSON.parse(request.body)).toEqual({
			client_id: 'the-client',
			client_secret: SECRET,
			audience: 'https://api.example.test/v1/',
			grant_type: 'client_credentials',
		});
	});

	it('leaves no timer behind once the token came: the deadline ends with the exchange', async () => {
		const timers = () =>
			process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
		// A first exchange sets up what stays for every request (n8n-core's agents and their timers).
		await exchange();
		const before = timers();
		await expect(exchange()).resolves.toMatchObject({ accessToken: 'issued-token' });
		// No more than before: a deadline left running adds one; the first exchange's socket may since
		// have let one of its own go (seen on the loaded machine: 3 before, 2 after).
		expect(timers()).toBeLessThanOrEqual(before);
	});

	it('derives the audience where the credential has no Audience field (saved by an older version)', async () => {
		const { audience: _none, ...withoutAudience } = credentials();
		await credential.preAuthentication.call(helper, withoutAudience);
		expect(JSON.parse(endpoint.received[0].body)).toMatchObject({
			audience: 'https://api.example.test/v1/',
		});
	});

	it('sends the Audience the user set', async () => {
		await exchange({ audience: ' https://other.example/v1/ ' });
		expect(JSON.parse(endpoint.received[0].body)).toMatchObject({
			audience: 'https://other.example/v1/',
		});
	});

	it('an answer without an access_token, or with an empty one, fails naming the endpoint', async () => {
		const message = `The token endpoint ${tokenUrl()} answered without an access_token`;
		endpoint.answerWith((response) => send(response, 200, { token: 'elsewhere' }));
		expect(await failure()).toBe(message);
		endpoint.answerWith((response) => send(response, 200, { access_token: '' }));
		expect(await failure()).toBe(message);
	});

	it('reads only access_token: other fields in other types do not matter', async () => {
		endpoint.answerWith((response) =>
			send(response, 201, { access_token: 'typed', expires_in: '3600', scope: null }),
		);
		await expect(exchange()).resolves.toMatchObject({ accessToken: 'typed' });
	});

	it.each([300, 301, 302, 303, 307, 308, 399])(
		'a redirect (%s) is not followed and says why',
		async (status) => {
			endpoint.answerWith((response) =>
				send(response, status, { access_token: 'from-a-redirect' }, { location: '/elsewhere' }),
			);
			expect(await failure()).toBe(
				`The token endpoint ${tokenUrl()} answered with a redirect (HTTP ${status}), which is not followed: the client secret is only ever sent to the Auth URL. Set the Auth URL to the address that issues tokens.`,
			);
			expect(endpoint.received).toHaveLength(1);
		},
	);

	it.each([
		[401, { error: 'invalid_client' }, ' invalid_client'],
		[400, { error: 'invalid_client' }, ' invalid_client'],
		[400, { error: 'unauthorized_client' }, ' unauthorized_client'],
		[401, {}, ''],
		[401, 'Unauthorized', ''],
	])('HTTP %s with %p: the Client ID or Secret was rejected', async (status, body, shownCode) => {
		endpoint.answerWith((response) => send(response, status, body));
		expect(await failure()).toBe(
			`The token endpoint ${tokenUrl()} rejected the Client ID or Client Secret (HTTP ${status}${shownCode}). Check both values, as issued by the registry operator.`,
		);
	});

	it.each([
		[403, { error: 'access_denied' }, ' access_denied'],
		[400, { error: 'access_denied' }, ' access_denied'],
		[400, { error: 'invalid_target' }, ' invalid_target'],
		[400, { error: 'invalid_audience' }, ' invalid_audience'],
		[403, {}, ''],
	])('HTTP %s with %p: the audience was refused', async (status, body, shownCode) => {
		endpoint.answerWith((response) => send(response, status, body));
		expect(await failure({ audience: 'https://wrong.example/v1/' })).toBe(
			`The token endpoint ${tokenUrl()} refused the audience 'https://wrong.example/v1/' (HTTP ${status}${shownCode}). The audience must be the API address with its version, e.g. https://api.verifiet.com/v1/; leave Audience empty to use {Base URL}/v1/.`,
		);
	});

	it.each([
		[
			400,
			{ error: 'invalid_grant', error_description: 'Grant expired' },
			' invalid_grant: Grant expired',
		],
		[400, { error: 'invalid_grant' }, ' invalid_grant'],
		[401, { error: 'invalid_grant' }, ' invalid_grant'],
		[500, 'Internal error', ''],
		[500, { error_description: 'no error code' }, ''],
		[400, '', ''],
	])('HTTP %s with %p: the status and what the server said', async (status, body, shown) => {
		endpoint.answerWith((response) => send(response, status, body));
		expect(await failure()).toBe(
			`The token request to ${tokenUrl()} failed with HTTP ${status}${shown}`,
		);
	});

	it('299, the last status of 2xx, is still a token answer', async () => {
		// The upper edge of success: 300 is refused (the redirect cases above), 299 taken.
		endpoint.answerWith((response) => send(response, 299, { access_token: 'edge' }));
		await expect(exchange()).resolves.toMatchObject({ accessToken: 'edge' });
	});

	it('a server that echoes the secret in its error text does not put it into the message', async () => {
		endpoint.answerWith((response) =>
			send(response, 400, { error: `bad_${SECRET}`, error_description: `got ${SECRET}` }),
		);
		const message = await failure();
		expect(message).toMatch(
			new RegExp(`^The token request to ${tokenUrl()} failed with HTTP 400 `),
		);
	});

	it('a server that echoes the secret as the error code of a refused audience does not show it either', async () => {
		endpoint.answerWith((response) => send(response, 403, { error: SECRET }));
		expect(await failure({ audience: SECRET })).toContain('refused the audience');
	});

	it('an Auth URL nobody answers at: could not reach it', async () => {
		expect(await failure({ authUrl: 'http://127.0.0.1:9' })).toBe(
			"Could not reach the Auth URL http://127.0.0.1:9/oauth/token to get an access token. Check the credential's Auth URL and that n8n can reach that host.",
		);
	});

	it('an answer that breaks off before its end: could not reach the Auth URL', async () => {
		endpoint.answerWith((response) => {
			response.writeHead(200, { 'content-type': 'application/json', 'content-length': 400 });
			response.write('{"access_token":"half');
			setTimeout(() => response.destroy(), 20);
		});
		expect(await failure()).toBe(
			`Could not reach the Auth URL ${tokenUrl()} to get an access token. Check the credential's Auth URL and that n8n can reach that host.`,
		);
	});

	it('an answer larger than a token answer can be, by its Content-Length, is not read', async () => {
		endpoint.answerWith((response) => {
			response.writeHead(200, { 'content-type': 'application/json', 'content-length': 200_000 });
			response.write('{"access_token":"');
		});
		expect(await failure()).toBe(
			`The token endpoint ${tokenUrl()} answered with more than 64 KB (Content-Length 200000 bytes); a token answer is a few KB. Check the credential's Auth URL.`,
		);
	});

	it('an answer larger than a token answer can be, without a length, is read only so far', async () => {
		endpoint.answerWith((response) => {
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(`{"access_token":"${'t'.repeat(100_000)}"}`);
		});
		expect(await failure()).toBe(
			`The token endpoint ${tokenUrl()} answered with more than 64 KB after decompression; a token answer is a few KB. Check the credential's Auth URL.`,
		);
	});

	describe('tried again after a transient failure (3 tries, 250 and 500 ms apart)', () => {
		/** Answers each request with the next of `answers`, the last one from then on. */
		const answerInTurn = (...answers: Answer[]) =>
			endpoint.answerWith((response) =>
				answers[Math.min(endpoint.received.length, answers.length) - 1](response),
			);
		const token: Answer = (response) => send(response, 200, { access_token: 'issued-token' });
		const status =
			(code: number, body: unknown = {}): Answer =>
			(response) =>
				send(response, code, body);
		const withHeaders =
			(code: number, headers: Record<string, string>, body: unknown = {}): Answer =>
			(response) =>
				send(response, code, body, headers);
		/** A page over 64 KB without a length, as a CDN streams its error pages. */
		const bigPage =
			(code: number): Answer =>
			(response) => {
				response.writeHead(code, { 'content-type': 'text/html' });
				response.end(`<html><style>${'.x{color:red}'.repeat(6_000)}</style></html>`);
			};
		const dropped: Answer = (response) => response.socket?.destroy();
		const brokenOff: Answer = (response) => {
			response.writeHead(200, { 'content-type': 'application/json', 'content-length': 400 });
			response.write('{"access_token":"half');
			setTimeout(() => response.destroy(), 20);
		};

		it.each([
			['a 503', status(503)],
			['a 429', status(429)],
			['a dropped connection', dropped],
			['an answer that breaks off midway', brokenOff],
		])('%s, then a token: the token, at the second request', async (_name, first) => {
			answerInTurn(first, token);
			await expect(exchange()).resolves.toMatchObject({ accessToken: 'issued-token' });
			expect(endpoint.received).toHaveLength(2);
		});

		describe('a refusal for the rate limit under another status, as a lookup reads it (answerReport.ts)', () => {
			it.each([
				['a 420', status(420)],
				[
					'a 403 whose budget is spent (X-RateLimit-Remaining 0)',
					withHeaders(403, { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0' }),
				],
				['a 403 with Retry-After', withHeaders(403, { 'retry-after': '0' })],
				['a 429 whose page is over 64 KB', bigPage(429)],
				['a 522 whose page is over 64 KB', bigPage(522)],
			])('%s, then a token: the token, at the second request', async (_name, first) => {
				answerInTurn(first, token);
				await expect(exchange()).resolves.toMatchObject({ accessToken: 'issued-token' });
				expect(endpoint.received).toHaveLength(2);
			});

			it("a 403 of a plan without the budget (X-RateLimit-Limit 0) is the audience's refusal, not asked again", async () => {
				answerInTurn(
					withHeaders(403, { 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0' }),
					token,
				);
				expect(await failure()).toMatch(/refused the audience/);
				expect(endpoint.received).toHaveLength(1);
			});

			it('a 401 whose page is over 64 KB: its status decides, unread', async () => {
				answerInTurn(bigPage(401), token);
				expect(await failure()).toBe(
					`The token endpoint ${tokenUrl()} rejected the Client ID or Client Secret (HTTP 401). Check both values, as issued by the registry operator.`,
				);
				expect(endpoint.received).toHaveLength(1);
			});

			it('three 420s that echo the secret: three requests, then the rate limit is told, without the secret', async () => {
				answerInTurn(status(420, { error: 'slow_down', error_description: `client ${SECRET}` }));
				expect(await failure()).toBe(
					`The token endpoint ${tokenUrl()} refused the token request for its rate limit (HTTP 420 slow_down). Run the workflow again later, or ask the registry operator about the token endpoint's limit.`,
				);
				expect(endpoint.received).toHaveLength(3);
			});
		});

		it('a refused client (401) is not asked again', async () => {
			answerInTurn(status(401, { error: 'invalid_client' }), token);
			expect(await failure()).toBe(
				`The token endpoint ${tokenUrl()} rejected the Client ID or Client Secret (HTTP 401 invalid_client). Check both values, as issued by the registry operator.`,
			);
			expect(endpoint.received).toHaveLength(1);
		});

		it('three 503s: three requests, then the 503 is told', async () => {
			answerInTurn(status(503, { error: 'temporarily_unavailable' }));
			expect(await failure()).toBe(
				`The token request to ${tokenUrl()} failed with HTTP 503 temporarily_unavailable`,
			);
			expect(endpoint.received).toHaveLength(3);
		});

		describe('the waits between the tries', () => {
			const realWait = CompanyRegistryApi.tokenRetryWait;
			let waits: number[] = [];
			beforeEach(() => {
				waits = [];
				CompanyRegistryApi.tokenRetryWait = async (ms) => {
					waits.push(ms);
					return true;
				};
			});
			afterEach(() => (CompanyRegistryApi.tokenRetryWait = realWait));

			it('three 503s: 250 ms before the second try, 500 ms before the third, none after it', async () => {
				answerInTurn(status(503));
				await failure();
				expect(endpoint.received).toHaveLength(3);
				expect(waits).toEqual([250, 500]);
			});

			it('a 429, then a token: 250 ms before the second try', async () => {
				answerInTurn(status(429), token);
				await expect(exchange()).resolves.toMatchObject({ accessToken: 'issued-token' });
				expect(waits).toEqual([250]);
			});

			it.each([
				['a 429 asking 2 s', withHeaders(429, { 'retry-after': '2' }), 2_000],
				['a 420 asking 3 s', withHeaders(420, { 'retry-after': '3' }), 3_000],
				['a 403 asking 4 s', withHeaders(403, { 'retry-after': '4' }), 4_000],
				['a 503 asking 1 s', withHeaders(503, { 'retry-after': '1' }), 1_000],
				[
					'a 502 asking 3 s (only a 503 and the rate limit are asked)',
					withHeaders(502, { 'retry-after': '3' }),
					250,
				],
				['a 429 asking 0 s (the backoff is longer)', withHeaders(429, { 'retry-after': '0' }), 250],
				[
					'a 429 asking 29 s, within the 30 s deadline',
					withHeaders(429, { 'retry-after': '29' }),
					29_000,
				],
			])('%s, then a token: waited so long before the second try', async (_name, first, waited) => {
				answerInTurn(first, token);
				await expect(exchange()).resolves.toMatchObject({ accessToken: 'issued-token' });
				expect(waits).toEqual([waited]);
			});

			it('a 429 asking 30 s, the whole deadline: told at once, naming the wait, not waited for', async () => {
				answerInTurn(withHeaders(429, { 'retry-after': '30' }), token);
				expect(await failure()).toBe(
					`The token endpoint ${tokenUrl()} refused the token request for its rate limit (HTTP 429), asking to wait 30 s. Run the workflow again later, or ask the registry operator about the token endpoint's limit.`,
				);
				expect(waits).toEqual([]);
				expect(endpoint.received).toHaveLength(1);
			});
		});

		it('a 101 is no token answer, nor asked again', async () => {
			// Node's client hands a 101 without an upgrade over as the answer (other 1xx it skips).
			answerInTurn((response) => {
				const body = JSON.stringify({ access_token: 'from-a-101' });
				response.socket?.end(
					`HTTP/1.1 101 Switching Protocols\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
				);
			}, token);
			expect(await failure()).toBe(`The token request to ${tokenUrl()} failed with HTTP 101`);
			expect(endpoint.received).toHaveLength(1);
		});

		it('a 503 larger than a token answer is left unread, and tried again as a short one is', async () => {
			// A refusal's page is never the token: its status decides, as for a lookup (a CDN's 503 or 429
			// page carries styles and logos past 64 KB).
			answerInTurn((response) => {
				response.writeHead(503, { 'content-type': 'application/json' });
				response.end(`{"error":"${'e'.repeat(100_000)}"}`);
			}, token);
			await expect(exchange()).resolves.toMatchObject({ accessToken: 'issued-token' });
			expect(endpoint.received).toHaveLength(2);
		});

		it('a request cancelled by its lookup (Request Timeout, execution stopped) is not tried again', async () => {
			// As registryRequest.ts hands the helper to n8n: the lookup's signal added to the request's.
			const lookup = new AbortController();
			let requests = 0;
			const cancellable: IHttpRequestHelper = {
				helpers: {
					httpRequest: async (options) => {
						requests++;
						const own = options.abortSignal;
						const signals = [lookup.signal, ...(own instanceof AbortSignal ? [own] : [])];
						return await helper.helpers.httpRequest({
							...options,
							abortSignal: AbortSignal.any(signals),
						});
					},
				},
			};
			endpoint.answerWith(() => lookup.abort());
			const error = await credential.preAuthentication.call(cancellable, credentials()).then(
				() => undefined,
				(thrown: unknown) => thrown as Error,
			);
			expect(error?.message).toBe(
				`Could not reach the Auth URL ${tokenUrl()} to get an access token. Check the credential's Auth URL and that n8n can reach that host.`,
			);
			expect(requests).toBe(1);
		});
	});

	describe('with the exchange deadline (30 s in n8n) shortened to 0.3 s', () => {
		const deadlineMs = CompanyRegistryApi.tokenTimeoutMs;
		beforeAll(() => (CompanyRegistryApi.tokenTimeoutMs = 300));
		afterAll(() => (CompanyRegistryApi.tokenTimeoutMs = deadlineMs));
		const deadlineMessage = () =>
			`The Auth URL ${tokenUrl()} did not finish its token answer within 0.3 s. Check the credential's Auth URL and that this host answers.`;

		it('an endpoint that never answers fails at the deadline', async () => {
			endpoint.answerWith(() => {});
			expect(await failure()).toBe(deadlineMessage());
		});

		it('an endpoint that sends its headers, then stalls, fails at the deadline', async () => {
			endpoint.answerWith((response) => {
				response.writeHead(200, { 'content-type': 'application/json', 'content-length': 400 });
				response.write('{"access_token":"');
			});
			expect(await failure()).toBe(deadlineMessage());
		});

		it('an answer within the deadline is taken', async () => {
			await expect(exchange()).resolves.toMatchObject({ accessToken: 'issued-token' });
		});
	});
});

describe('the credential form', () => {
	// The fields a user fills in; their names are what n8n stores, so a renamed one loses saved credentials.
	it('asks for the Client ID, a secret Client Secret, Base URL, Auth URL and an optional Audience, and keeps the token hidden', () => {
		expect(credential).toMatchObject({
			name: 'companyRegistryApi',
			displayName: 'Company Registry API',
			documentationUrl:
				'https://github.com/n8n-nodes-company-registry/n8n-nodes-company-registry#credentials',
			icon: {
				light: 'file:../nodes/CompanyRegistry/companyRegistry.svg',
				dark: 'file:../nodes/CompanyRegistry/companyRegistry.dark.svg',
			},
		});
		// What n8n stores and how it treats each field, not the texts (the UX test checks those).
		const field = (name: string) =>
			credential.properties.find((property) => property.name === name);
		expect(credential.properties.map((property) => property.name)).toEqual([
			'clientId',
			'clientSecret',
			'baseUrl',
			'authUrl',
			'audience',
			'accessToken',
			'tokenIssuedFor',
		]);
		for (const name of ['clientId', 'clientSecret', 'baseUrl', 'authUrl'])
			expect(field(name)).toMatchObject({ type: 'string', required: true });
		expect(field('clientSecret')?.typeOptions).toEqual({ password: true });
		expect(field('clientId')?.typeOptions?.password).toBeUndefined();
		expect(field('baseUrl')?.default).toBe('https://api.verifiet.com');
		expect(field('authUrl')?.default).toBe('https://login.verifiet.com');
		expect(field('audience')).toMatchObject({ type: 'string', default: '' });
		expect(field('audience')?.required).toBeFalsy();
		expect(field('audience')?.placeholder).toMatch(/^e\.g\. https:\/\/\S+\/v1\/$/);
		expect(field('accessToken')).toMatchObject({
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		});
		// A password field, as the token is: n8n's editor blanks it and CredentialsService.unredact restores
		// it on save, so an edit keeps the two together. Not expirable: n8n renews by the first such field.
		expect(field('tokenIssuedFor')).toMatchObject({
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		});
		// Each field shown has a label and a description (apart: a colon in the description made an empty
		// label pass when they were checked as one text).
		for (const property of credential.properties.filter(({ type }) => type !== 'hidden')) {
			expect(property.displayName).toMatch(/^\S/);
			expect(property.description ?? '').toMatch(/^\S/);
		}
		// A new credential prefills no Client ID or Secret a user could keep by mistake.
		expect([field('clientId')?.default, field('clientSecret')?.default]).toEqual(['', '']);
	});
});

describe('authenticate: the Bearer header on each registry request', () => {
	it('adds the stored token as Bearer and keeps the request and its other headers', async () => {
		await expect(
			credential.authenticate(
				{ accessToken: 'stored-token' },
				{ url: '/v1/company/de/HRB1', method: 'GET', headers: { accept: 'application/json' } },
			),
		).resolves.toEqual({
			url: '/v1/company/de/HRB1',
			method: 'GET',
			headers: { accept: 'application/json', Authorization: 'Bearer stored-token' },
		});
	});

	it('with no token stored yet, sends an empty Bearer (the registry answers 401 and n8n fetches one)', async () => {
		await expect(credential.authenticate({}, { url: '/v1/x' })).resolves.toEqual({
			url: '/v1/x',
			headers: { Authorization: 'Bearer ' },
		});
	});
});

describe("the Test's request", () => {
	const { node, workflow } = noOpWorkflow(noOpTypes);

	it.each([
		['https://api.example.test', 'https://api.example.test/v1/company/de/HRB12345'],
		[' https://api.example.test/ ', 'https://api.example.test/v1/company/de/HRB12345'],
		['https://api.example.test///', 'https://api.example.test/v1/company/de/HRB12345'],
	])('with Base URL %p is a lookup of %p, redirects not followed', (baseUrl, url) => {
		const { request } = credential.test;
		const baseURL = workflow.expression.getSimpleParameterValue(
			node,
			request.baseURL as string,
			'internal',
			{ $credentials: { baseUrl } },
			undefined,
			'',
		);
		expect(`${String(baseURL)}${request.url}`).toBe(url);
		expect(request).toMatchObject({
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
		});
	});

	it('every status axios would follow has a rule naming it', () => {
		// The Test's other rule, on the body of a 2xx, is test/integration/redteam/credentialTestAnswer.test.ts's.
		const statusRules = credential.test.rules?.filter((rule) => rule.type === 'responseCode');
		expect(statusRules).toEqual(
			[300, 301, 302, 303, 307, 308].map((status) => ({
				type: 'responseCode',
				properties: {
					value: status,
					message: `The registry answered with a redirect (HTTP ${status}), which the Test does not follow: the access token is only ever sent to the Base URL. If the registry has moved, set the Base URL to its new address.`,
				},
			})),
		);
	});
});

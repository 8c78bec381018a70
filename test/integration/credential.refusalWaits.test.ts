import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { getRequestHelperFunctions } from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helper-functions';
import type {
	IHttpRequestHelper,
	INodeType,
	INodeTypes,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { CompanyRegistryApi } from '../../credentials/CompanyRegistryApi.credentials';
import { LOOKUP_CANCEL_SIGNAL } from '../../nodes/shared/transport/accessToken';
import { noOpWorkflow } from '../../harness/noOpWorkflow';

// Reviewer's finds (session 40) on the token exchange reading its endpoint's refusals as the lookups do
// (7183398). Each case below failed on ac756e7.

type Answer = (response: ServerResponse) => void;

function send(response: ServerResponse, status: number, body: unknown, headers = {}): void {
	const payload = JSON.stringify(body);
	response.writeHead(status, {
		'content-type': 'application/json',
		'content-length': Buffer.byteLength(payload),
		...headers,
	});
	response.end(payload);
}

async function tokenEndpoint() {
	let requests = 0;
	let answers: Answer[] = [];
	const server: Server = createServer((request, response) => {
		request.resume();
		request.on('end', () => {
			requests++;
			answers[Math.min(requests, answers.length) - 1](response);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		requests: () => requests,
		answerInTurn: (...next: Answer[]) => (answers = next),
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

const noOpType = {
	description: { displayName: 'No Op', name: 'noOp', properties: [], version: 1 },
} as unknown as INodeType;
const noOpTypes: INodeTypes = {
	getByName: () => noOpType,
	getByNameAndVersion: () => noOpType,
	getKnownTypes: () => ({}),
};

function requestHelper(): IHttpRequestHelper {
	const { node, workflow } = noOpWorkflow(noOpTypes);
	const { httpRequest } = getRequestHelperFunctions(
		workflow,
		node,
		{} as IWorkflowExecuteAdditionalData,
	);
	return { helpers: { httpRequest } };
}

const credential = new CompanyRegistryApi();
const token: Answer = (response) => send(response, 200, { access_token: 'issued-token' });

describe('the token exchange (review of 7183398)', () => {
	let endpoint: Awaited<ReturnType<typeof tokenEndpoint>>;
	const helper = requestHelper();
	const realWait = CompanyRegistryApi.tokenRetryWait;
	const realDeadline = CompanyRegistryApi.tokenTimeoutMs;
	beforeEach(async () => (endpoint = await tokenEndpoint()));
	afterEach(async () => {
		CompanyRegistryApi.tokenRetryWait = realWait;
		CompanyRegistryApi.tokenTimeoutMs = realDeadline;
		await endpoint.close();
	});
	const credentials = () => ({
		clientId: 'the-client',
		clientSecret: 'the-client-secret-4711',
		baseUrl: 'https://api.example.test',
		authUrl: endpoint.url,
		audience: 'https://wrong.example/v1/',
	});
	const failure = async (helperOf: IHttpRequestHelper = helper) =>
		await credential.preAuthentication.call(helperOf, credentials()).then(
			() => 'resolved with a token',
			(thrown: unknown) => String((thrown as Error).message),
		);

	it("a 403 whose OAuth code names the audience (access_denied) is the audience's refusal, even when the endpoint's counter reads 0 left", async () => {
		// Auth servers (Auth0's Authentication API among them) send X-RateLimit-* on every answer: the
		// request that spends the last of the budget is answered with Remaining 0, whatever its outcome.
		// The body's OAuth code says why this one was refused; waiting mends no audience.
		endpoint.answerInTurn((response) =>
			send(
				response,
				403,
				{ error: 'access_denied', error_description: 'Client is not authorized for this API' },
				{ 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '60' },
			),
		);
		expect(await failure()).toMatch(/refused the audience 'https:\/\/wrong\.example\/v1\/'/);
		expect(endpoint.requests()).toBe(1);
	});

	it("a 403 whose OAuth code names the client (invalid_client) is the client's refusal, even when the counter reads 0 left", async () => {
		endpoint.answerInTurn((response) =>
			send(
				response,
				403,
				{ error: 'invalid_client' },
				{ 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '0' },
			),
		);
		expect(await failure()).toMatch(
			/rejected the Client ID or Client Secret \(HTTP 403 invalid_client\)/,
		);
		expect(endpoint.requests()).toBe(1);
	});

	it.each([
		'invalid_audience',
		'invalid_grant',
		'invalid_request',
		'invalid_scope',
		'invalid_target',
		'unauthorized_client',
		'unsupported_grant_type',
	])(
		'a 403 naming the client, its grant, scope or audience (%s) fails at once, whatever its counter reads',
		async (code) => {
			endpoint.answerInTurn((response) =>
				send(
					response,
					403,
					{ error: code },
					{ 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '0' },
				),
			);
			expect(await failure()).toMatch(`(HTTP 403 ${code})`);
			expect(await failure()).not.toMatch(/rate limit/);
			expect(endpoint.requests()).toBe(2);
		},
	);

	it('a 429 is the rate limit by its status, whatever OAuth code it carries: tried again', async () => {
		CompanyRegistryApi.tokenRetryWait = async () => true;
		endpoint.answerInTurn(
			(response) => send(response, 429, { error: 'access_denied' }, { 'retry-after': '1' }),
			token,
		);
		expect(await failure()).toBe('resolved with a token');
		expect(endpoint.requests()).toBe(2);
	});

	it('a Retry-After longer than what is left of the deadline is told at once, not waited for', async () => {
		// The deadline is for every try together: a wait that ends after it only ends at it.
		CompanyRegistryApi.tokenTimeoutMs = 3_000;
		const waits: number[] = [];
		CompanyRegistryApi.tokenRetryWait = async (ms) => {
			waits.push(ms);
			return true;
		};
		endpoint.answerInTurn(
			// The first answer comes 1.5 s into the 3 s deadline and asks for 2 s: 1.5 s are left.
			(response) =>
				setTimeout(() => send(response, 429, {}, { 'retry-after': '2' }), 1_500).unref(),
			token,
		);
		expect(await failure()).toMatch(/refused the token request for its rate limit \(HTTP 429\)/);
		expect(waits).toEqual([]);
		expect(endpoint.requests()).toBe(1);
	});

	it("a wait for the endpoint's Retry-After ends when the lookup is cancelled (its Request Timeout, a stopped execution)", async () => {
		// As registryRequest.ts hands the helper to n8n: the lookup's signal added to each request's, and
		// set on the helpers for the waits between them (n8n passes the credential nothing else).
		const lookup = new AbortController();
		const cancellable = {
			helpers: {
				[LOOKUP_CANCEL_SIGNAL]: lookup.signal,
				httpRequest: async (options) => {
					const own = options.abortSignal;
					const signals = [lookup.signal, ...(own instanceof AbortSignal ? [own] : [])];
					return await helper.helpers.httpRequest({
						...options,
						abortSignal: AbortSignal.any(signals),
					});
				},
			},
		} as IHttpRequestHelper;
		const endedByTheLookup: boolean[] = [];
		CompanyRegistryApi.tokenRetryWait = async (_ms, signal) => {
			// The lookup's Request Timeout passes (or the execution is stopped) during the 20 s wait.
			lookup.abort();
			endedByTheLookup.push(signal.aborted);
			return false;
		};
		endpoint.answerInTurn((response) => send(response, 429, {}, { 'retry-after': '20' }), token);
		await failure(cancellable);
		expect(endedByTheLookup).toEqual([true]);
	});
});

import { Readable } from 'node:stream';

import type { ICredentialsDecrypted, IHttpRequestHelper, IHttpRequestOptions } from 'n8n-workflow';

import { lookupCancelSignalOf } from '../../../nodes/shared/transport/accessToken';
import { registryRequest } from '../../../nodes/shared/transport/registryRequest';

// The one HTTP call of a lookup against a stand-in for n8n's request helpers: what it asks n8n for, and
// how each answer or failure n8n hands back is read (the engine tests show the same with n8n-core and a
// registry on loopback: boundedAnswers, largeRefusalBody, brokenContentEncoding, tokenDeadline, cancel).

const BASE_URL = 'https://registry.test';
const TOKEN = 'stored-token-0123456789';
const credential = {
	id: 'c1',
	name: 'Registry',
	type: 'companyRegistryApi',
	data: { accessToken: TOKEN },
};

type Sent = { request: IHttpRequestOptions; options: Record<string, unknown>; signal: AbortSignal };
type Send = (sent: Sent, self: StandIn) => Promise<unknown>;
type StandIn = { helpers: { httpRequest: (options: IHttpRequestOptions) => Promise<unknown> } };

/** n8n's answer to a full-response, stream-encoded request. */
const full = (statusCode: number, body: unknown, headers: Record<string, unknown> = {}) => ({
	statusCode,
	statusMessage: `status ${statusCode}`,
	headers,
	body: typeof body === 'string' || Buffer.isBuffer(body) ? Readable.from([body]) : body,
});
const jsonBody = (value: unknown) => Buffer.from(JSON.stringify(value));
/** A body over 64 KB, without a Content-Length. */
const BIG = Buffer.alloc(70 * 1024, 'x');

/** The request function over a stand-in whose httpRequestWithAuthentication does `send`. */
function standIn(
	send: Send,
	{
		timeoutMs = 5_000,
		execution,
		tokenExchange = async () => ({ access_token: 'new' }),
		stored = credential,
	}: {
		timeoutMs?: number;
		execution?: AbortController;
		tokenExchange?: (options: IHttpRequestOptions) => Promise<unknown>;
		/** The credential as n8n hands it (the stored one unless said). */
		stored?: Record<string, unknown>;
	} = {},
) {
	const sent: Sent[] = [];
	const exchanges: IHttpRequestOptions[] = [];
	const context = {
		...(execution ? { getExecutionCancelSignal: () => execution.signal } : {}),
		helpers: {
			httpRequest: async (options: IHttpRequestOptions) => {
				exchanges.push(options);
				return await tokenExchange(options);
			},
			async httpRequestWithAuthentication(
				this: StandIn & { getExecutionCancelSignal: () => AbortSignal },
				_type: string,
				request: IHttpRequestOptions,
				options: Record<string, unknown>,
			) {
				const one = { request, options, signal: this.getExecutionCancelSignal() };
				sent.push(one);
				return await send(one, this);
			},
		},
	};
	const request = registryRequest(
		context as never,
		{ baseUrl: BASE_URL, timeoutMs },
		stored as unknown as ICredentialsDecrypted,
	);
	return { request, sent, exchanges };
}

const KEY = { countryCode: 'de', companyId: 'HRB 1/2' };
const answerTo = async (send: Send, on401: 'answer' | 'renew' = 'answer') =>
	await standIn(send).request(KEY, on401);
/** n8n's NodeApiError around what failed. */
const thrown = (cause: unknown) => async () => {
	throw Object.assign(new Error('wrapped'), { cause });
};

describe('what a lookup asks n8n for', () => {
	it('a GET of the lookup URL, read as a stream, redirects not followed, every status an answer', async () => {
		const { request, sent } = standIn(async () => full(200, jsonBody({ ok: true })));
		await request({ ...KEY, stateCode: 'BY', languageCode: 'en' }, 'answer');
		const [{ request: options, options: authentication }] = sent;
		expect(options).toEqual({
			method: 'GET',
			url: `${BASE_URL}/v1/company/de/HRB%201%2F2`,
			qs: { stateCode: 'BY', languageCode: 'en' },
			json: true,
			encoding: 'stream',
			timeout: 5_000,
			returnFullResponse: true,
			disableFollowRedirect: true,
			ignoreHttpStatusErrors: { ignore: true, except: [] },
		});
		expect(authentication).toEqual({
			credentialsDecrypted: credential,
			preAuthenticationRetryStatusCode: [401, 413, 431],
		});
	});

	it('no state or language: none in the query; to renew, the token refusals are left to n8n', async () => {
		const { request, sent } = standIn(async () => full(200, jsonBody({})));
		await request(KEY, 'renew');
		expect(Object.keys(sent[0].request.qs ?? { missing: true })).toEqual([]);
		expect(sent[0].request.ignoreHttpStatusErrors).toEqual({
			ignore: true,
			except: [401, 413, 431],
		});
	});
});

describe('an answer n8n hands back', () => {
	it('is read: status, its phrase, headers and the parsed body', async () => {
		const headers = { 'content-type': 'application/json' };
		expect(await answerTo(async () => full(200, jsonBody({ a: 1 }), headers))).toEqual({
			kind: 'response',
			status: 200,
			statusMessage: 'status 200',
			headers,
			body: { a: 1 },
		});
	});

	it.each([413, 431])('a %s says the size of the token it refused', async (status) => {
		expect(await answerTo(async () => full(status, jsonBody({})))).toMatchObject({
			kind: 'response',
			status,
			tokenBytes: TOKEN.length,
		});
	});

	it.each([
		['holds no token yet', { ...credential, data: {} }],
		['holds no data at all', { ...credential, data: undefined }],
	])('a 413 when the credential %s: a token of 0 bytes', async (_case, stored) => {
		const { request } = standIn(async () => full(413, jsonBody({})), { stored });
		expect(await request(KEY, 'answer')).toMatchObject({ status: 413, tokenBytes: 0 });
	});

	it('a success in plain text with no Content-Encoding is read as it is', async () => {
		expect(await answerTo(async () => full(200, 'not json'))).toMatchObject({
			kind: 'response',
			status: 200,
			body: 'not json',
		});
	});

	it('a 401 carries no token size', async () => {
		const answer = await answerTo(async () => full(401, jsonBody({})));
		expect(answer).toMatchObject({ kind: 'response', status: 401 });
		expect(answer).not.toHaveProperty('tokenBytes');
	});

	it.each([200, 299])('a %s over 64 KB is not read', async (status) => {
		expect(await answerTo(async () => full(status, BIG))).toEqual({
			kind: 'oversized',
			limitBytes: 64 * 1024,
		});
	});

	it.each([199, 300, 429, 503])(
		'a %s over 64 KB is left unread: its status decides',
		async (status) => {
			expect(await answerTo(async () => full(status, BIG, { 'retry-after': '1' }))).toEqual({
				kind: 'response',
				status,
				statusMessage: `status ${status}`,
				headers: { 'retry-after': '1' },
				body: undefined,
			});
		},
	);

	/** A body that breaks off with `code`. */
	const breaking = (code: string) =>
		new Readable({
			read() {
				this.destroy(Object.assign(new Error('broken'), { code }));
			},
		});

	it.each([['Z_DATA_ERROR'], ['ERR__ERROR_FORMAT_PADDING_1']])(
		'a body whose decoder failed (%s) is undecodable',
		async (code) => {
			expect(await answerTo(async () => full(200, breaking(code)))).toEqual({
				kind: 'undecodable',
				status: 200,
				code,
			});
		},
	);

	it.each([['ECONNRESET_Z_'], ['E_ERR__ERROR_']])(
		"a code with a decoder's prefix only inside it (%s) is no decoder's",
		async (code) => {
			expect(await answerTo(async () => full(200, breaking(code)))).toEqual({
				kind: 'no-response',
				reason: 'network',
				code,
			});
		},
	);

	it('a body that breaks off otherwise got no answer', async () => {
		expect(await answerTo(async () => full(200, breaking('ECONNRESET')))).toEqual({
			kind: 'no-response',
			reason: 'network',
			code: 'ECONNRESET',
		});
	});

	it.each([
		['zstd', 200, 'undecodable'],
		['gzip, br', 204, 'undecodable'],
		['identity', 200, 'response'],
		[' ', 200, 'response'],
		['zstd', 404, 'response'],
		['zstd', 300, 'response'],
		['zstd', 199, 'response'],
	])(
		"a text body still labelled '%s' (not decoded by n8n), HTTP %i: %s",
		async (encoding, status, kind) => {
			const answer = await answerTo(async () =>
				full(status, 'not json', { 'content-encoding': encoding }),
			);
			expect(answer.kind).toBe(kind);
			if (kind === 'undecodable')
				expect(answer).toEqual({ kind, status, code: `Content-Encoding ${encoding}` });
		},
	);

	it('a JSON body still labelled is read (n8n parsed it: it was not encoded)', async () => {
		const answer = await answerTo(async () =>
			full(200, jsonBody({ a: 1 }), { 'content-encoding': 'zstd' }),
		);
		expect(answer).toMatchObject({ kind: 'response', body: { a: 1 } });
	});
});

describe('a failure n8n throws (wrapped, the original its cause)', () => {
	it('a token refusal when renewing: the new token was refused too', async () => {
		expect(await answerTo(thrown({ response: { status: 431 } }), 'renew')).toEqual({
			kind: 'token-refused',
			status: 431,
			tokenBytes: TOKEN.length,
		});
	});

	it('another status, or one not renewing: no answer to read', async () => {
		expect(await answerTo(thrown({ response: { status: 500 } }), 'renew')).toEqual({
			kind: 'no-response',
			reason: 'network',
			code: 'HTTP 500',
		});
		expect(await answerTo(thrown({ response: { status: 401 } }), 'answer')).toEqual({
			kind: 'no-response',
			reason: 'network',
			code: 'HTTP 401',
		});
	});

	it("a refused renewal's body is closed, not left open", async () => {
		const data = Readable.from([Buffer.from('{}')]);
		await answerTo(thrown({ response: { status: 401, data } }), 'renew');
		expect(data.destroyed).toBe(true);
	});

	it.each([[{ code: 'ERR_CANCELED' }], [{ name: 'CanceledError' }], [{ name: 'AbortError' }]])(
		'cancelled (%j)',
		async (cause) => {
			expect(await answerTo(thrown(cause))).toEqual({ kind: 'cancelled' });
		},
	);

	it.each(['ECONNABORTED', 'ETIMEDOUT'])('timed out (%s)', async (code) => {
		expect(await answerTo(thrown({ code }))).toEqual({
			kind: 'no-response',
			reason: 'timeout',
			code,
		});
	});

	it('a network failure by its code, or an axios error without one', async () => {
		expect(await answerTo(thrown({ code: 'ECONNREFUSED' }))).toEqual({
			kind: 'no-response',
			reason: 'network',
			code: 'ECONNREFUSED',
		});
		expect(await answerTo(thrown({ isAxiosError: true }))).toEqual({
			kind: 'no-response',
			reason: 'network',
			code: 'no response',
		});
	});

	it("anything else is the token exchange's failure, with its message", async () => {
		expect(await answerTo(thrown({ message: 'The token endpoint refused' }))).toEqual({
			kind: 'credential',
			message: 'The token endpoint refused',
		});
		expect(
			await answerTo(async () => {
				throw Object.assign(new Error('the wrapper says'), { cause: {} });
			}),
		).toEqual({ kind: 'credential', message: 'the wrapper says' });
		expect(
			await answerTo(async () => {
				throw {};
			}),
		).toEqual({ kind: 'credential', message: 'The token exchange failed without a reason' });
	});
});

describe('the deadline (Request Timeout) and the execution stopped', () => {
	/** n8n's request that ends only when its signal aborts, then throws as axios does. */
	const untilAborted: Send = async ({ signal }) =>
		await new Promise((_resolve, reject) =>
			signal.addEventListener('abort', () =>
				reject(Object.assign(new Error('canceled'), { cause: { code: 'ERR_CANCELED' } })),
			),
		);

	it('an answer that has not come by the deadline: timed out, and the request aborted', async () => {
		const { request, sent } = standIn(untilAborted, { timeoutMs: 20 });
		expect(await request(KEY, 'answer')).toEqual({
			kind: 'no-response',
			reason: 'timeout',
			code: 'ETIMEDOUT',
		});
		expect(sent[0].signal.aborted).toBe(true);
	});

	it('a token exchange that has not finished by the deadline: the Auth URL is named', async () => {
		const { request, exchanges } = standIn(
			async (_sent, self) => {
				try {
					await self.helpers.httpRequest({ url: 'https://login.test/oauth/token' });
				} catch {
					throw Object.assign(new Error('no token'), { cause: { message: 'no token' } });
				}
				return full(200, jsonBody({}));
			},
			{
				timeoutMs: 20,
				tokenExchange: async (options) =>
					await new Promise((_resolve, reject) =>
						(options.abortSignal as AbortSignal).addEventListener('abort', () =>
							reject(new Error('aborted')),
						),
					),
			},
		);
		expect(await request(KEY, 'answer')).toEqual({
			kind: 'credential',
			message:
				'The Auth URL https://login.test/oauth/token did not finish its token answer within 0.02 s (the Request Timeout); this row was not looked up',
		});
		expect(exchanges).toHaveLength(1);
	});

	it('a token exchange that ended, the lookup then stalled past the deadline: timed out', async () => {
		const { request } = standIn(
			async (sent, self) => {
				await self.helpers.httpRequest({ url: 'https://login.test/oauth/token' });
				return await untilAborted(sent, self);
			},
			{ timeoutMs: 20 },
		);
		expect(await request(KEY, 'answer')).toEqual({
			kind: 'no-response',
			reason: 'timeout',
			code: 'ETIMEDOUT',
		});
	});

	it("the token exchange carries its own signal beside the lookup's", async () => {
		const own = new AbortController();
		const seen: boolean[] = [];
		const { request } = standIn(
			async (_sent, self) => {
				await self.helpers.httpRequest({
					url: 'https://login.test/oauth/token',
					abortSignal: own.signal,
				});
				return full(200, jsonBody({}));
			},
			{
				tokenExchange: async (options) => {
					const signal = options.abortSignal as AbortSignal;
					seen.push(signal.aborted);
					own.abort();
					seen.push(signal.aborted);
					return {};
				},
			},
		);
		await request(KEY, 'answer');
		expect(seen).toEqual([false, true]);
	});

	it("the token exchange's waits between tries end with the lookup: its signal is on the helpers", async () => {
		const execution = new AbortController();
		const seen: unknown[] = [];
		const { request } = standIn(
			async (_sent, self) => {
				const signal = lookupCancelSignalOf(self as IHttpRequestHelper);
				seen.push(signal?.aborted);
				execution.abort();
				seen.push(signal?.aborted);
				return full(200, jsonBody({}));
			},
			{ execution },
		);
		await request(KEY, 'answer');
		expect(seen).toEqual([false, true]);
	});

	it('an execution stopped before the request: its signal is aborted at once', async () => {
		const execution = new AbortController();
		execution.abort();
		const { request, sent } = standIn(
			async ({ signal }) => {
				expect(signal.aborted).toBe(true);
				throw Object.assign(new Error('canceled'), { cause: { code: 'ERR_CANCELED' } });
			},
			{ execution },
		);
		expect(await request(KEY, 'answer')).toEqual({ kind: 'cancelled' });
		expect(sent).toHaveLength(1);
	});

	it('an execution stopped while the body arrives: cancelled, not a broken connection', async () => {
		const execution = new AbortController();
		const { request } = standIn(
			async ({ signal }) => {
				const body = new Readable({ read() {} });
				signal.addEventListener('abort', () =>
					body.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })),
				);
				setTimeout(() => execution.abort(), 5);
				return full(200, body);
			},
			{ execution },
		);
		expect(await request(KEY, 'answer')).toEqual({ kind: 'cancelled' });
	});

	it('a body still arriving at the deadline: timed out', async () => {
		const { request } = standIn(
			async ({ signal }) => {
				const body = new Readable({ read() {} });
				signal.addEventListener('abort', () =>
					body.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })),
				);
				return full(200, body);
			},
			{ timeoutMs: 20 },
		);
		expect(await request(KEY, 'answer')).toEqual({
			kind: 'no-response',
			reason: 'timeout',
			code: 'ETIMEDOUT',
		});
	});

	it('a request that never settles, not even when aborted: timed out at the deadline all the same', async () => {
		const { request } = standIn(async () => await new Promise(() => {}), { timeoutMs: 20 });
		expect(await request(KEY, 'answer')).toEqual({
			kind: 'no-response',
			reason: 'timeout',
			code: 'ETIMEDOUT',
		});
	});

	it("the execution's abort listener is removed after the request", async () => {
		const execution = new AbortController();
		const removed = jest.spyOn(execution.signal, 'removeEventListener');
		const { request } = standIn(async () => full(200, jsonBody({})), { execution });
		await request(KEY, 'answer');
		expect(removed).toHaveBeenCalledWith('abort', expect.any(Function));
	});

	it("the execution's signal is let go of after the request", async () => {
		const execution = new AbortController();
		const { request, sent } = standIn(async () => full(200, jsonBody({})), { execution });
		await request(KEY, 'answer');
		// The request's own signal ends with it; stopping the execution later reaches no listener of it.
		expect(sent[0].signal.aborted).toBe(true);
	});
});

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { DEMO_CLIENT, startSandbox, type Sandbox } from '../../sandbox/server';
import { loadWorkflow } from '../../harness/engine';
import {
	CREDENTIAL_ID,
	REGISTRY_NODE,
	engineFor,
	expectEachRowOnce,
	runRows,
} from '../../harness/fixtures';

// Issue "Hostile world": input from webhooks, registries that misbehave, servers that echo secrets.
// Every case must end as a correct answer or a specific error on its own row; nothing leaves by
// Registered that was not registered; no secret or token reaches an output, an error or a log.

/** A server at another origin that records what reaches it and answers like a registry would. */
async function recordingServer(): Promise<{
	url: string;
	received: Array<{ headers: IncomingMessage['headers']; body: string; url?: string }>;
	close(): Promise<void>;
}> {
	const received: Array<{ headers: IncomingMessage['headers']; body: string; url?: string }> = [];
	const server: Server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			received.push({
				headers: request.headers,
				body: Buffer.concat(chunks).toString('utf8'),
				url: request.url,
			});
			response.writeHead(200, { 'content-type': 'application/json' });
			// A registered company and a token: what a hostile host would answer.
			response.end(
				JSON.stringify({
					isRegistered: true,
					officialName: 'Evil Corp',
					status: 'Active',
					registrationDate: '2020-01-01',
					access_token: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJldmlsIn0.',
					expires_in: 60,
				}),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		received,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** Every string in the run data, the node's error and n8n's log lines, for secret hunting. */
function everything(result: { run: unknown }, logs: string[]): string {
	return JSON.stringify(result.run) + logs.join('\n');
}

describe('hostile world', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, faults: { slowMs: 3000 } });
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.resetAll();
		sandbox.resetCounters();
		sandbox.onLookup(undefined);
		sandbox.lookupLog.length = 0;
	});

	describe('no failed check leaves by Registered, whatever the input', () => {
		const brokenId = 'FAKE\uD800';

		it('an id that is not well-formed text fails its own row under Continue; the others are answered', async () => {
			const engine = engineFor(sandbox);
			const rows = [
				{ country: 'de', companyId: 'HRB12345' },
				{ country: 'de', companyId: brokenId },
				{ country: 'de', companyId: 'HRB00000' },
			];
			const branches = await runRows(engine, rows, { onError: 'continueRegularOutput' });
			expectEachRowOnce(branches, 3);
			expect(branches.registered.map((item) => item.pairedItem)).toEqual([{ item: 0 }]);
			const failed = branches.notRegistered.find(
				(item) => (item.pairedItem as { item: number }).item === 1,
			)!;
			expect(failed.json.error).toBe(
				'Company ID contains a broken character (a lone UTF-16 surrogate)',
			);
			expect(sandbox.lookupLog.every((path) => !path.includes('FAKE'))).toBe(true);
		});

		it('under Stop, the same id stops the node with a NodeOperationError naming its row', async () => {
			const engine = engineFor(sandbox);
			const { result } = await runRows(engine, [
				{ country: 'de', companyId: 'HRB12345' },
				{ country: 'de', companyId: brokenId },
			]);
			const error = result.errorOf(REGISTRY_NODE) as unknown as {
				name: string;
				message: string;
				context: { itemIndex: number };
			};
			expect(error.name).toBe('NodeOperationError');
			expect(error.message).toBe(
				'Company ID contains a broken character (a lone UTF-16 surrogate)',
			);
			expect(error.context.itemIndex).toBe(1);
		});

		it.each([
			['NaN', Number.NaN, 'Company ID is NaN, not a value'],
			['Infinity', Number.POSITIVE_INFINITY, 'Company ID is Infinity, not a value'],
			['an object', { id: 1 }, 'Company ID is an object, not text'],
			['a list', ['HRB12345'], 'Company ID is a list, not text'],
			['a boolean', true, 'Company ID is a boolean, not text'],
			['CR/LF', 'HRB\r\n12345', 'Company ID contains the control character U+000D'],
			['a bidi override', 'HRB\u202E54321', 'Company ID contains the control character U+202E'],
			[
				'5,000 characters',
				'X'.repeat(5000),
				'Company ID is 5000 characters long; at most 100 are accepted',
			],
		])(
			'an id that is %s, from an expression, is refused with a clear message and not sent',
			async (_label, companyId, message) => {
				const engine = engineFor(sandbox);
				const workflowRows = [{ country: 'de', companyId: 'placeholder' }];
				// JSON cannot carry NaN or Infinity: the expression writes them out.
				const expression =
					typeof companyId === 'number'
						? `={{ ${String(companyId)} }}`
						: `={{ ${JSON.stringify(companyId)} }}`;
				const run = await runRows(engine, workflowRows, {
					onError: 'continueErrorOutput',
					parameters: { companyId: expression },
				});
				expect(run.errors).toHaveLength(1);
				expect(run.errors[0].json.error).toBe(message);
				expect(run.registered).toHaveLength(0);
				expect(sandbox.counters.lookups).toBe(0);
			},
		);

		it('a Max Concurrent Requests that an expression makes NaN fails every row with its own error, never passes rows on', async () => {
			const engine = engineFor(sandbox);
			const rows = [
				{ country: 'de', companyId: 'HRB12345' },
				{ country: 'gb', companyId: '09876543' },
			];
			const branches = await runRows(engine, rows, {
				onError: 'continueRegularOutput',
				options: { maxConcurrency: '={{ NaN }}' },
			});
			expectEachRowOnce(branches, 2);
			expect(branches.registered).toHaveLength(0);
			for (const item of branches.notRegistered)
				expect(item.json.error).toBe(
					'The option Max Concurrent Requests must be a number from 1 to 100, not NaN',
				);
		});

		it('Watch for Changes puts a broken id on its own error item, never on Changes as a raw row', async () => {
			const engine = engineFor(sandbox);
			const workflow = loadWorkflow('test/workflows/watch-companies.json');
			const node = workflow.nodes.find((candidate) => candidate.name === REGISTRY_NODE)!;
			node.onError = 'continueRegularOutput';
			const result = await engine.execute(workflow, {
				rows: [
					{ country: 'de', companyId: brokenId },
					{ country: 'de', companyId: 'HRB12345' },
				],
				mode: 'trigger',
			});
			const [changes = []] = result.outputOf(REGISTRY_NODE);
			expect(changes).toHaveLength(1);
			expect(changes[0]).toMatchObject({
				json: { error: 'Company ID contains a broken character (a lone UTF-16 surrogate)' },
				pairedItem: { item: 0 },
			});
		});
	});

	describe('a registry that keeps answering 429 cannot cause a retry storm or a hang', () => {
		it.each([
			['0', 'Retry-After: 0'],
			['-5', 'a negative Retry-After'],
			['Sat, 01 Jan 2000 00:00:00 GMT', 'a Retry-After date in the past (clock skew)'],
		])(
			'with %s (%s), one row always answered 429 spends its wait budget and fails: few requests',
			async (retryAfter) => {
				sandbox.setRetryAfterOverride(retryAfter);
				const engine = engineFor(sandbox);
				const branches = await runRows(engine, [{ country: 'de', companyId: 'HRB99429' }], {
					onError: 'continueErrorOutput',
					options: { maxRateLimitWait: 2 },
				});
				expect(branches.errors[0].json.error).toContain(
					'429 Too Many Requests beyond the Max Rate-Limit Wait of 2 s',
				);
				// A floor under every delay: 100, 200, 400, 800, 1000 ms ... never thousands of requests.
				expect(sandbox.counters.lookups).toBeLessThanOrEqual(8);
			},
		);

		it('a spent daily quota fails the remaining rows at once with 429, instead of waiting until midnight', async () => {
			sandbox.setRateLimit({ dailyQuota: 5 });
			const engine = engineFor(sandbox);
			const rows = Array.from({ length: 30 }, (_, index) => ({
				country: 'gb',
				companyId: String(40_000_000 + index),
			}));
			const branches = await runRows(engine, rows, { onError: 'continueErrorOutput' });
			expectEachRowOnce(branches, 30);
			expect(branches.notRegistered).toHaveLength(5);
			expect(branches.errors).toHaveLength(25);
			for (const item of branches.errors) expect(item.json.error).toContain('429');
			expect(String((branches.errors[0].json.details as IDataObject).description)).toContain(
				'a quota may be spent',
			);
			// No row is asked again: nothing waited for the quota to come back.
			expect(new Set(sandbox.lookupLog).size).toBe(sandbox.lookupLog.length);
		});

		it('a long Retry-After on one row fails that row at once and does not hold the healthy rows', async () => {
			sandbox.setRetryAfterOverride('20');
			const engine = engineFor(sandbox);
			const rows = [
				{ country: 'de', companyId: 'HRB99429' },
				...Array.from({ length: 40 }, (_, index) => ({
					country: 'gb',
					companyId: String(41_000_000 + index),
				})),
			];
			const branches = await runRows(engine, rows, {
				onError: 'continueErrorOutput',
				options: { maxRateLimitWait: 1 },
			});
			expectEachRowOnce(branches, 41);
			expect(branches.notRegistered).toHaveLength(40);
			expect(branches.errors).toHaveLength(1);
			// Asked once: its 429 was not waited out; no healthy row met a 429 (none was held behind it).
			expect(sandbox.lookupLog.filter((target) => target.includes('HRB99429'))).toHaveLength(1);
			expect(sandbox.counters.lookupsByStatus[429]).toBe(1);
		});

		it('a Retry-After beyond what a timer can hold (3,000,000 s) neither spins nor waits', async () => {
			sandbox.setRetryAfterOverride('3000000');
			const warnings: string[] = [];
			const onWarning = (warning: Error) => warnings.push(warning.name);
			process.on('warning', onWarning);
			try {
				const engine = engineFor(sandbox);
				const branches = await runRows(
					engine,
					[
						{ country: 'de', companyId: 'HRB99429' },
						{ country: 'de', companyId: 'HRB12345' },
					],
					{
						onError: 'continueErrorOutput',
					},
				);
				expect(branches.errors).toHaveLength(1);
				expect(branches.registered).toHaveLength(1);
				// Asked once, not again after a wait.
				expect(sandbox.lookupLog.filter((target) => target.includes('HRB99429'))).toHaveLength(1);
				await new Promise((resolve) => setTimeout(resolve, 100));
				expect(warnings).not.toContain('TimeoutOverflowWarning');
			} finally {
				process.off('warning', onWarning);
			}
		});
	});

	describe('credentials never leave for another origin', () => {
		let elsewhere: Awaited<ReturnType<typeof recordingServer>>;
		beforeEach(async () => {
			elsewhere = await recordingServer();
		});
		afterEach(async () => await elsewhere.close());

		it.each([301, 302, 307, 308] as const)(
			'a lookup redirected (%s) to another host fails, and that host never sees the token',
			async (status) => {
				const engine = engineFor(sandbox);
				await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }]); // a token is stored
				sandbox.setRedirect({ route: 'lookup', status, location: `${elsewhere.url}{path}` });
				const branches = await runRows(engine, [{ country: 'de', companyId: 'HRB00000' }], {
					onError: 'continueErrorOutput',
				});
				expect(branches.registered).toHaveLength(0);
				expect(branches.errors[0].json.error).toBe(
					`The registry answered with a redirect (HTTP ${status}) to ${elsewhere.url}/v1/company/de/HRB00000, which the node does not follow`,
				);
				expect(elsewhere.received).toHaveLength(0);
			},
		);

		it.each([301, 302, 307, 308] as const)(
			'a token endpoint that redirects (%s) gets no secret sent on, and no token is taken from elsewhere',
			async (status) => {
				sandbox.setRedirect({ route: 'token', status, location: `${elsewhere.url}/oauth/token` });
				const engine = engineFor(sandbox);
				const branches = await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }], {
					onError: 'continueErrorOutput',
				});
				expect(branches.registered).toHaveLength(0);
				expect(branches.errors[0].json.error).toContain(
					`answered with a redirect (HTTP ${status}), which is not followed`,
				);
				expect(elsewhere.received).toHaveLength(0);
				expect(engine.credentials.stored(CREDENTIAL_ID)?.accessToken ?? '').toBe('');
			},
		);
	});

	describe('server text cannot leak secrets', () => {
		it.each(['error_description', 'error'] as const)(
			'a token endpoint that echoes the request in %s does not put the secret in the error',
			async (field) => {
				sandbox.setEcho({ route: 'token', field });
				const engine = engineFor(sandbox);
				const { result, errors } = await runRows(
					engine,
					[{ country: 'de', companyId: 'HRB12345' }],
					{ onError: 'continueErrorOutput' },
				);
				expect(errors).toHaveLength(1);
				expect(everything(result, engine.logs)).not.toContain(DEMO_CLIENT.clientSecret);
			},
		);

		it.each([400, 403, 418, 500, 200] as const)(
			'a lookup answer (%s) that echoes the Authorization header shows no token',
			async (status) => {
				const engine = engineFor(sandbox);
				await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }]);
				const token = String(engine.credentials.stored(CREDENTIAL_ID)?.accessToken);
				sandbox.setEcho({ route: 'lookup', status });
				const { result, errors } = await runRows(
					engine,
					[{ country: 'de', companyId: 'HRB00000' }],
					{ onError: 'continueErrorOutput', options: { maxAttempts: 1 } },
				);
				expect(errors).toHaveLength(1);
				const all = everything(result, engine.logs);
				expect(all).not.toContain(token);
				expect(all).not.toContain(token.split('.')[2]);
			},
		);

		it('a 200 KB server message is cut, and the token in its middle does not survive the cut', async () => {
			const engine = engineFor(sandbox);
			await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }]);
			const token = String(engine.credentials.stored(CREDENTIAL_ID)?.accessToken);
			sandbox.setEcho({ route: 'lookup', status: 400, messageBytes: 200_000 });
			const { result, errors } = await runRows(engine, [{ country: 'de', companyId: 'HRB00000' }], {
				onError: 'continueErrorOutput',
			});
			expect(String(errors[0].json.error).length).toBeLessThan(500);
			expect(everything(result, engine.logs)).not.toContain(token.slice(0, 40));
		});

		it('user information in the Auth URL never appears in a message', async () => {
			const engine = engineFor(sandbox, { authUrl: 'http://user:hunter2-password@127.0.0.1:9' });
			const { result, errors } = await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }], {
				onError: 'continueErrorOutput',
			});
			expect(errors[0].json.error).toContain(
				'Could not reach the Auth URL http://127.0.0.1:9/oauth/token',
			);
			expect(everything(result, engine.logs)).not.toContain('hunter2-password');
		});

		it('CR/LF and bidi controls in a server message are shown escaped', async () => {
			// A registry whose 400 message carries a forged line and a right-to-left override.
			const registry = createServer((request, response) => {
				request.resume();
				response.writeHead(request.url === '/oauth/token' ? 200 : 400, {
					'content-type': 'application/json',
				});
				const body =
					request.url === '/oauth/token'
						? {
								access_token: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ0ZXN0In0.',
								token_type: 'Bearer',
								expires_in: 3600,
							}
						: { error: 'InvalidInputException', message: 'Bad id\r\nX-Forged: yes \u202Egpj.exe' };
				response.end(JSON.stringify(body));
			});
			await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', () => resolve()));
			try {
				const url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
				const engine = engineFor(sandbox, { baseUrl: url, authUrl: url });
				const branches = await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }], {
					onError: 'continueErrorOutput',
				});
				const error = String(branches.errors[0].json.error);
				expect(error).toContain('Bad id\\u{D}\\u{A}X-Forged: yes \\u{202E}gpj.exe');
				expect(error).not.toMatch(/[\r\n\u202E]/);
			} finally {
				registry.closeAllConnections();
				await new Promise<void>((resolve) => registry.close(() => resolve()));
			}
		});
	});

	describe('a token the registry refuses for good', () => {
		it('costs one token request and at most one lookup per row, then every row fails with the 401 message', async () => {
			sandbox.setPermanent401(true);
			const engine = engineFor(sandbox);
			const rows = Array.from({ length: 60 }, (_, index) => ({
				country: 'gb',
				companyId: String(42_000_000 + index),
			}));
			const branches = await runRows(engine, rows, { onError: 'continueErrorOutput' });
			expectEachRowOnce(branches, 60);
			expect(branches.errors).toHaveLength(60);
			// Only one token was fetched: the message does not claim a second one (issue 21).
			for (const item of branches.errors)
				expect(item.json.error).toBe(
					'The registry rejected the access token the token endpoint had just issued (HTTP 401)',
				);
			expect(sandbox.counters.tokenRequests).toBe(1);
			expect(sandbox.counters.lookups).toBeLessThanOrEqual(60);
		});

		it('with a token stored from an earlier run: one renewal, then the same', async () => {
			const engine = engineFor(sandbox);
			await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }]);
			sandbox.resetCounters();
			sandbox.setPermanent401(true);
			const rows = Array.from({ length: 60 }, (_, index) => ({
				country: 'gb',
				companyId: String(43_000_000 + index),
			}));
			const branches = await runRows(engine, rows, { onError: 'continueErrorOutput' });
			expect(branches.errors).toHaveLength(60);
			expect(sandbox.counters.tokenRequests).toBe(1);
			expect(sandbox.counters.lookups).toBeLessThanOrEqual(61);
		});
	});

	describe('smaller promises', () => {
		it('Request Timeout is a deadline for the whole answer: a body trickled over 5 s fails a 1 s timeout in about 1 s', async () => {
			sandbox.setFaults({ trickleMs: 5000 });
			const engine = engineFor(sandbox);
			const branches = await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }], {
				onError: 'continueErrorOutput',
				options: { timeout: 1, maxAttempts: 1 },
			});
			// A timeout per read would have let the trickle (a few bytes every few ms) finish: a registered row.
			expect(branches.errors[0].json.error).toBe('The Company Registry did not answer within 1 s');
			expect(branches.registered).toEqual([]);
		});

		it('under Stop, the first failure cancels the lookups still queued', async () => {
			sandbox.setRateLimit({ ratePerSecond: 20, burst: 5 });
			const engine = engineFor(sandbox);
			const rows = [
				{ country: 'de', companyId: 'HRB99404' },
				...Array.from({ length: 99 }, (_, index) => ({
					country: 'gb',
					companyId: String(44_000_000 + index),
				})),
			];
			const { result } = await runRows(engine, rows, { options: { maxConcurrency: 5 } });
			expect(result.errorOf(REGISTRY_NODE)?.message).toContain('HTTP 404');
			// The first request goes alone; what was in flight when 404 came back is all that follows.
			expect(sandbox.counters.lookups).toBeLessThanOrEqual(12);
		});
	});
});

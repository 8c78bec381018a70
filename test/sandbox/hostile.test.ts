import { request as httpRequest } from 'node:http';

import { DEMO_CLIENT, startSandbox, type Sandbox } from '../../sandbox/server';
import { lookup, rawRequest, requestToken, tokenFor, type RawResponse } from './client';

// Issue 9: the sandbox misbehaves the way real services do, so the node's defences can be tested.
describe('sandbox misbehaviour', () => {
	let sandbox: Sandbox;
	let token: string;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, faults: { slowMs: 300 } });
		token = await tokenFor(sandbox);
	});
	afterEach(() => sandbox.resetAll());
	afterAll(async () => await sandbox.close());

	const get = async (path = '/v1/company/de/HRB12345') => await lookup(sandbox, path, token);

	describe('transient faults', () => {
		it('share502 answers 502', async () => {
			sandbox.setFaults({ share502: 1 });
			expect((await get()).status).toBe(502);
		});

		it('share503 answers 503 with Retry-After: 1, or without it when the format is none', async () => {
			sandbox.setFaults({ share503: 1 });
			const response = await get();
			expect(response.status).toBe(503);
			expect(response.headers['retry-after']).toBe('1');
			sandbox.setRetryAfterFormat('none');
			const bare = await get();
			expect(bare.status).toBe(503);
			expect(bare.headers['retry-after']).toBeUndefined();
		});

		it('shareTimeout holds a good answer back slowMs', async () => {
			sandbox.setFaults({ shareTimeout: 1 });
			const started = Date.now();
			const response = await get();
			expect(Date.now() - started).toBeGreaterThanOrEqual(290);
			expect(response.status).toBe(200);
			expect(response.json.officialName).toBe('Müller & Söhne Präzisionsteile GmbH');
		});

		it('shareDrop resets the connection and counts it under status 0', async () => {
			sandbox.resetCounters();
			sandbox.setFaults({ shareDrop: 1 });
			await expect(get()).rejects.toThrow(/socket hang up|ECONNRESET/);
			expect(sandbox.counters.lookupsByStatus[0]).toBe(1);
		});

		const paths = Array.from(
			{ length: 200 },
			(_, index) => `/v1/company/de/HRB${String(10_000 + index)}`,
		);
		const failing = async (order: string[]) => {
			const failed = new Set<string>();
			for (const path of order) if ((await get(path)).status !== 200) failed.add(path);
			return failed;
		};

		it('faultRepeats: a path picked for a fault fails its first N requests, then succeeds', async () => {
			sandbox.setFaults({ share500: 0.1, share503: 0.1, faultRepeats: 2 });
			const first = await failing(paths);
			expect(first.size).toBeGreaterThan(20);
			expect(first.size).toBeLessThan(60);
			expect(await failing(paths)).toEqual(first);
			expect((await failing(paths)).size).toBe(0);
		});

		it('faultRepeats: the same paths fail whatever the request order (same seed)', async () => {
			sandbox.setFaults({ share500: 0.2, faultRepeats: 1 });
			const forwards = await failing(paths);
			const other = await startSandbox({ port: 0, faults: { share500: 0.2, faultRepeats: 1 } });
			try {
				const otherToken = await tokenFor(other);
				const backwards = new Set<string>();
				for (const path of [...paths].reverse()) {
					if ((await lookup(other, path, otherToken)).status !== 200) backwards.add(path);
				}
				expect(backwards).toEqual(forwards);
			} finally {
				await other.close();
			}
		});

		it('without faultRepeats every request rolls its own dice', async () => {
			sandbox.setFaults({ share500: 0.5 });
			const statuses = new Set<number>();
			for (let index = 0; index < 40; index++) statuses.add((await get()).status);
			expect(statuses).toEqual(new Set([200, 500]));
		});
	});

	it('trickleMs sends the headers at once and the body over that time', async () => {
		sandbox.setFaults({ trickleMs: 600 });
		const started = Date.now();
		const timing = await new Promise<{ headersAt: number; endAt: number; text: string }>(
			(resolve, reject) => {
				const request = httpRequest(
					{
						host: '127.0.0.1',
						port: sandbox.port,
						path: '/v1/company/de/HRB12345',
						headers: { authorization: `Bearer ${token}` },
					},
					(response) => {
						const headersAt = Date.now() - started;
						const chunks: Buffer[] = [];
						response.on('data', (chunk: Buffer) => chunks.push(chunk));
						response.on('end', () =>
							resolve({
								headersAt,
								endAt: Date.now() - started,
								text: Buffer.concat(chunks).toString('utf8'),
							}),
						);
					},
				);
				request.on('error', reject);
				request.end();
			},
		);
		expect(timing.headersAt).toBeLessThan(300);
		expect(timing.endAt).toBeGreaterThanOrEqual(550);
		expect(JSON.parse(timing.text).isRegistered).toBe(true);
	});

	describe('registry down', () => {
		it("'refuse' destroys lookup and token connections unanswered", async () => {
			sandbox.resetCounters();
			sandbox.setRegistryDown('refuse');
			await expect(get()).rejects.toThrow(/socket hang up|ECONNRESET/);
			await expect(requestToken(sandbox)).rejects.toThrow(/socket hang up|ECONNRESET/);
			expect(sandbox.counters.lookupsByStatus[0]).toBe(1);
			expect(sandbox.counters.tokenRequests).toBe(1);
			sandbox.setRegistryDown(undefined);
			expect((await get()).status).toBe(200);
		});

		it("'503' answers every lookup 503 without Retry-After, before checking the token", async () => {
			sandbox.setRegistryDown('503');
			const response = await rawRequest(sandbox, 'GET', '/v1/company/de/HRB12345');
			expect(response.status).toBe(503);
			expect(response.headers['retry-after']).toBeUndefined();
			expect((await requestToken(sandbox)).status).toBe(200);
		});
	});

	describe('redirects', () => {
		it.each([301, 302, 307, 308] as const)(
			'the lookup route answers %d to another origin',
			async (status) => {
				sandbox.setRedirect({ route: 'lookup', status, location: 'http://127.0.0.1:9/elsewhere' });
				const response = await get();
				expect(response.status).toBe(status);
				expect(response.headers.location).toBe('http://127.0.0.1:9/elsewhere');
				expect((await requestToken(sandbox)).status).toBe(200);
			},
		);

		it('the token route answers with the redirect, {path} carries the request target', async () => {
			sandbox.setRedirect({ route: 'token', status: 307, location: 'http://127.0.0.1:9{path}' });
			const response = await requestToken(sandbox);
			expect(response.status).toBe(307);
			expect(response.headers.location).toBe('http://127.0.0.1:9/oauth/token');
			expect((await get()).status).toBe(200);
		});
	});

	describe('echoes', () => {
		it.each([400, 403, 418, 500] as const)(
			'a lookup %d whose message holds the Authorization header',
			async (status) => {
				sandbox.setEcho({ route: 'lookup', status });
				const response = await get();
				expect(response.status).toBe(status);
				expect(response.json.message).toContain(`Bearer ${token}`);
			},
		);

		it('a lookup 200 whose status is the Authorization header', async () => {
			sandbox.setEcho({ route: 'lookup', status: 200 });
			const response = await get();
			expect(response.status).toBe(200);
			expect(response.json).toMatchObject({ isRegistered: true, status: `Bearer ${token}` });
		});

		it('a lookup 400 with a message of messageBytes, the header in its middle', async () => {
			sandbox.setEcho({ route: 'lookup', status: 400, messageBytes: 200_000 });
			const { json } = await get();
			expect(json.message).toHaveLength(200_000);
			const at = (json.message as string).indexOf(`Bearer ${token}`);
			expect(at).toBeGreaterThan(90_000);
			expect(at).toBeLessThan(100_000);
		});

		it.each(['error_description', 'error'] as const)(
			'a token 400 whose %s echoes the body with the secret',
			async (field) => {
				sandbox.setEcho({ route: 'token', field });
				const response: RawResponse = await requestToken(sandbox);
				expect(response.status).toBe(400);
				expect(response.json[field]).toContain(DEMO_CLIENT.clientSecret);
				if (field === 'error') expect(response.json.error_description).toBeUndefined();
			},
		);
	});

	it('permanent 401: tokens are issued, every lookup is refused as invalid_token', async () => {
		sandbox.setPermanent401(true);
		const fresh = await tokenFor(sandbox);
		const response = await lookup(sandbox, '/v1/company/de/HRB12345', fresh);
		expect(response.status).toBe(401);
		expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
		sandbox.setPermanent401(false);
		expect((await lookup(sandbox, '/v1/company/de/HRB12345', fresh)).status).toBe(200);
	});

	it('resetAll ends every misbehaviour at once', async () => {
		sandbox.setFaults({ share500: 1, trickleMs: 5000 });
		sandbox.setEcho({ route: 'lookup', status: 418 });
		sandbox.setRedirect({ route: 'token', status: 302, location: 'http://127.0.0.1:9/' });
		sandbox.setPermanent401(true);
		sandbox.setRegistryDown('503');
		sandbox.resetAll();
		expect((await requestToken(sandbox)).status).toBe(200);
		expect((await get()).status).toBe(200);
	});

	it('the lookup log keeps the last 10,000 targets', async () => {
		// 9,950 targets already logged, then 100 requests: the log overflows by 50, and the oldest go.
		sandbox.lookupLog.length = 0;
		sandbox.lookupLog.push(...Array.from({ length: 9_950 }, (_, index) => `/earlier/${index}`));
		const targets = Array.from({ length: 100 }, (_, index) => `/nowhere/${index}`);
		await Promise.all(targets.map(async (target) => await rawRequest(sandbox, 'GET', target)));
		expect(sandbox.lookupLog).toHaveLength(10_000);
		expect(sandbox.lookupLog[0]).toBe('/earlier/50');
		expect(sandbox.lookupLog.slice(-100).sort()).toEqual([...targets].sort());
	});
});

import { FAULT_IDS, startSandbox, type Sandbox } from '../../sandbox/server';
import { lookup, tokenFor } from './client';

// Section 8 (limits) and the public service notes ("Rate limits"), plus the fault injection tests rely on.
describe('sandbox rate limits', () => {
	let sandbox: Sandbox;
	let token: string;
	beforeEach(async () => {
		sandbox = await startSandbox({ port: 0, rateLimit: { ratePerSecond: 1, burst: 3 } });
		token = await tokenFor(sandbox);
	});
	afterEach(async () => await sandbox.close());

	const burst = async (count: number) =>
		await Promise.all(
			Array.from(
				{ length: count },
				async () => await lookup(sandbox, '/v1/company/de/HRB12345', token),
			),
		);

	it('8.2: over the token bucket a lookup gets 429 with the documented body and headers', async () => {
		const responses = await burst(5);
		const statuses = responses.map((response) => response.status).sort();
		expect(statuses).toEqual([200, 200, 200, 429, 429]);
		const ok = responses.find((response) => response.status === 200)!;
		expect(ok.headers['x-ratelimit-limit']).toBe('3');
		expect(Number(ok.headers['x-ratelimit-remaining'])).toBeLessThanOrEqual(2);
		const limited = responses.find((response) => response.status === 429)!;
		expect(limited.json).toEqual({
			message: 'Rate limit exceeded. Please wait and try again later.',
		});
		expect(limited.headers['retry-after']).toBe('1');
		expect(limited.headers['x-ratelimit-remaining']).toBe('0');
		expect(limited.headers['x-ratelimit-limit']).toBe('3');
	});

	it('refills at the configured rate', async () => {
		await burst(3);
		expect((await burst(1))[0].status).toBe(429);
		await new Promise((resolve) => setTimeout(resolve, 1100));
		expect((await burst(1))[0].status).toBe(200);
	});

	it('can give Retry-After as an HTTP date, or leave it out', async () => {
		sandbox.setRetryAfterFormat('http-date');
		const dated = (await burst(4)).find((response) => response.status === 429)!;
		const retryAt = Date.parse(dated.headers['retry-after'] as string);
		expect(retryAt).toBeGreaterThan(Date.now());
		expect(retryAt - Date.now()).toBeLessThan(5000);
		sandbox.setRetryAfterFormat('none');
		const bare = (await burst(1))[0];
		expect(bare.status).toBe(429);
		expect(bare.headers['retry-after']).toBeUndefined();
	});

	it('setRateLimit changes the limit while running', async () => {
		sandbox.setRateLimit({ ratePerSecond: 100, burst: 10 });
		expect((await burst(10)).every((response) => response.status === 200)).toBe(true);
	});

	it('a daily quota is answered with 429 and a Retry-After up to midnight UTC', async () => {
		sandbox.setRateLimit({ ratePerSecond: 100, burst: 100, dailyQuota: 2 });
		const responses = await burst(3);
		const limited = responses.find((response) => response.status === 429)!;
		expect(responses.filter((response) => response.status === 200)).toHaveLength(2);
		expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
		expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(86_400);
	});

	it('can send the X-RateLimit headers only on 429s, as some services do', async () => {
		sandbox.setRateLimitHeaders('429-only');
		const responses = await burst(4);
		const ok = responses.find((response) => response.status === 200)!;
		const limited = responses.find((response) => response.status === 429)!;
		expect(ok.headers['x-ratelimit-remaining']).toBeUndefined();
		expect(limited.headers['x-ratelimit-remaining']).toBe('0');
	});

	it('rate limits per client: revoking tokens does not reset the bucket', async () => {
		await burst(3);
		sandbox.revokeAllTokens();
		token = await tokenFor(sandbox);
		expect((await burst(1))[0].status).toBe(429);
	});
});

describe('sandbox faults', () => {
	let sandbox: Sandbox;
	let token: string;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, faults: { slowMs: 300 } });
		token = await tokenFor(sandbox);
	});
	afterAll(async () => await sandbox.close());

	it.each([
		['HRB99500', 500, { error: 'InternalFailureException' }],
		['HRB99504', 504, {}],
		['HRB99429', 429, { message: 'Rate limit exceeded. Please wait and try again later.' }],
		['HRB99403', 403, { error: 'AccessDeniedException' }],
		['HRB99404', 404, { error: 'NotFoundException' }],
		['HRB99418', 418, {}],
	])('reserved id de/%s answers %d', async (id, status, body) => {
		const response = await lookup(sandbox, `/v1/company/de/${id}`, token);
		expect(response.status).toBe(status);
		expect(response.json).toMatchObject(body);
	});

	it('reserved id de/HRB99901 drops the connection', async () => {
		await expect(lookup(sandbox, '/v1/company/de/HRB99901', token)).rejects.toThrow(
			/socket hang up|ECONNRESET/,
		);
	});

	it('reserved id de/HRB99902 answers 200 with a body that is not JSON', async () => {
		const response = await lookup(sandbox, '/v1/company/de/HRB99902', token);
		expect(response.status).toBe(200);
		expect(response.json).toBeUndefined();
	});

	it('reserved ids de/HRB99903 and de/HRB99904 break the record contract of 2.1', async () => {
		expect((await lookup(sandbox, '/v1/company/de/HRB99903', token)).json.status).toBe('Dissolved');
		expect((await lookup(sandbox, '/v1/company/de/HRB99904', token)).json.registrationDate).toBe(
			'17/04/1998',
		);
	});

	it('reserved id de/HRB99905 answers after slowMs', async () => {
		const started = Date.now();
		const response = await lookup(sandbox, '/v1/company/de/HRB99905', token);
		expect(Date.now() - started).toBeGreaterThanOrEqual(290);
		expect(response.json.isRegistered).toBe(false);
	});

	it('every reserved id is documented and well-formed', () => {
		for (const id of Object.keys(FAULT_IDS)) expect(id).toMatch(/^HRB99\d{3}$/);
		expect(Object.keys(FAULT_IDS)).toHaveLength(11);
	});

	it('shares of faults apply to ordinary lookups, and can be switched off again', async () => {
		sandbox.setFaults({ share500: 1 });
		expect((await lookup(sandbox, '/v1/company/de/HRB12345', token)).status).toBe(500);
		sandbox.setFaults({ share500: 0, share504: 1 });
		expect((await lookup(sandbox, '/v1/company/de/HRB12345', token)).status).toBe(504);
		sandbox.setFaults({ share504: 0, shareMalformed: 1 });
		expect((await lookup(sandbox, '/v1/company/de/HRB12345', token)).json).toBeUndefined();
		sandbox.setFaults({ shareMalformed: 0, shareContractBreak: 1 });
		const broken = (await lookup(sandbox, '/v1/company/de/HRB12345', token)).json;
		expect(broken.status === 'Dissolved' || broken.registrationDate === '17/04/1998').toBe(true);
		sandbox.setFaults({ shareContractBreak: 0, shareDrop: 1 });
		await expect(lookup(sandbox, '/v1/company/de/HRB12345', token)).rejects.toThrow();
		sandbox.setFaults({ shareDrop: 0 });
		expect((await lookup(sandbox, '/v1/company/de/HRB12345', token)).status).toBe(200);
	});

	it('a share between 0 and 1 hits about that share of lookups', async () => {
		sandbox.setFaults({ share500: 0.3 });
		const responses = [];
		for (let index = 0; index < 200; index++)
			responses.push(await lookup(sandbox, '/v1/company/de/HRB12345', token));
		sandbox.setFaults({ share500: 0 });
		const failures = responses.filter((response) => response.status === 500).length;
		expect(failures).toBeGreaterThan(30);
		expect(failures).toBeLessThan(90);
	});

	it('adds latency with jitter', async () => {
		sandbox.setFaults({ latencyMs: 100, jitterMs: 50 });
		const started = Date.now();
		await lookup(sandbox, '/v1/company/de/HRB12345', token);
		const took = Date.now() - started;
		sandbox.setFaults({ latencyMs: 0, jitterMs: 0 });
		expect(took).toBeGreaterThanOrEqual(99);
		expect(took).toBeLessThan(1000);
	});
});

import { gzipSync } from 'node:zlib';

import { CREDENTIAL_ID, expectEachRowOnce, runRows } from '../../harness/fixtures';
import {
	endlessJson,
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	SCRIPTED_TOKEN,
	type ScriptedRegistry,
} from '../support/scriptedRegistry';
import { scriptedEngine } from '../support/scriptedEngine';

// Issue 21: no answer, however large, compressed or slow, may exhaust n8n's memory or keep a socket.
// A company record is under 2 KB; the node reads at most MAX_ANSWER_BYTES of any answer (after
// decompression) and ends every request it no longer waits for.

const rows = (count: number, offset = 0) =>
	Array.from({ length: count }, (_, index) => ({
		country: 'gb',
		companyId: String(60_000_000 + offset + index),
	}));

describe('bounded answers', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it('a gzip answer inflating to 20 MB fails its row with the size, and nothing leaves by Registered', async () => {
		const bomb = gzipSync(JSON.stringify({ ...GOOD_RECORD, filler: 'x'.repeat(20 * 1024 * 1024) }));
		expect(bomb.length).toBeLessThan(100_000);
		registry.lookup = (_request, response) => {
			response.writeHead(200, {
				'content-type': 'application/json',
				'content-encoding': 'gzip',
				'content-length': bomb.length,
			});
			response.end(bomb);
		};
		const branches = await runRows(scriptedEngine(registry), rows(3), {
			onError: 'continueErrorOutput',
		});
		expectEachRowOnce(branches, 3);
		expect(branches.registered).toHaveLength(0);
		for (const item of branches.errors) {
			expect(item.json.error).toBe(
				"The registry's answer is larger than 64 KB after decompression; it was not read (a company record is under 2 KB)",
			);
		}
	});

	it('an endless body is read no further than the cap: the registry gets to write only a few MB of 200 MB', async () => {
		const written: Array<Promise<number>> = [];
		registry.lookup = (_request, response) =>
			void written.push(endlessJson(response, 200 * 1024 * 1024));
		const branches = await runRows(scriptedEngine(registry), rows(2), {
			onError: 'continueErrorOutput',
		});
		expect(branches.errors.map((item) => item.json.error)).toEqual([
			"The registry's answer is larger than 64 KB after decompression; it was not read (a company record is under 2 KB)",
			"The registry's answer is larger than 64 KB after decompression; it was not read (a company record is under 2 KB)",
		]);
		for (const bytes of await Promise.all(written)) expect(bytes).toBeLessThan(8 * 1024 * 1024);
	});

	it('a declared Content-Length above the cap fails at once, naming it', async () => {
		registry.lookup = (_request, response) => {
			response.writeHead(200, {
				'content-type': 'application/json',
				'content-length': 10 * 1024 * 1024,
			});
			response.write('{"isRegistered":true');
		};
		const branches = await runRows(scriptedEngine(registry), rows(1), {
			onError: 'continueErrorOutput',
		});
		expect(branches.errors[0].json.error).toBe(
			"The registry's answer is larger than 64 KB (Content-Length 10485760 bytes); it was not read (a company record is under 2 KB)",
		);
		expect(await registry.socketsClosed(500)).toBe(0);
	});

	it('a token endpoint answering 20 MB (gzip) fails every row with the size, and stores no token', async () => {
		const bomb = gzipSync(
			JSON.stringify({ access_token: SCRIPTED_TOKEN, filler: 'x'.repeat(20 * 1024 * 1024) }),
		);
		registry.token = (_request, response) => {
			response.writeHead(200, {
				'content-type': 'application/json',
				'content-encoding': 'gzip',
				'content-length': bomb.length,
			});
			response.end(bomb);
		};
		const engine = scriptedEngine(registry);
		const branches = await runRows(engine, rows(2), { onError: 'continueErrorOutput' });
		expectEachRowOnce(branches, 2);
		for (const item of branches.errors) {
			expect(item.json.error).toBe(
				`The token endpoint ${registry.url}/oauth/token answered with more than 64 KB after decompression; a token answer is a few KB. Check the credential's Auth URL.`,
			);
		}
		expect(registry.lookups).toBe(0);
		expect(engine.credentials.stored(CREDENTIAL_ID)?.accessToken ?? '').toBe('');
	});

	it('an ordinary answer still passes: a record, and a 404 with its message', async () => {
		registry.lookup = (request, response) =>
			request.url?.endsWith('60000001')
				? json(response, 404, { message: 'No such route' })
				: json(response, 200, GOOD_RECORD);
		const branches = await runRows(scriptedEngine(registry), rows(2), {
			onError: 'continueErrorOutput',
		});
		expect(branches.registered.map((item) => item.json.officialName)).toEqual(['Scripted GmbH']);
		expect(branches.errors[0].json.error).toContain('HTTP 404');
	});
});

describe('no request outlives the execution', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it('headers, then one body byte every 500 ms, 2 s timeout: every row fails, and no socket is left open', async () => {
		registry.lookup = (_request, response) => {
			response.writeHead(200, { 'content-type': 'application/json', 'content-length': 400 });
			response.flushHeaders();
			const timer = setInterval(
				() => (response.destroyed ? clearInterval(timer) : response.write(' ')),
				500,
			);
			response.on('close', () => clearInterval(timer));
		};
		const branches = await runRows(scriptedEngine(registry), rows(8), {
			onError: 'continueErrorOutput',
			options: { timeout: 2, maxAttempts: 1 },
		});
		expectEachRowOnce(branches, 8);
		expect(branches.errors).toHaveLength(8);
		for (const item of branches.errors)
			expect(item.json.error).toBe('The Company Registry did not answer within 2 s');
		expect(await registry.socketsClosed(500)).toBe(0);
	});

	it('no headers within the timeout: the request is ended too', async () => {
		registry.lookup = () => {
			// Never answers.
		};
		const branches = await runRows(scriptedEngine(registry), rows(3), {
			onError: 'continueErrorOutput',
			options: { timeout: 1, maxAttempts: 1 },
		});
		expect(branches.errors).toHaveLength(3);
		expect(await registry.socketsClosed(500)).toBe(0);
	});
});

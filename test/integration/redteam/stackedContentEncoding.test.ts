import { brotliCompressSync, gzipSync } from 'node:zlib';

import { runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine, lookUpTwoRows } from '../../support/scriptedEngine';

// Red team: HTTP lets an answer carry two codings at once (`Content-Encoding: gzip, br`, a CDN that
// compresses an answer the registry already compressed), or one n8n's HTTP client does not decode
// (`aes128gcm`; `zstd` too where Node.js has no zstd, before 22.15: the cases use codings no Node.js decodes). n8n hands such a body over as it came: each row failed with "not a valid company record:
// the response body is not a JSON object: "\u000bE�\u001f�…"", 300 characters of compressed bytes as the
// message, which names neither the coding nor what to do. It now names the Content-Encoding. A body
// that is JSON in spite of its label (a wrong header on a plain answer) is still read.

describe('an answer in a Content-Encoding the node does not decode', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));
	const plain = JSON.stringify(GOOD_RECORD);

	it.each([
		['gzip, br', brotliCompressSync(gzipSync(plain))],
		['aes128gcm', gzipSync(plain)],
	])('labelled %s: each row fails naming it, with none of the bytes', async (encoding, body) => {
		registry.lookup = (_request, response) => {
			response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
			response.end(body);
		};
		const { registered, notRegistered, errors } = await lookUpTwoRows(registry);
		expect([...registered, ...notRegistered]).toEqual([]);
		expect(errors.map((item) => [item.pairedItem, item.json.error])).toEqual([
			[
				{ item: 0 },
				"The registry's answer is in a Content-Encoding the node cannot read (HTTP 200)",
			],
			[
				{ item: 1 },
				"The registry's answer is in a Content-Encoding the node cannot read (HTTP 200)",
			],
		]);
		for (const item of errors)
			expect((item.json.details as { description: string }).description).toContain(
				`Its Content-Encoding ${encoding} is not one coding n8n's HTTP client decodes`,
			);
		// The same answer again would not be readable either.
		expect(registry.lookups).toBe(2);
	});

	it('a plain JSON answer under a label the node does not decode is read', async () => {
		registry.lookup = (_request, response) => {
			response.writeHead(200, {
				'content-type': 'application/json',
				'content-encoding': 'aes128gcm',
			});
			response.end(plain);
		};
		const engine = scriptedEngine(registry);
		const { registered, errors } = await runRows(engine, [{ country: 'de', companyId: 'HRB1' }], {
			onError: 'continueErrorOutput',
		});
		expect(errors).toEqual([]);
		expect(registered.map((item) => item.json.officialName)).toEqual([GOOD_RECORD.officialName]);
	});
});

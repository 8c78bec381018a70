import { runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: a registry (or a proxy before it) that labels a plain answer `Content-Encoding: gzip`, or
// sends a broken one, was reported as "Could not reach the Company Registry", though it had answered:
// the user was sent to check the Base URL and the network, which were fine, and each row was asked
// three times for the same undecodable answer.

describe('an answer whose Content-Encoding is a lie', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it.each([
		['gzip', 'gzip'],
		['br', 'br'],
		['deflate', 'deflate'],
	])(
		'labelled %s: the error says the answer could not be decompressed',
		async (_label, encoding) => {
			registry.lookup = (_request, response) => {
				response.writeHead(200, {
					'content-type': 'application/json',
					'content-encoding': encoding,
				});
				response.end(JSON.stringify(GOOD_RECORD));
			};
			const engine = scriptedEngine(registry);
			const { errors } = await runRows(engine, [{ country: 'de', companyId: 'HRB1' }], {
				onError: 'continueErrorOutput',
			});
			expect(errors).toHaveLength(1);
			// The same answer again would not decompress either.
			expect(registry.lookups).toBe(1);
			expect(String(errors[0].json.error)).toBe(
				"The registry's answer could not be decompressed: it is not in the Content-Encoding it names (HTTP 200)",
			);
		},
	);
});

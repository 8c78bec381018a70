import { testCredential } from '../../../harness/credentialsTester';
import { CREDENTIAL_ID, engineFor } from '../../../harness/fixtures';
import {
	endlessJson,
	scriptedRegistry,
	SCRIPTED_TOKEN,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: the credential's Test is a lookup too, but it is not read through the node's bounded
// transport: n8n's RoutingNode reads its answer whole (maxContentLength Infinity), in the main process,
// and n8n shows a refused status's reason phrase as the Test's message, as the server wrote it.

describe("the credential's Test against a misbehaving registry", () => {
	let registry: ScriptedRegistry;
	beforeEach(async () => {
		registry = await scriptedRegistry();
	});
	afterEach(async () => await registry.close());

	it('reads no more of an oversized answer than a lookup would (64 KB)', async () => {
		let written: Promise<number> | undefined;
		registry.lookup = (_request, response) => {
			written = endlessJson(response, 32 * 1024 * 1024);
		};
		const engine = engineFor({ baseUrl: registry.url, authUrl: registry.url });
		const result = await testCredential(engine, CREDENTIAL_ID);
		expect(result.status).toBe('Error');
		// What the server got out before n8n hung up: the Test's whole answer was read into memory.
		expect(await written).toBeLessThan(1024 * 1024);
	});

	it('shows no token a registry echoes in its reason phrase', async () => {
		registry.lookup = (request, response) => {
			response.writeHead(418, `Refused ${String(request.headers.authorization)}`, {
				'content-type': 'application/json',
			});
			response.end('{}');
		};
		const engine = engineFor({ baseUrl: registry.url, authUrl: registry.url });
		const result = await testCredential(engine, CREDENTIAL_ID);
		expect(result.status).toBe('Error');
		expect(result.message).not.toContain(SCRIPTED_TOKEN.split('.')[2]);
	});
});

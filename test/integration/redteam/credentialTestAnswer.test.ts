import { testCredential } from '../../../harness/credentialsTester';
import { CREDENTIAL_ID } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	NOT_REGISTERED_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: the credential's Test is one real lookup, and n8n takes any 2xx as success. A Base URL
// that is not the API but answers 200 to every path (a web site's catch-all page, a single-page app,
// a captive portal, another API's JSON) passed the Test as "Connection successful!", and then every
// lookup failed with "not a valid company record".

describe("the credential's Test against a Base URL that answers 200 without a company record", () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it.each([
		[
			'an HTML page',
			(response: Parameters<ScriptedRegistry['lookup']>[1]) => {
				response.writeHead(200, { 'content-type': 'text/html' });
				response.end('<!doctype html><html><body>Welcome to Verifiet</body></html>');
			},
		],
		[
			"another API's JSON",
			(response: Parameters<ScriptedRegistry['lookup']>[1]) =>
				json(response, 200, { status: 'ok', version: '2.4.1' }),
		],
		[
			'an empty answer',
			(response: Parameters<ScriptedRegistry['lookup']>[1]) => {
				response.writeHead(200);
				response.end();
			},
		],
	])('%s: the Test fails and says to check the Base URL', async (_label, answer) => {
		registry.lookup = (_request, response) => answer(response);
		const engine = scriptedEngine(registry);
		const result = await testCredential(engine, CREDENTIAL_ID);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/no company record.*Base URL/);
	});

	it.each([
		['a registered company', GOOD_RECORD],
		['an unknown company', NOT_REGISTERED_RECORD],
	])('%s: the Test succeeds', async (_label, record) => {
		registry.lookup = (_request, response) => json(response, 200, record);
		const engine = scriptedEngine(registry);
		await expect(testCredential(engine, CREDENTIAL_ID)).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
	});
});

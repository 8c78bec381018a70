import { engineFor, runRows } from '../../../harness/fixtures';
import {
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: a token endpoint that echoes the client secret in its error_description is cleaned of the
// secret as sent, percent-encoded (upper-case hex, as encodeURIComponent writes it) and JSON-escaped (as
// JSON.stringify writes it). Other writings of the same bytes went through: lower-case hex (.NET's
// HttpUtility.UrlEncode), and `\/` for `/` (PHP's json_encode, nested JSON in a message).

const SECRET = 'Zq8/Hk+Wm3=Rt7/Yp';

describe('a client secret echoed by the token endpoint in another writing', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it.each([
		[
			'percent-encoded with lower-case hex',
			encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
		],
		['JSON with escaped slashes', JSON.stringify(SECRET).slice(1, -1).replace(/\//g, '\\/')],
	])('%s never reaches an error item', async (_label, echoed) => {
		registry.token = (_request, response) =>
			json(response, 400, {
				error: 'invalid_request',
				error_description: `malformed client_secret=${echoed}`,
			});
		const engine = engineFor(
			{ baseUrl: registry.url, authUrl: registry.url },
			{ clientSecret: SECRET },
		);
		const { result, errors } = await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }], {
			onError: 'continueErrorOutput',
		});
		expect(errors).toHaveLength(1);
		expect(String(errors[0].json.error)).toContain('malformed client_secret=');
		const all = JSON.stringify(result.run) + engine.logs.join('\n');
		// Every writing of the secret, decoded, is the secret again.
		const decoded = decodeURIComponent(all.replace(/\\\\\//g, '/').replace(/\\\//g, '/'));
		expect(decoded).not.toContain(SECRET);
	});
});

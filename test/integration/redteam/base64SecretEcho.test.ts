import { engineFor, runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: secrets are removed from server text as sent, percent-encoded and JSON-escaped, but not
// base64-encoded, the way servers most often write credentials back (an echoed `Basic id:secret`
// header, a debug field holding the request's Authorization header). A registry that echoed an opaque
// token or the client secret in base64 (standard or URL-safe, at any offset of a longer text) put it
// into Registered and into error items verbatim.

const SECRET = 'Zq8/Hk+Wm3=Rt7/Yp-client-secret';
const OPAQUE_TOKEN = 'opaque-token-7f3a9c2e-b81d-4c55-9e0a-61f2d4c8b7aa';
const base64 = (text: string) => Buffer.from(text).toString('base64');
const base64Url = (text: string) => Buffer.from(text).toString('base64url');

/** Every run of base64 characters in `text`, decoded: what a reader of the output could recover. */
function decodedRuns(text: string): string {
	const runs = text.match(/[A-Za-z0-9+/_-]{8,}={0,2}/g) ?? [];
	return runs.map((run) => Buffer.from(run, 'base64').toString('latin1')).join('\n');
}

describe('a secret or token echoed in base64', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	const run = async (lookup: ScriptedRegistry['lookup']) => {
		registry.token = (_request, response) => json(response, 200, { access_token: OPAQUE_TOKEN });
		registry.lookup = lookup;
		const engine = engineFor(
			{ baseUrl: registry.url, authUrl: registry.url },
			{ clientSecret: SECRET },
		);
		const branches = await runRows(
			engine,
			[
				{ country: 'de', companyId: 'HRB1' },
				{ country: 'de', companyId: 'HRB2' },
			],
			{ onError: 'continueErrorOutput' },
		);
		return { ...branches, all: JSON.stringify(branches.result.run) + engine.logs.join('\n') };
	};

	it('in a record: the record passes on without the secret or the token', async () => {
		const { registered, all } = await run((request, response) =>
			json(response, 200, {
				...GOOD_RECORD,
				// Offsets 0, 1 and 2 of a three-byte group: each gives other base64 characters.
				authorization: base64(String(request.headers.authorization)),
				basic: base64(`demo-client:${SECRET}`),
				trace: base64Url(`t=${OPAQUE_TOKEN};s=${SECRET}`),
			}),
		);
		expect(registered).toHaveLength(2);
		expect(registered[0].json.officialName).toBe(GOOD_RECORD.officialName);
		const recovered = decodedRuns(all);
		expect(recovered).not.toContain(OPAQUE_TOKEN);
		expect(recovered).not.toContain(SECRET);
	});

	it('in an error answer: the error says what failed, without the secret or the token', async () => {
		const { errors, all } = await run((request, response) =>
			json(response, 400, {
				message: `bad request ${base64(`${String(request.headers.authorization)}|${SECRET}`)}`,
			}),
		);
		expect(errors).toHaveLength(2);
		expect(String(errors[0].json.error)).toContain('The registry rejected the input: bad request');
		const recovered = decodedRuns(all);
		expect(recovered).not.toContain(OPAQUE_TOKEN);
		expect(recovered).not.toContain(SECRET);
	});
});

import { CREDENTIAL_ID, runRows } from '../../../harness/fixtures';
import { scriptedEngine } from '../../support/scriptedEngine';
import {
	bodyOf,
	scriptedRegistry,
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: the client secret rotated (the operator issues a new one, revokes the old and every token
// issued with it; the user pastes the new one into the credential). n8n keeps the stored token when the
// credential is edited: the token of the old secret is tried first, refused with a 401, and a new one must
// be fetched with the secret the credential holds now.

const ROWS = Array.from({ length: 6 }, (_, index) => ({
	country: 'de',
	companyId: `HRB${index}`,
}));

describe('a client secret rotated', () => {
	let registry: ScriptedRegistry;
	/** The secret the token endpoint accepts now, and the tokens the registry still accepts. */
	let validSecret: string;
	let validTokens: Set<string>;
	let issued: number;
	/** Called as each lookup arrives, before it is answered. */
	let onLookup: (count: number) => void;
	scriptedRegistryEachTest(
		(started) => {
			registry = started;
			validSecret = 'secret-1';
			validTokens = new Set();
			issued = 0;
			onLookup = () => {};
			registry.token = (request, response) => {
				const { client_secret: secret } = JSON.parse(bodyOf(request)) as { client_secret: string };
				if (secret !== validSecret) return json(response, 401, { error: 'invalid_client' });
				const token = `token-${++issued}-of-${secret}`;
				validTokens.add(token);
				json(response, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
			};
		},
		(request, response) => {
			onLookup(registry.lookups);
			const token = String(request.headers.authorization).replace(/^Bearer /, '');
			if (!validTokens.has(token)) return json(response, 401, { error: 'invalid_token' });
			json(response, 200, GOOD_RECORD);
		},
	);

	/** The operator rotates: the old secret and its tokens revoked; the user saves the new secret. */
	function rotate(engine: ReturnType<typeof scriptedEngine>) {
		validSecret = 'secret-2';
		validTokens.clear();
		// n8n's CredentialsService keeps the hidden token (and what it was issued for) on an edit.
		engine.saveCredential(CREDENTIAL_ID, {
			...engine.credentials.stored(CREDENTIAL_ID),
			clientSecret: 'secret-2',
		});
	}

	it('between runs: the old token refused once, a new one fetched with the new secret (held)', async () => {
		const engine = scriptedEngine(registry, { clientSecret: 'secret-1' });
		expect(
			(await runRows(engine, ROWS, { onError: 'continueErrorOutput' })).registered,
		).toHaveLength(6);
		rotate(engine);
		const { registered, errors } = await runRows(engine, ROWS, {
			onError: 'continueErrorOutput',
		});
		expect(errors.map((item) => item.json.error)).toEqual([]);
		expect(registered).toHaveLength(6);
		expect(engine.credentials.stored(CREDENTIAL_ID)?.accessToken).toBe('token-2-of-secret-2');
	});

	it('during a run: the rows after the rotation are looked up with a token of the new secret', async () => {
		const engine = scriptedEngine(registry, { clientSecret: 'secret-1' });
		onLookup = (count) => {
			if (count === 3) rotate(engine);
		};
		const { registered, errors } = await runRows(engine, ROWS, {
			onError: 'continueErrorOutput',
			options: { maxConcurrency: 1 },
		});
		expect(errors.map((item) => item.json.error)).toEqual([]);
		expect(registered).toHaveLength(6);
	});
});

// The guard on that: the credential read again during a run is taken only while it names the registry and
// account the run looks up (rows go to the Base URL read at its start). A Base URL changed mid-run must
// not have a token fetched from the new registry's Auth URL and sent to the old one.
describe('a Base URL changed during a run, then a token refused', () => {
	let registry: ScriptedRegistry;
	let moved: ScriptedRegistry;
	let revoked: boolean;
	const sent: string[] = [];
	beforeEach(async () => {
		revoked = false;
		sent.length = 0;
		registry = await scriptedRegistry((request, response) => {
			const token = String(request.headers.authorization);
			sent.push(token);
			if (revoked && token.endsWith('old-token')) return json(response, 401, {});
			json(response, 200, GOOD_RECORD);
		});
		let issued = 0;
		registry.token = (_request, response) =>
			json(response, 200, { access_token: ++issued === 1 ? 'old-token' : 'renewed-token' });
		moved = await scriptedRegistry();
		moved.token = (_request, response) => json(response, 200, { access_token: 'moved-token' });
	});
	afterEach(async () => {
		await registry.close();
		await moved.close();
	});

	it('renews from the registry the run looks up; the moved one sees nothing', async () => {
		const engine = scriptedEngine(registry);
		const original = engine.credentials.stored(CREDENTIAL_ID)!;
		const edit = () => {
			revoked = true;
			engine.saveCredential(CREDENTIAL_ID, {
				...engine.credentials.stored(CREDENTIAL_ID),
				baseUrl: moved.url,
				authUrl: moved.url,
			});
		};
		const waitingFor = registry.lookup;
		registry.lookup = (request, response) => {
			if (registry.lookups === 3) edit();
			return waitingFor(request, response);
		};
		expect(original.baseUrl).toBe(registry.url);
		const { registered, errors } = await runRows(engine, ROWS, {
			onError: 'continueErrorOutput',
			options: { maxConcurrency: 1 },
		});
		expect(errors.map((item) => item.json.error)).toEqual([]);
		expect(registered).toHaveLength(ROWS.length);
		expect(sent).not.toContain('Bearer moved-token');
		expect([moved.tokenRequests, moved.lookups]).toEqual([0, 0]);
	});
});

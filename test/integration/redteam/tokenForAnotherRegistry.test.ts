import { CREDENTIAL_ID, engineFor, runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistry,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: n8n keeps a credential's hidden token when the user edits it (the UI sends the token back
// blanked, and n8n's CredentialsService restores the saved value). A credential whose Base URL was
// changed (the sandbox for production, a typo mended, another registry) still held the token issued
// for the registry it named before, and every lookup carried it there: a token sent to another origin.

const jwt = (claims: object) =>
	[{ alg: 'RS256', typ: 'JWT' }, claims, 'signature']
		.map((part) =>
			Buffer.from(typeof part === 'string' ? part : JSON.stringify(part)).toString('base64url'),
		)
		.join('.');

describe('a stored token issued for another registry than the Base URL names', () => {
	let registry: ScriptedRegistry;
	let seen: string[];
	beforeEach(async () => {
		registry = await scriptedRegistry();
		seen = [];
		registry.token = (_request, response) =>
			json(response, 200, {
				access_token: jwt({ aud: `${registry.url}/v1/`, scope: 'read:company' }),
			});
		registry.lookup = (request, response) => {
			seen.push(String(request.headers.authorization ?? ''));
			json(response, 200, GOOD_RECORD);
		};
	});
	afterEach(async () => await registry.close());

	const rows = [
		{ country: 'de', companyId: 'HRB1' },
		{ country: 'de', companyId: 'HRB2' },
	];

	it('is never sent: a token for this registry is fetched first', async () => {
		const stale = jwt({ aud: 'https://old-registry.example/v1/', scope: 'read:company' });
		const engine = engineFor(
			{ baseUrl: registry.url, authUrl: registry.url },
			{ accessToken: stale },
		);
		const { registered, errors } = await runRows(engine, rows, {
			onError: 'continueErrorOutput',
		});
		expect(registered).toHaveLength(2);
		expect(errors).toHaveLength(0);
		expect(seen.some((header) => header.includes(stale))).toBe(false);
		expect(registry.tokenRequests).toBe(1);
	});

	it('a stored token issued for this registry is used as it is', async () => {
		const stored = jwt({ aud: `${registry.url}/v1/`, scope: 'read:company' });
		const engine = engineFor(
			{ baseUrl: registry.url, authUrl: registry.url },
			{ accessToken: stored },
		);
		const { registered } = await runRows(engine, rows, { onError: 'continueErrorOutput' });
		expect(registered).toHaveLength(2);
		expect(registry.tokenRequests).toBe(0);
		expect(seen).toEqual([`Bearer ${stored}`, `Bearer ${stored}`]);
	});

	it('an opaque token (no audience to read) is used as it is', async () => {
		const engine = engineFor(
			{ baseUrl: registry.url, authUrl: registry.url },
			{ accessToken: 'opaque-token-0123456789' },
		);
		const { registered } = await runRows(engine, rows, { onError: 'continueErrorOutput' });
		expect(registered).toHaveLength(2);
		expect(registry.tokenRequests).toBe(0);
	});
});

// The token is stored with what it was asked for (the Base URL's origin, the audience): a token is judged
// by that, not by its `aud` alone, which some token servers write otherwise and opaque tokens lack.
describe('a stored token and the registry it was asked for', () => {
	let registry: ScriptedRegistry;
	let moved: ScriptedRegistry;
	let movedSaw: string[];
	beforeEach(async () => {
		registry = await scriptedRegistry();
		moved = await scriptedRegistry();
		movedSaw = [];
		moved.lookup = (request, response) => {
			movedSaw.push(String(request.headers.authorization ?? ''));
			json(response, 200, GOOD_RECORD);
		};
	});
	afterEach(async () => {
		await registry.close();
		await moved.close();
	});

	const rows = [{ country: 'de', companyId: 'HRB1' }];

	it('is fetched once, not in every execution, where the token server writes its own host as aud', async () => {
		// Such servers ignore the audience asked for and name themselves (an auth host's origin).
		registry.token = (_request, response) =>
			json(response, 200, {
				access_token: jwt({ aud: 'https://login.registry.example/', scope: 'read:company' }),
			});
		const engine = scriptedEngine(registry);
		for (let execution = 0; execution < 3; execution++) {
			const { registered } = await runRows(engine, rows, { onError: 'continueErrorOutput' });
			expect(registered).toHaveLength(1);
		}
		expect(registry.tokenRequests).toBe(1);
	});

	it('an opaque token is not sent to the registry a changed Base URL names', async () => {
		const opaque = 'opaque-token-0123456789';
		registry.token = (_request, response) => json(response, 200, { access_token: opaque });
		moved.token = (_request, response) => json(response, 200, { access_token: 'moved-token' });
		const engine = scriptedEngine(registry);
		await runRows(engine, rows, { onError: 'continueErrorOutput' });
		expect(engine.credentials.stored(CREDENTIAL_ID)?.accessToken).toBe(opaque);

		// The user edits the credential: n8n's CredentialsService.unredact restores the hidden password
		// fields (the token, what it was asked for) from the saved data, and stores the new Base URL.
		const saved = engine.credentials.stored(CREDENTIAL_ID) ?? {};
		engine.saveCredential(CREDENTIAL_ID, { ...saved, baseUrl: moved.url, authUrl: moved.url });
		const { registered } = await runRows(engine, rows, { onError: 'continueErrorOutput' });

		expect(registered).toHaveLength(1);
		expect(movedSaw).toEqual(['Bearer moved-token']);
		expect(moved.tokenRequests).toBe(1);
		// The next execution uses the token stored for this registry.
		await runRows(engine, rows, { onError: 'continueErrorOutput' });
		expect(movedSaw).toEqual(['Bearer moved-token', 'Bearer moved-token']);
		expect(moved.tokenRequests).toBe(1);
	});

	it('a token asked for another Audience is not sent after the Audience is changed', async () => {
		let issued = 0;
		registry.token = (_request, response) =>
			json(response, 200, { access_token: `opaque-token-${++issued}` });
		const seen: string[] = [];
		registry.lookup = (request, response) => {
			seen.push(String(request.headers.authorization ?? ''));
			json(response, 200, GOOD_RECORD);
		};
		const engine = scriptedEngine(registry);
		await runRows(engine, rows, { onError: 'continueErrorOutput' });
		const saved = engine.credentials.stored(CREDENTIAL_ID) ?? {};
		engine.saveCredential(CREDENTIAL_ID, { ...saved, audience: 'urn:registry:api' });
		await runRows(engine, rows, { onError: 'continueErrorOutput' });
		expect(seen).toEqual(['Bearer opaque-token-1', 'Bearer opaque-token-2']);
	});
});

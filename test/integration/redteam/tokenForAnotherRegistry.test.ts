import { engineFor, runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistry,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

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

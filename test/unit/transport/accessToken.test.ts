import {
	audienceFor,
	claimsOf,
	tokenIssuedFor,
	withTokenForItsRegistry,
} from '../../../nodes/shared/transport/accessToken';

const jwt = (claims: unknown) =>
	['{"alg":"RS256"}', JSON.stringify(claims), 'signature']
		.map((part) => Buffer.from(part).toString('base64url'))
		.join('.');

const credential = (accessToken: string, extra: Record<string, string> = {}) => ({
	baseUrl: 'https://api.registry.example/',
	audience: '',
	accessToken,
	...extra,
});

const kept = (accessToken: string, extra?: Record<string, string>) =>
	withTokenForItsRegistry(credential(accessToken, extra)).accessToken === accessToken;

describe('withTokenForItsRegistry: a stored token goes only to the registry it was issued for', () => {
	it.each([
		['the audience asked for', 'https://api.registry.example/v1/'],
		['the same origin, written otherwise', 'https://api.registry.example/v1'],
		[
			'among others, one of its origin',
			['https://other.example/v1/', 'https://api.registry.example/'],
		],
		['a name, not an address (cannot tell)', 'company-registry'],
		['a URN (cannot tell)', 'urn:registry:api'],
	])('kept when its aud is %s', (_, aud) => {
		expect(kept(jwt({ aud }))).toBe(true);
	});

	it.each([
		['another origin', 'https://old-registry.example/v1/'],
		['another port', 'https://api.registry.example:8443/v1/'],
		['http where the registry is https', 'http://api.registry.example/v1/'],
		['only addresses of other origins', ['https://a.example/', 'https://b.example/']],
		['another origin beside values that are no text', [null, 7, 'https://old.example/v1/']],
	])('left out when its aud is %s', (_, aud) => {
		const stale = jwt({ aud });
		const result = withTokenForItsRegistry(credential(stale));
		expect(result.accessToken).toBe('');
		expect(result.baseUrl).toBe('https://api.registry.example/');
	});

	it('compares with the Audience the user set, not the Base URL', () => {
		const custom = { audience: 'https://audience.example/v1/' };
		expect(kept(jwt({ aud: 'https://audience.example/v1/' }), custom)).toBe(true);
		expect(kept(jwt({ aud: 'https://api.registry.example/v1/' }), custom)).toBe(false);
	});

	it.each([
		['an opaque token', 'opaque-0123456789'],
		['a JWT without aud', jwt({ scope: 'read:company' })],
		['a JWT whose aud is no text', jwt({ aud: 42 })],
		['no token', ''],
	])('kept as it is: %s', (_, token) => {
		expect(kept(token)).toBe(true);
	});
});

describe('withTokenForItsRegistry: a token stored with what it was asked for (Token Issued for)', () => {
	const asked = {
		baseUrl: 'https://api.registry.example',
		audience: '',
		clientId: 'the-test-client',
	};
	const stored = (accessToken: string) => ({
		...asked,
		accessToken,
		tokenIssuedFor: tokenIssuedFor(asked),
	});
	const afterEdit = (accessToken: string, edit: Record<string, string>) =>
		withTokenForItsRegistry({ ...stored(accessToken), ...edit }).accessToken;

	it.each([
		['an opaque token', 'opaque-0123456789'],
		// Token servers that ignore the audience asked for and name their own host.
		['a JWT whose aud is the auth host', jwt({ aud: 'https://login.registry.example/' })],
	])('keeps %s while the credential names what it was asked for', (_, token) => {
		expect(withTokenForItsRegistry(stored(token)).accessToken).toBe(token);
		expect(afterEdit(token, { baseUrl: ' https://api.registry.example// ' })).toBe(token);
		expect(afterEdit(token, { authUrl: 'https://elsewhere.example' })).toBe(token);
		expect(afterEdit(token, { clientId: ' the-test-client ' })).toBe(token);
	});

	it.each([
		['another Base URL', { baseUrl: 'https://new-registry.example' }],
		['another port', { baseUrl: 'https://api.registry.example:8443' }],
		['http for https', { baseUrl: 'http://api.registry.example' }],
		['another Audience', { audience: 'urn:registry:api' }],
		// Another account at the same registry: its lookups must not go out on the first account's token.
		['another Client ID', { clientId: 'the-production-client' }],
	])('leaves the token out after an edit to %s', (_, edit: Record<string, string>) => {
		const opaque = 'opaque-0123456789';
		expect(afterEdit(opaque, edit)).toBe('');
		// Even a token whose aud names what the credential names now: it was not asked for that.
		expect(afterEdit(jwt({ aud: audienceFor({ ...asked, ...edit }) }), edit)).toBe('');
	});

	it('tells Base URLs apart that are no address, by their text', () => {
		const named = { baseUrl: 'https://[registry', audience: 'urn:registry:api' };
		const token = {
			...named,
			accessToken: 'opaque-0123456789',
			tokenIssuedFor: tokenIssuedFor(named),
		};
		expect(withTokenForItsRegistry(token).accessToken).toBe('opaque-0123456789');
		expect(withTokenForItsRegistry({ ...token, baseUrl: 'https://[elsewhere' }).accessToken).toBe(
			'',
		);
	});

	it("keeps the same origin under another path when the Audience is the user's", () => {
		const own = { baseUrl: 'https://api.registry.example', audience: 'urn:registry:api' };
		const token = { ...own, accessToken: 'opaque-0123456789', tokenIssuedFor: tokenIssuedFor(own) };
		expect(
			withTokenForItsRegistry({ ...token, baseUrl: 'https://api.registry.example/base' })
				.accessToken,
		).toBe('opaque-0123456789');
	});

	it('keeps every other field as it is', () => {
		const result = withTokenForItsRegistry({ ...stored('opaque'), baseUrl: 'https://x.example' });
		expect(result).toEqual({
			baseUrl: 'https://x.example',
			audience: '',
			clientId: 'the-test-client',
			accessToken: '',
			tokenIssuedFor: tokenIssuedFor(asked),
		});
	});
});

describe('claimsOf', () => {
	it('reads a JWT payload, base64url included', () => {
		expect(claimsOf(jwt({ scope: 'read:company', n: '>>??' }))).toEqual({
			scope: 'read:company',
			n: '>>??',
		});
	});
	it.each([['opaque'], [''], [undefined], [jwt([1, 2])], [jwt('text')], [jwt(null)], ['a.!!!.c']])(
		'has none for %p',
		(token) => {
			expect(claimsOf(token)).toBeUndefined();
		},
	);
});

describe('audienceFor', () => {
	it.each([
		['https://api.example', 'https://api.example/v1/'],
		[' https://api.example// ', 'https://api.example/v1/'],
		['https://api.example/base/', 'https://api.example/base/v1/'],
	])('derives {Base URL}/v1/ from %p', (baseUrl, audience) => {
		expect(audienceFor({ baseUrl, audience: '' })).toBe(audience);
		// A credential saved before the Audience field existed has none.
		expect(audienceFor({ baseUrl })).toBe(audience);
	});
	it('takes the Audience the user set, trimmed', () => {
		expect(audienceFor({ baseUrl: 'https://api.example', audience: ' urn:registry ' })).toBe(
			'urn:registry',
		);
	});
});

import {
	audienceFor,
	claimsOf,
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

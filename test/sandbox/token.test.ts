import { createPublicKey, createVerify } from 'node:crypto';

import { AML_ONLY_CLIENT, DEMO_CLIENT, startSandbox, type Sandbox } from '../../sandbox/server';
import { decodeJwt, rawRequest, requestToken } from './client';

// Interface document sections 2.3, 2.4, 3.2, 4.1 and 5; RFC 6749 section 5.2 for the errors.
describe('sandbox token endpoint', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({
			port: 0,
			clients: [
				DEMO_CLIENT,
				AML_ONLY_CLIENT,
				{ clientId: 'short', clientSecret: 'short-secret', scope: 'read:company', expiresIn: 3600 },
			],
		});
	});
	afterAll(async () => await sandbox.close());

	it('4.1 / 2.4: answers a client-credentials request with access_token, scope, expires_in and token_type', async () => {
		const response = await requestToken(sandbox);
		expect(response.status).toBe(200);
		expect(response.headers['cache-control']).toBe('no-store');
		expect(Object.keys(response.json).sort()).toEqual([
			'access_token',
			'expires_in',
			'scope',
			'token_type',
		]);
		expect(response.json).toMatchObject({
			scope: 'read:company read:aml',
			expires_in: 2_592_000,
			token_type: 'Bearer',
		});
	});

	it('5.1 / public notes "Tokens": issues an RS256 JWT with kid, iss, sub, aud, iat, exp, scope and gty', async () => {
		const { access_token: token } = (await requestToken(sandbox)).json;
		const { header, claims } = decodeJwt(token);
		expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
		expect(header.kid).toMatch(/^[0-9a-f]{16}$/);
		expect(claims).toMatchObject({
			iss: `${sandbox.baseUrl}/`,
			sub: 'demo-client@clients',
			aud: sandbox.audience,
			scope: 'read:company read:aml',
			gty: 'client-credentials',
		});
		// 3.2: 30 days by default.
		expect(claims.exp - claims.iat).toBe(2_592_000);
		expect(Math.abs(claims.iat - Date.now() / 1000)).toBeLessThan(5);
	});

	it('3.2: the validity can be shortened per client', async () => {
		const response = await requestToken(sandbox, {
			client_id: 'short',
			client_secret: 'short-secret',
		});
		expect(response.json.expires_in).toBe(3600);
		const { claims } = decodeJwt(response.json.access_token);
		expect(claims.exp - claims.iat).toBe(3600);
	});

	it('5.6: the granted scope follows the client (aml-only-client has no read:company)', async () => {
		const response = await requestToken(sandbox, {}, AML_ONLY_CLIENT);
		expect(response.json.scope).toBe('read:aml');
		expect(decodeJwt(response.json.access_token).claims.sub).toBe('aml-only-client@clients');
	});

	it('signs with the key it publishes at /.well-known/jwks.json, and the signature covers the claims', async () => {
		const { access_token: token } = (await requestToken(sandbox)).json;
		const [header, payload, signature] = token.split('.');
		const jwks = (await rawRequest(sandbox, 'GET', '/.well-known/jwks.json')).json;
		const jwk = jwks.keys.find((key: { kid: string }) => key.kid === decodeJwt(token).header.kid);
		const publicKey = createPublicKey({ key: jwk, format: 'jwk' });
		const verifies = (signed: string) =>
			createVerify('RSA-SHA256')
				.update(signed)
				.verify(publicKey, Buffer.from(signature, 'base64url'));
		expect(verifies(`${header}.${payload}`)).toBe(true);
		const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
		const forged = Buffer.from(
			JSON.stringify({ ...claims, scope: 'read:company read:everything' }),
		).toString('base64url');
		expect(verifies(`${header}.${forged}`)).toBe(false);
	});

	it.each([
		['a wrong secret', { client_secret: 'wrong-secret' }],
		['an unknown client', { client_id: 'nobody', client_secret: 'nobody-secret' }],
	])('RFC 6749 5.2: %s gets 401 invalid_client, without echoing the secret', async (_, body) => {
		const response = await requestToken(sandbox, body);
		expect(response.status).toBe(401);
		expect(response.json).toEqual({
			error: 'invalid_client',
			error_description: 'Client authentication failed',
		});
		expect(response.text).not.toContain('secret');
	});

	it('2.3: a wrong audience is refused with 403 access_denied', async () => {
		const response = await requestToken(sandbox, { audience: 'https://api.example.test/v1/' });
		expect(response.status).toBe(403);
		expect(response.json.error).toBe('access_denied');
		expect(response.json.error_description).toContain('https://api.example.test/v1/');
	});

	it('2.3: an audience without the trailing slash is a different audience', async () => {
		const response = await requestToken(sandbox, { audience: sandbox.audience.slice(0, -1) });
		expect(response.status).toBe(403);
	});

	it('RFC 6749 5.2: a grant other than client_credentials gets 400 unsupported_grant_type', async () => {
		const response = await requestToken(sandbox, { grant_type: 'password' });
		expect(response.status).toBe(400);
		expect(response.json.error).toBe('unsupported_grant_type');
	});

	it.each(['client_id', 'client_secret', 'audience', 'grant_type'])(
		'2.3: a request without %s gets 400 invalid_request naming it',
		async (field) => {
			const response = await requestToken(sandbox, { [field]: undefined });
			expect(response.status).toBe(400);
			expect(response.json).toEqual({
				error: 'invalid_request',
				error_description: `Missing required parameter: ${field}`,
			});
		},
	);

	it('4.1: a body that is not JSON gets 400 invalid_request', async () => {
		const response = await rawRequest(sandbox, 'POST', '/oauth/token', {
			headers: { 'content-type': 'application/json' },
			body: '{"client_id": "demo-client", ',
		});
		expect(response.status).toBe(400);
		expect(response.json.error).toBe('invalid_request');
		const array = await rawRequest(sandbox, 'POST', '/oauth/token', {
			headers: { 'content-type': 'application/json' },
			body: '["demo-client"]',
		});
		expect(array.status).toBe(400);
	});

	it('counts every token request and every token issued', async () => {
		sandbox.resetCounters();
		await requestToken(sandbox);
		await requestToken(sandbox, { client_secret: 'wrong-secret' });
		expect(sandbox.counters.tokenRequests).toBe(2);
		expect(sandbox.counters.tokensIssued).toBe(1);
	});

	it('5.7: the lookup endpoint refuses a token whose claims were altered after signing', async () => {
		const { access_token: token } = (await requestToken(sandbox)).json;
		const [header, payload, signature] = token.split('.');
		const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
		const forged = Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 1 })).toString(
			'base64url',
		);
		const response = await rawRequest(sandbox, 'GET', '/v1/company/de/HRB12345', {
			headers: { authorization: `Bearer ${header}.${forged}.${signature}` },
		});
		expect(response.status).toBe(401);
		expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
	});
});

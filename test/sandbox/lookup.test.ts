import { AML_ONLY_CLIENT, DEMO_CLIENT, startSandbox, type Sandbox } from '../../sandbox/server';
import { lookup, rawRequest, tokenFor } from './client';

// Interface document sections 2.1, 2.2, 4.2, 5 and 7, for the lookup endpoint.
describe('sandbox lookup endpoint', () => {
	let sandbox: Sandbox;
	let token: string;
	beforeAll(async () => {
		sandbox = await startSandbox({
			port: 0,
			clients: [
				DEMO_CLIENT,
				AML_ONLY_CLIENT,
				{
					clientId: 'expired',
					clientSecret: 'expired-secret',
					scope: 'read:company',
					expiresIn: 0,
				},
			],
		});
		token = await tokenFor(sandbox);
	});
	afterAll(async () => await sandbox.close());

	describe('the documented examples (4.2 rules 1 and 2)', () => {
		it('de/HRB12345: registered, Active, a German name with an umlaut', async () => {
			const response = await lookup(sandbox, '/v1/company/de/HRB12345', token);
			expect(response.status).toBe(200);
			expect(response.headers['content-type']).toContain('application/json');
			expect(response.json).toEqual({
				isRegistered: true,
				officialName: 'Müller & Söhne Präzisionsteile GmbH',
				status: 'Active',
				registrationDate: '1998-04-17',
				registeredAddress: 'Königstraße 12, 70173 Stuttgart',
			});
		});

		it('gb/09876543: registered, Inactive', async () => {
			const response = await lookup(sandbox, '/v1/company/gb/09876543', token);
			expect(response.json).toMatchObject({ isRegistered: true, status: 'Inactive' });
		});

		it('us/C0806592 in ca: registered, Active (4.2 path shape for the United States)', async () => {
			const response = await lookup(sandbox, '/v1/company/us/C0806592?stateCode=ca', token);
			expect(response.json).toMatchObject({
				isRegistered: true,
				status: 'Active',
				officialName: 'Redwood Hollow Analytics, Inc.',
			});
		});

		it('jp/1010001000001: registered, Active, name in Japanese script', async () => {
			const response = await lookup(sandbox, '/v1/company/jp/1010001000001', token);
			expect(response.json).toMatchObject({
				isRegistered: true,
				status: 'Active',
				officialName: '株式会社さくら精機',
			});
		});

		it('de/HRB00000: well-formed but unknown gives 200 with isRegistered false and N/A everywhere (2.1 rule, 1.5)', async () => {
			const response = await lookup(sandbox, '/v1/company/de/HRB00000', token);
			expect(response.status).toBe(200);
			expect(response.json).toEqual({
				isRegistered: false,
				officialName: 'N/A',
				status: 'N/A',
				registrationDate: 'N/A',
				registeredAddress: 'N/A',
			});
		});
	});

	it('4.2 rule 2: a well-formed but unknown country code is not an error either', async () => {
		const response = await lookup(sandbox, '/v1/company/aq/12345', token);
		expect(response.status).toBe(200);
		expect(response.json.isRegistered).toBe(false);
	});

	it('2.1: registeredAddress is left out when the register has none', async () => {
		const response = await lookup(sandbox, '/v1/company/de/HRA40917', token);
		expect(response.json).toEqual({
			isRegistered: true,
			officialName: 'Straßburger Logistik KG',
			status: 'Active',
			registrationDate: '2015-02-09',
		});
	});

	it('a us company is found only in its own state', async () => {
		const response = await lookup(sandbox, '/v1/company/us/C0806592?stateCode=ny', token);
		expect(response.json.isRegistered).toBe(false);
	});

	it('ids match ignoring case, spaces and the separators . - / (documented choice)', async () => {
		const spaced = await lookup(
			sandbox,
			`/v1/company/de/${encodeURIComponent('hrb 12345')}`,
			token,
		);
		expect(spaced.json.officialName).toBe('Müller & Söhne Präzisionsteile GmbH');
		const bare = await lookup(sandbox, '/v1/company/br/11222333000181', token);
		const formatted = await lookup(
			sandbox,
			`/v1/company/br/${encodeURIComponent('11.222.333/0001-81')}`,
			token,
		);
		expect(bare.json).toEqual(formatted.json);
		expect(formatted.json.isRegistered).toBe(true);
	});

	describe('languageCode (2.2; a query parameter, our documented choice for 4.2 rule 4)', () => {
		it('returns the name and address in that language where the record has them', async () => {
			const response = await lookup(sandbox, '/v1/company/jp/1010001000001?languageCode=en', token);
			expect(response.json).toMatchObject({
				officialName: 'Sakura Seiki Co., Ltd.',
				registeredAddress: '1-1-1 Marunouchi, Chiyoda-ku, Tokyo',
			});
		});

		it('falls back to the native field when only one is translated, and for a region subtag', async () => {
			const response = await lookup(sandbox, '/v1/company/de/HRB12345?languageCode=en-GB', token);
			expect(response.json).toMatchObject({
				officialName: 'Mueller & Sons Precision Parts GmbH',
				registeredAddress: 'Königstraße 12, 70173 Stuttgart',
			});
		});

		it('answers in the native alphabet for a language the record lacks', async () => {
			const response = await lookup(sandbox, '/v1/company/kr/211-81-34977?languageCode=en', token);
			expect(response.json.officialName).toBe('주식회사 제주감귤농원');
		});

		it('rejects a value that is not a language code with 400', async () => {
			const response = await lookup(
				sandbox,
				'/v1/company/de/HRB12345?languageCode=english!',
				token,
			);
			expect(response.status).toBe(400);
		});
	});

	describe('invalid input gives 400 InvalidInputException (4.2 rule 3, section 7)', () => {
		it.each([
			['an unassigned country code', '/v1/company/xx/HRB12345', 'countryCode'],
			['an uppercase country code', '/v1/company/DE/HRB12345', 'countryCode'],
			['a three-letter code', '/v1/company/deu/HRB12345', 'countryCode'],
			[
				'invalid characters in the id',
				`/v1/company/de/${encodeURIComponent('HRB<12345>')}`,
				'companyId',
			],
			['a percent sign in the id', `/v1/company/de/${encodeURIComponent('HRB%2F1')}`, 'companyId'],
			['a dot-dot id', `/v1/company/de/${encodeURIComponent('../admin')}`, 'companyId'],
			['an id over 40 characters', `/v1/company/de/${'1'.repeat(41)}`, 'companyId'],
			['us without stateCode (our choice for 4.2 rule 5)', '/v1/company/us/C0806592', 'stateCode'],
			[
				'us with a stateCode that is no US state',
				'/v1/company/us/C0806592?stateCode=zz',
				'stateCode',
			],
			['us with an uppercase stateCode', '/v1/company/us/C0806592?stateCode=CA', 'stateCode'],
			['a malformed percent-encoding', '/v1/company/de/HRB%E0%A4%A', 'percent-encoded'],
		])('%s', async (_, path, named) => {
			const response = await lookup(sandbox, path, token);
			expect(response.status).toBe(400);
			expect(response.json.error).toBe('InvalidInputException');
			expect(response.json.message).toContain(named);
		});

		it('accepts the characters real ids use: letters, digits, space, . - /', async () => {
			const response = await lookup(
				sandbox,
				`/v1/company/br/${encodeURIComponent('44.778.899/0001-43')}`,
				token,
			);
			expect(response.status).toBe(200);
			expect(response.json.officialName).toBe('Construtora Ipê Amarelo S.A.');
		});

		it('stateCode is unused outside the United States (2.2)', async () => {
			const response = await lookup(sandbox, '/v1/company/gb/09876543?stateCode=zz', token);
			expect(response.json.isRegistered).toBe(true);
		});
	});

	describe('authentication (5.4, 5.7, section 7: 401)', () => {
		it('a request without a token gets 401 with a Bearer challenge', async () => {
			const response = await rawRequest(sandbox, 'GET', '/v1/company/de/HRB12345');
			expect(response.status).toBe(401);
			expect(response.headers['www-authenticate']).toMatch(/^Bearer /);
		});

		it('a token that is not a JWT gets 401 invalid_token', async () => {
			const response = await lookup(sandbox, '/v1/company/de/HRB12345', 'not-a-jwt');
			expect(response.status).toBe(401);
			expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
		});

		it('an expired token gets 401 invalid_token', async () => {
			const expired = await tokenFor(sandbox, {
				clientId: 'expired',
				clientSecret: 'expired-secret',
				scope: 'read:company',
			});
			const response = await lookup(sandbox, '/v1/company/de/HRB12345', expired);
			expect(response.status).toBe(401);
			expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
			expect(response.json.message).toContain('expired');
		});

		it("a token signed by another server's key gets 401 invalid_token", async () => {
			const other = await startSandbox({ port: 0 });
			const foreign = await tokenFor(other);
			await other.close();
			const response = await lookup(sandbox, '/v1/company/de/HRB12345', foreign);
			expect(response.status).toBe(401);
			expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
		});

		it('revoked tokens get 401 until a new one is fetched', async () => {
			const before = await tokenFor(sandbox);
			sandbox.revokeAllTokens();
			expect((await lookup(sandbox, '/v1/company/de/HRB12345', before)).status).toBe(401);
			const after = await tokenFor(sandbox);
			expect((await lookup(sandbox, '/v1/company/de/HRB12345', after)).status).toBe(200);
			token = after;
		});

		it('5.6: a valid token without read:company gets 403 naming the granted scope', async () => {
			const amlToken = await tokenFor(sandbox, AML_ONLY_CLIENT);
			const response = await lookup(sandbox, '/v1/company/de/HRB12345', amlToken);
			expect(response.status).toBe(403);
			expect(response.json.message).toContain('read:aml');
		});
	});

	it('9.1: only the /v1/ version exists; other paths get a JSON 404', async () => {
		const response = await lookup(sandbox, '/v2/company/de/HRB12345', token);
		expect(response.status).toBe(404);
		expect(response.json.error).toBe('NotFoundException');
	});

	it('a raw slash in the id makes a different path, not a different id', async () => {
		const response = await lookup(sandbox, '/v1/company/de/HRB/12345', token);
		expect(response.status).toBe(404);
	});

	it('changes made through the control API show in the next lookup', async () => {
		const key = { country: 'nl', companyId: '68750123' };
		sandbox.changeCompany(key, {
			status: 'Inactive',
			officialName: 'Tulpenveld Holding B.V.',
			registeredAddress: null,
		});
		expect((await lookup(sandbox, '/v1/company/nl/68750123', token)).json).toEqual({
			isRegistered: true,
			officialName: 'Tulpenveld Holding B.V.',
			status: 'Inactive',
			registrationDate: '2017-05-15',
		});
		sandbox.changeCompany(key, { deregistered: true });
		expect((await lookup(sandbox, '/v1/company/nl/68750123', token)).json.isRegistered).toBe(false);
		sandbox.changeCompany(key, {
			deregistered: false,
			registeredAddress: 'Stationsweg 1, 2161 AM Lisse',
		});
		expect((await lookup(sandbox, '/v1/company/nl/68750123', token)).json).toMatchObject({
			isRegistered: true,
			registeredAddress: 'Stationsweg 1, 2161 AM Lisse',
		});
		expect(() =>
			sandbox.changeCompany({ country: 'nl', companyId: '00000000' }, { status: 'Active' }),
		).toThrow('no company');
	});

	it('counts lookups by status code', async () => {
		sandbox.resetCounters();
		await lookup(sandbox, '/v1/company/de/HRB12345', token);
		await lookup(sandbox, '/v1/company/xx/1', token);
		await lookup(sandbox, '/v1/company/de/HRB12345', 'bad');
		expect(sandbox.counters.lookupsByStatus).toEqual({ 200: 1, 400: 1, 401: 1 });
		expect(sandbox.counters.lookups).toBe(3);
		expect(sandbox.counters.tokenRequests).toBe(0);
	});
});

import { loadCompanies } from '../../sandbox/registry';
import { AML_ONLY_CLIENT, startSandbox, type Sandbox } from '../../sandbox/server';
import {
	CREDENTIAL_ID,
	REGISTRY_NODE,
	engineFor,
	expectEachRowOnce,
	lookupWorkflow,
	runRows,
} from '../../harness/fixtures';

// The Look Up operation inside n8n's engine (WorkflowExecute) against the sandbox over loopback HTTP.
describe('Company Registry › Look Up', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, faults: { slowMs: 3000 } });
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.resetCounters();
		sandbox.onLookup(undefined);
		sandbox.setRateLimit({ ratePerSecond: 100, burst: 1000, dailyQuota: undefined });
		sandbox.setRetryAfterFormat('seconds');
	});

	describe('routing by isRegistered (4.2 rules 1 and 2)', () => {
		it('sends the documented examples to Registered or Not Registered, with the record and the lookup key', async () => {
			const engine = engineFor(sandbox);
			const rows = [
				{ country: 'de', companyId: 'HRB12345' },
				{ country: 'gb', companyId: '09876543' },
				{ country: 'us', companyId: 'C0806592', state: 'ca' },
				{ country: 'jp', companyId: '1010001000001' },
				{ country: 'de', companyId: 'HRB00000' },
			];
			const { registered, notRegistered, errors } = await runRows(engine, rows);
			expect(registered.map((item) => item.json.officialName)).toEqual([
				'Müller & Söhne Präzisionsteile GmbH',
				'Thistlewick Brewing Company Limited',
				'Redwood Hollow Analytics, Inc.',
				'株式会社さくら精機',
			]);
			expect(registered.map((item) => item.json.status)).toEqual([
				'Active',
				'Inactive',
				'Active',
				'Active',
			]);
			expect(registered[2].json.lookup).toEqual({
				countryCode: 'us',
				companyId: 'C0806592',
				stateCode: 'ca',
			});
			expect(notRegistered).toEqual([
				{
					json: {
						isRegistered: false,
						officialName: 'N/A',
						status: 'N/A',
						registrationDate: 'N/A',
						registeredAddress: 'N/A',
						lookup: { countryCode: 'de', companyId: 'HRB00000' },
					},
					pairedItem: { item: 4 },
				},
			]);
			expect(errors).toEqual([]);
			expectEachRowOnce({ registered, notRegistered, errors }, rows.length);
			expect(registered.map((item) => (item.pairedItem as { item: number }).item)).toEqual([
				0, 1, 2, 3,
			]);
		});

		it('passes every Unicode name and address on byte for byte', async () => {
			const engine = engineFor(sandbox);
			const companies = loadCompanies();
			const { registered } = await runRows(
				engine,
				companies.map((company) => ({
					country: company.country,
					companyId: company.companyId,
					state: company.state ?? '',
				})),
			);
			expect(registered).toHaveLength(companies.length);
			registered.forEach((item, index) => {
				expect(Buffer.from(String(item.json.officialName))).toEqual(
					Buffer.from(companies[index].officialName),
				);
				expect(item.json.registeredAddress).toBe(companies[index].registeredAddress);
			});
		});

		it('normalises countries and states given by expressions (codes in any case, alpha-3, English names)', async () => {
			const engine = engineFor(sandbox);
			const { registered } = await runRows(engine, [
				{ country: 'DEU', companyId: 'HRB12345' },
				{ country: 'Germany', companyId: 'HRB12345' },
				{ country: 'United Kingdom', companyId: '09876543' },
				{ country: 'USA', companyId: 'C0806592', state: 'California' },
				{ country: 'US', companyId: 'C0806592', state: 'US-CA' },
			]);
			expect(registered).toHaveLength(5);
			// Five rows, three distinct lookups: identical normalised keys share one request.
			expect(sandbox.lookupLog.slice(-3)).toEqual([
				'/v1/company/de/HRB12345',
				'/v1/company/gb/09876543',
				'/v1/company/us/C0806592?stateCode=ca',
			]);
			expect(sandbox.counters.lookups).toBe(3);
		});

		it('works with the fields set directly, as in the editor (no expressions)', async () => {
			const engine = engineFor(sandbox);
			const { registered } = await runRows(engine, [{}], {
				parameters: { country: 'us', companyId: 'C0806592', state: 'ca' },
			});
			expect(registered[0].json.officialName).toBe('Redwood Hollow Analytics, Inc.');
		});

		it('sends the Language option as the languageCode query parameter (our choice for 4.2 rule 4)', async () => {
			const engine = engineFor(sandbox);
			const { registered } = await runRows(
				engine,
				[{ country: 'jp', companyId: '1010001000001' }],
				{ options: { language: 'en' } },
			);
			expect(registered[0].json).toMatchObject({
				officialName: 'Sakura Seiki Co., Ltd.',
				lookup: { languageCode: 'en' },
			});
			expect(sandbox.lookupLog.at(-1)).toBe('/v1/company/jp/1010001000001?languageCode=en');
		});
	});

	describe('tokens (sections 4.1 and 5)', () => {
		it('fetches one token for a whole multi-item execution, and none for the next execution', async () => {
			const engine = engineFor(sandbox);
			const rows = [
				{ country: 'de', companyId: 'HRB12345' },
				{ country: 'gb', companyId: '09876543' },
				{ country: 'de', companyId: 'HRB00000' },
			];
			await runRows(engine, rows);
			expect(sandbox.counters.tokenRequests).toBe(1);
			expect(engine.credentials.stored(CREDENTIAL_ID)?.accessToken).toMatch(/^ey/);
			const second = await runRows(engine, rows);
			expect(sandbox.counters.tokenRequests).toBe(1);
			expect(second.registered).toHaveLength(2);
		});

		it('three executions started together on one n8n fetch one token, not one each', async () => {
			const engine = engineFor(sandbox);
			const sheet = (offset: number) =>
				Array.from({ length: 30 }, (_, index) => ({
					country: 'gb',
					companyId: String(offset + index),
				}));
			const runs = await Promise.all(
				[60_000_000, 61_000_000, 62_000_000].map(
					async (offset) => await runRows(engine, sheet(offset)),
				),
			);
			for (const run of runs) expect(run.notRegistered).toHaveLength(30);
			expect(sandbox.counters.tokenRequests).toBe(1);
		});

		it('refreshes a token revoked mid-execution once, and loses no item', async () => {
			const engine = engineFor(sandbox);
			sandbox.onLookup((count) => {
				if (count === 3) sandbox.revokeAllTokens();
			});
			const rows = Array.from({ length: 8 }, (_, index) => ({
				country: 'gb',
				companyId: `1000000${index}`,
			}));
			rows[0] = { country: 'gb', companyId: '04417982' };
			const branches = await runRows(engine, rows);
			expectEachRowOnce(branches, rows.length);
			expect(branches.errors).toHaveLength(0);
			expect(branches.registered).toHaveLength(1);
			expect(branches.notRegistered).toHaveLength(7);
			// Every request in flight at the revocation meets a 401, but only one new token is fetched.
			expect(sandbox.counters.tokensIssued).toBe(2);
			expect(sandbox.counters.lookupsByStatus[401]).toBeGreaterThanOrEqual(1);
			expect(engine.credentials.preAuthentications).toEqual([
				{ id: CREDENTIAL_ID, expired: false },
				{ id: CREDENTIAL_ID, expired: true },
			]);
		});

		it('fails every row at once when a token fetched for this run is refused: one token, one lookup', async () => {
			const sandboxWithExpiredTokens = await startSandbox({
				port: 0,
				clients: [
					{
						clientId: 'expiring',
						clientSecret: 'expiring-secret',
						scope: 'read:company',
						expiresIn: 0,
					},
				],
			});
			try {
				const engine = engineFor(sandboxWithExpiredTokens, {
					clientId: 'expiring',
					clientSecret: 'expiring-secret',
				});
				const { result } = await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }]);
				const error = result.errorOf(REGISTRY_NODE);
				expect(error?.message).toBe(
					'The registry rejected the access token the token endpoint had just issued (HTTP 401)',
				);
				expect((error as { httpCode?: string }).httpCode).toBe('401');
				// A token fetched just now and refused will be refused again: no second token, no second lookup.
				expect(sandboxWithExpiredTokens.counters.lookupsByStatus[401]).toBe(1);
				expect(sandboxWithExpiredTokens.counters.tokensIssued).toBe(1);
			} finally {
				await sandboxWithExpiredTokens.close();
			}
		});

		it("says the plan lacks company data on 403, listing the token's scopes (5.6)", async () => {
			const engine = engineFor(sandbox, {
				clientId: AML_ONLY_CLIENT.clientId,
				clientSecret: AML_ONLY_CLIENT.clientSecret,
			});
			const { result } = await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }]);
			const error = result.errorOf(REGISTRY_NODE) as {
				message: string;
				description: string;
				httpCode: string;
			};
			expect(error.message).toBe(
				"The credential's plan or token scope does not include company data (read:company)",
			);
			expect(error.description).toContain('Granted scopes: read:aml');
			expect(error.httpCode).toBe('403');
		});
	});

	describe('input checked before any request', () => {
		it.each([
			[
				{ country: 'Atlantis', companyId: 'HRB12345' },
				"Unknown country 'Atlantis'",
				"Accepted: a two-letter ISO 3166-1 code such as 'de'",
			],
			[
				{ country: 'us', companyId: 'C0806592', state: '' },
				'A United States company needs a State',
				"Accepted: a two-letter state code such as 'ca'",
			],
			[
				{ country: 'us', companyId: 'C0806592', state: 'Bavaria' },
				"Unknown United States state 'Bavaria'",
				'California',
			],
			[{ country: 'de', companyId: '' }, 'Company ID is empty', "'HRB12345'"],
			[
				{ country: 'de', companyId: '..' },
				"Company ID '..' is not an identifier",
				'letter or digit',
			],
		])('%j fails alone with a clear message and no request', async (row, message, accepted) => {
			const engine = engineFor(sandbox);
			const rows = [
				{ country: 'de', companyId: 'HRB12345' },
				row,
				{ country: 'gb', companyId: '09876543' },
			];
			const branches = await runRows(engine, rows, { onError: 'continueErrorOutput' });
			expect(branches.registered).toHaveLength(2);
			expect(branches.errors).toHaveLength(1);
			expect(branches.errors[0].json.error).toContain(message);
			expect((branches.errors[0].json.details as { description: string }).description).toContain(
				accepted,
			);
			expect(branches.errors[0].pairedItem).toEqual({ item: 1 });
			expect(sandbox.counters.lookups).toBe(2);
		});

		it('stops the execution on bad input when On Error is "stop", naming the item', async () => {
			const engine = engineFor(sandbox);
			const { result } = await runRows(engine, [
				{ country: 'de', companyId: 'HRB12345' },
				{ country: 'xx', companyId: '1' },
			]);
			const error = result.errorOf(REGISTRY_NODE) as unknown as {
				message: string;
				name: string;
				context: { itemIndex: number };
			};
			expect(error.message).toBe("Unknown country 'xx'");
			expect(error.name).toBe('NodeOperationError');
			expect(error.context.itemIndex).toBe(1);
			expect(result.run.data.resultData.error?.message).toBe("Unknown country 'xx'");
		});
	});

	it('a missing credential fails every row (by the error output), never passes rows on as Registered', async () => {
		const engine = engineFor(sandbox);
		const workflow = lookupWorkflow({ onError: 'continueErrorOutput' });
		workflow.nodes.find((node) => node.name === REGISTRY_NODE)!.credentials = {
			companyRegistryApi: { id: 'no-such-credential', name: 'Deleted credential' },
		};
		const result = await engine.execute(workflow, {
			rows: [
				{ country: 'de', companyId: 'HRB12345' },
				{ country: 'gb', companyId: '09876543' },
			],
		});
		const [registered, notRegistered, errors] = result.outputOf(REGISTRY_NODE);
		expect(registered).toEqual([]);
		expect(notRegistered).toEqual([]);
		expect(errors.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(errors[0].json.error).toContain('no-such-credential');
	});

	describe('the company id travels as one path segment (no path or query injection)', () => {
		it.each([
			['../', '/v1/company/de/..%2F'],
			['/', '/v1/company/de/%2F'],
			['?', '/v1/company/de/%3F'],
			['#', '/v1/company/de/%23'],
			['%2F', '/v1/company/de/%252F'],
			['HRB12345?stateCode=xx', '/v1/company/de/HRB12345%3FstateCode%3Dxx'],
			['HRB12345#frag', '/v1/company/de/HRB12345%23frag'],
			['../../oauth/token', '/v1/company/de/..%2F..%2Foauth%2Ftoken'],
		])(
			'id %p is requested as %p and answered by the server as invalid input (400)',
			async (companyId, path) => {
				const engine = engineFor(sandbox);
				const branches = await runRows(engine, [{ country: 'de', companyId }], {
					onError: 'continueErrorOutput',
				});
				expect(sandbox.lookupLog.at(-1)).toBe(path);
				expect(branches.errors).toHaveLength(1);
				expect(branches.errors[0].json.details).toMatchObject({ httpCode: '400' });
				expect(branches.errors[0].json.error).toMatch(
					/^The registry rejected the input: companyId has invalid characters/,
				);
			},
		);

		it('a CNPJ with dots, a slash and a dash is one segment and is found', async () => {
			const engine = engineFor(sandbox);
			const { registered } = await runRows(engine, [
				{ country: 'br', companyId: '44.778.899/0001-43' },
			]);
			expect(sandbox.lookupLog.at(-1)).toBe('/v1/company/br/44.778.899%2F0001-43');
			expect(registered[0].json.officialName).toBe('Construtora Ipê Amarelo S.A.');
		});
	});

	describe('errors (section 7 and the public service notes)', () => {
		const row = (companyId: string) => ({ country: 'de', companyId });

		it.each([
			[
				'HRB99500',
				'500',
				'The registry could not process the lookup (HTTP 500 Internal Server Error)',
			],
			['HRB99504', '504', 'The registry timed out behind its gateway (HTTP 504 Gateway Timeout)'],
			['HRB99404', '404', 'The registry has no lookup endpoint at'],
			[
				'HRB99403',
				'403',
				"The credential's plan or token scope does not include company data (read:company)",
			],
			['HRB99418', '418', "The registry answered HTTP 418 I'm a Teapot"],
			['HRB99902', '200', 'is not a valid company record: the response body is not a JSON object'],
			['HRB99903', '200', 'field \'status\' is "Dissolved": expected Active or Inactive'],
			[
				'HRB99904',
				'200',
				'field \'registrationDate\' is "17/04/1998": expected a date in the form yyyy-mm-dd',
			],
		])(
			'%s on one row gives that row its own specific error (HTTP %s); the other rows succeed',
			async (faultId, httpCode, message) => {
				const engine = engineFor(sandbox);
				const rows = [row('HRB12345'), row(faultId), row('HRB00000')];
				const branches = await runRows(engine, rows, { onError: 'continueErrorOutput' });
				expectEachRowOnce(branches, 3);
				expect(branches.registered).toHaveLength(1);
				expect(branches.notRegistered).toHaveLength(1);
				expect(branches.errors).toHaveLength(1);
				const [failed] = branches.errors;
				expect(failed.pairedItem).toEqual({ item: 1 });
				expect(failed.json.error).toContain(message);
				expect(failed.json.details).toMatchObject({
					httpCode,
					lookup: { countryCode: 'de', companyId: faultId },
				});
				// The error output keeps the input row, so it can be written back to its sheet.
				expect(failed.json).toMatchObject({ country: 'de', companyId: faultId });
			},
		);

		it('a dropped connection is an error of that row only', async () => {
			const engine = engineFor(sandbox);
			const branches = await runRows(engine, [row('HRB99901'), row('HRB12345')], {
				onError: 'continueErrorOutput',
			});
			// Retried twice (Max Attempts 3), then final.
			expect(branches.errors[0].json.error).toBe(
				`Could not reach the Company Registry at ${sandbox.baseUrl} (tried 3 times)`,
			);
			expect((branches.errors[0].json.details as { description: string }).description).toMatch(
				/ECONNRESET|socket hang up/,
			);
			expect(branches.registered).toHaveLength(1);
		});

		it('a response slower than the Request Timeout option fails that row with a timeout message', async () => {
			const engine = engineFor(sandbox);
			const branches = await runRows(engine, [row('HRB99905'), row('HRB12345')], {
				onError: 'continueErrorOutput',
				options: { timeout: 1 },
			});
			expect(branches.errors[0].json.error).toBe(
				'The Company Registry did not answer within 1 s (tried 3 times)',
			);
			expect(branches.registered).toHaveLength(1);
		});

		it('under On Error "continue", a failed row leaves by Not Registered with its error, never by Registered', async () => {
			const engine = engineFor(sandbox);
			const branches = await runRows(engine, [row('HRB99500'), row('HRB12345')], {
				onError: 'continueRegularOutput',
			});
			expect(branches.registered.map((item) => item.json.officialName)).toEqual([
				'Müller & Söhne Präzisionsteile GmbH',
			]);
			expect(branches.notRegistered).toHaveLength(1);
			expect(branches.notRegistered[0]).toMatchObject({
				json: {
					error:
						'The registry could not process the lookup (HTTP 500 Internal Server Error) (tried 3 times)',
					details: { httpCode: '500', lookup: { countryCode: 'de', companyId: 'HRB99500' } },
				},
				pairedItem: { item: 0 },
			});
			expect(branches.notRegistered[0].json.isRegistered).toBeUndefined();
		});

		it('without continue, the first failing row stops the node with a NodeApiError carrying its item index', async () => {
			const engine = engineFor(sandbox);
			const { result } = await runRows(engine, [row('HRB12345'), row('HRB12345'), row('HRB99500')]);
			const error = result.errorOf(REGISTRY_NODE) as unknown as {
				name: string;
				message: string;
				httpCode: string;
				context: { itemIndex: number };
			};
			expect(error.name).toBe('NodeApiError');
			expect(error.httpCode).toBe('500');
			expect(error.context.itemIndex).toBe(2);
		});

		it('a 400 shows the server message', async () => {
			const engine = engineFor(sandbox);
			const branches = await runRows(engine, [{ country: 'de', companyId: 'HRB<1>' }], {
				onError: 'continueErrorOutput',
			});
			expect(branches.errors[0].json.error).toBe(
				'The registry rejected the input: companyId has invalid characters or length: allowed are 1 to 40 letters, digits, spaces, ".", "-" and "/", starting and ending with a letter or digit',
			);
		});
	});

	describe('rate limits (section 7: 429 is retryable; public notes: Retry-After)', () => {
		it.each(['seconds', 'http-date', 'none'] as const)(
			'waits out 429s inside the execution (Retry-After as %s) and every row succeeds',
			async (format) => {
				sandbox.setRateLimit({ ratePerSecond: 4, burst: 2 });
				sandbox.setRetryAfterFormat(format);
				const engine = engineFor(sandbox);
				await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }]); // token fetched, bucket used
				sandbox.resetCounters();
				const rows = Array.from({ length: 6 }, (_, index) => ({
					country: 'gb',
					companyId: `1000000${index}`,
				}));
				const branches = await runRows(engine, rows);
				expectEachRowOnce(branches, 6);
				expect(branches.notRegistered).toHaveLength(6);
				expect(sandbox.counters.lookupsByStatus[429]).toBeGreaterThan(0);
			},
		);

		it('gives up after Max Rate-Limit Wait with NodeApiError 429, for Retry On Fail to take over', async () => {
			const engine = engineFor(sandbox);
			const started = Date.now();
			const { result } = await runRows(engine, [{ country: 'de', companyId: 'HRB99429' }], {
				options: { maxRateLimitWait: 2.5 },
			});
			const error = result.errorOf(REGISTRY_NODE) as {
				name: string;
				message: string;
				httpCode: string;
			};
			expect(error.name).toBe('NodeApiError');
			expect(error.httpCode).toBe('429');
			expect(error.message).toContain('Max Rate-Limit Wait');
			expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
			// Tried at 0 s and after the first pause (Retry-After: 1 s); refused again with nothing admitted,
			// the third try waits a random phase of its interval (rateControl/workers.ts), so it falls
			// within the 2.5 s or past it.
			expect(sandbox.counters.lookupsByStatus[429]).toBeGreaterThanOrEqual(2);
			expect(sandbox.counters.lookupsByStatus[429]).toBeLessThanOrEqual(3);
		});
	});

	it('identical lookups in one execution make one request; each row keeps its own output item', async () => {
		const engine = engineFor(sandbox);
		const rows = [
			{ country: 'de', companyId: 'HRB12345' },
			{ country: 'DE', companyId: ' HRB12345 ' },
			{ country: 'gb', companyId: '09876543' },
			{ country: 'Germany', companyId: 'HRB12345' },
		];
		const branches = await runRows(engine, rows);
		expect(sandbox.counters.lookups).toBe(2);
		expect(branches.registered.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
		expect(branches.registered[0].json).not.toBe(branches.registered[1].json);
	});

	it('never lets the client secret or a token into outputs or errors', async () => {
		const engine = engineFor(sandbox);
		const rows = [
			{ country: 'de', companyId: 'HRB12345' },
			{ country: 'de', companyId: 'HRB99504' },
			{ country: 'de', companyId: 'HRB99500' },
			{ country: 'de', companyId: 'HRB99901' },
			{ country: 'de', companyId: 'HRB99403' },
			{ country: 'xx', companyId: '1' },
		];
		const continued = await runRows(engine, rows, { onError: 'continueErrorOutput' });
		const stopped = await runRows(engine, rows.slice(1));
		const logs = engine.logs.join('\n');
		// The engine logs the node that failed: the log capture is live.
		expect(logs).toContain('Running node "Company Registry" finished with error');
		const token = String(engine.credentials.stored(CREDENTIAL_ID)?.accessToken);
		expect(token.length).toBeGreaterThan(100);
		for (const serialised of [
			JSON.stringify(continued.result.run),
			JSON.stringify(stopped.result.run),
			logs,
		]) {
			expect(serialised).not.toContain('demo-secret');
			expect(serialised).not.toContain(token);
			expect(serialised).not.toContain(token.split('.')[2]);
		}
		expect(stopped.result.errorOf(REGISTRY_NODE)).toBeDefined();
	});
});

import {
	inputRows,
	lookupSettings,
	lookUpRows,
	redactRecord,
	sharedOptions,
} from '../../nodes/shared/lookupPipeline';
import type { CompanyRecord } from '../../nodes/shared/model/companyRecord';
import { LookupInputError } from '../../nodes/shared/model/lookupKey';

describe('a record on its way to an output', () => {
	const token = 'opaque-token-0123456789';
	const record = {
		isRegistered: true,
		officialName: 'Bearer Holdings Ltd',
		status: 'Active',
		registrationDate: '2020-01-01',
		debug: {
			authorization: `Bearer ${token}`,
			echo: 'client-secret-value',
			jwt: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln',
		},
		notes: [`token ${token}`],
	} as unknown as CompanyRecord;

	it('loses the secrets a registry echoed into any field, and token-shaped values in fields of its own', () => {
		const clean = JSON.stringify(redactRecord(record, [token, 'client-secret-value']));
		expect(clean).not.toContain(token);
		expect(clean).not.toContain('client-secret-value');
		expect(clean).not.toContain('eyJhbGciOiJSUzI1NiJ9');
	});

	it('keeps names and addresses whole but for the secrets ("Bearer Holdings" stays)', () => {
		expect(redactRecord(record, [token]).officialName).toBe('Bearer Holdings Ltd');
	});
});

describe('lookup settings', () => {
	it('clamps a Max Requests per Second that would park the lookups for good', () => {
		expect(
			lookupSettings({ baseUrl: 'https://x' }, { maxRequestsPerSecond: 1e-300 })
				.maxRequestsPerSecond,
		).toBe(0.01);
		expect(
			lookupSettings({ baseUrl: 'https://x' }, { maxRequestsPerSecond: 0 }).maxRequestsPerSecond,
		).toBeUndefined();
	});
});

describe('rows of a stopped execution', () => {
	// An execution stopped before its lookups were sent: each row fails as cancelled, and says so by its
	// cause (the batch runner's `cancelled` kind), not only in its message's words.
	const stoppedExecution = () => {
		const stop = new AbortController();
		stop.abort();
		return {
			getNode: () => ({
				id: 'n',
				name: 'Company Registry',
				type: 'companyRegistry',
				typeVersion: 1,
				position: [0, 0] as [number, number],
				parameters: {},
			}),
			getCredentials: async () => ({ baseUrl: 'https://registry.invalid', clientId: 'c' }),
			getExecutionCancelSignal: () => stop.signal,
			getInputData: () => [],
		} as unknown as Parameters<typeof lookUpRows>[0];
	};
	const rows = {
		count: 3,
		keyAt: (itemIndex: number) => ({ country: 'GB', companyId: `0000000${itemIndex}` }),
	} as unknown as Parameters<typeof lookUpRows>[1];

	it('fail with the cause cancelled, each on its own row', async () => {
		const results = await lookUpRows(stoppedExecution(), rows, {}, { stopAtFirstFailure: false });
		expect(results.map((row) => (row.kind === 'failed' ? row.cause : row.kind))).toEqual([
			'cancelled',
			'cancelled',
			'cancelled',
		]);
		expect(results.map((row) => row.itemIndex)).toEqual([0, 1, 2]);
		expect(
			results.map(
				(row) => row.kind === 'failed' && [row.error.message, row.error.context.itemIndex],
			),
		).toEqual(
			[0, 1, 2].map((itemIndex) => [
				'The lookup was cancelled: the execution was stopped',
				itemIndex,
			]),
		);
	});

	it("under Stop, with every row cancelled: the node fails with the first row's error", async () => {
		const stopped = lookUpRows(stoppedExecution(), rows, {}, { stopAtFirstFailure: true });
		await expect(stopped).rejects.toThrow('The lookup was cancelled');
		await stopped.catch((error: { context: { itemIndex: number } }) =>
			expect(error.context.itemIndex).toBe(0),
		);
	});
});

describe("the node's parameters, read as rows and options", () => {
	/** A node whose parameters are `parameters`; getNodeParameter answers from `values` (per row where a list). */
	const contextOf = (
		parameters: Record<string, unknown>,
		values: Record<string, unknown>,
		rows: Array<Record<string, unknown>> = [{}],
	) => {
		const reads: string[] = [];
		const context = {
			getNode: () => ({ name: 'Company Registry', parameters }),
			getInputData: () => rows.map((json) => ({ json })),
			getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => {
				reads.push(`${name}@${itemIndex}`);
				const value = values[name];
				const own = Array.isArray(value) ? value[itemIndex] : value;
				return own === undefined ? fallback : own;
			},
		};
		return { context: context as unknown as Parameters<typeof sharedOptions>[0], reads };
	};

	it('options: each one set, for row 0, except Language; without a collection, the collection', () => {
		const set = { timeout: 5, maxAttempts: 2, language: '={{ $json.language }}' };
		const { context, reads } = contextOf(
			{ options: set },
			{ 'options.timeout': 9, 'options.maxAttempts': 4, options: { timeout: 1 } },
		);
		expect(sharedOptions(context)).toStrictEqual({ timeout: 9, maxAttempts: 4 });
		expect(reads).toEqual(['options.timeout@0', 'options.maxAttempts@0']);
		for (const options of [undefined, null, ['timeout']]) {
			const whole = contextOf({ options }, { options: { timeout: 1 } });
			expect(sharedOptions(whole.context)).toStrictEqual({ timeout: 1 });
			expect(whole.reads).toEqual(['options@0']);
		}
	});

	it('rows: a Language set once is read once; State only for United States rows', () => {
		const { context, reads } = contextOf(
			{ country: '={{ $json.country }}', options: { language: 'de' } },
			{
				country: ['DE', 'US', 'Atlantis'],
				companyId: ['HRB1', 'C2', 'X'],
				state: ['by', 'de', 'zz'],
				'options.language': 'de',
			},
			[{}, {}, {}],
		);
		const rows = inputRows(context);
		expect(rows.count).toBe(3);
		expect(rows.keyAt(0)).toStrictEqual({
			countryCode: 'de',
			companyId: 'HRB1',
			languageCode: 'de',
		});
		expect(rows.keyAt(1)).toMatchObject({ countryCode: 'us', stateCode: 'de', languageCode: 'de' });
		expect(() => rows.keyAt(2)).toThrow(LookupInputError);
		expect(reads.filter((read) => read.startsWith('options.language'))).toEqual([
			'options.language@0',
		]);
		expect(reads.filter((read) => read.startsWith('state'))).toEqual(['state@1']);
	});

	it('rows: a Language given as an expression is read for each row; where it gives nothing, none', () => {
		const { context, reads } = contextOf(
			{ options: { language: '={{ $json.language }}' } },
			{ country: 'DE', companyId: 'HRB1', 'options.language': ['en', 'fr'] },
			[{}, {}, {}],
		);
		const rows = inputRows(context);
		expect([rows.keyAt(0).languageCode, rows.keyAt(1).languageCode]).toEqual(['en', 'fr']);
		expect(rows.keyAt(2)).toStrictEqual({ countryCode: 'de', companyId: 'HRB1' });
		expect(reads.filter((read) => read.startsWith('options.language'))).toEqual([
			'options.language@0',
			'options.language@1',
			'options.language@2',
		]);
	});

	it.each([
		['no Options', {}],
		['Options without a Language', { options: { timeout: 5 } }],
	])('rows with %s: no language; a Company ID or State not given is named', (_, parameters) => {
		const { context } = contextOf(
			parameters,
			{ country: ['DE', 'US', 'US'], companyId: ['HRB1', undefined, 'C3'] },
			[{}, {}, {}],
		);
		const rows = inputRows(context);
		expect(rows.keyAt(0)).toStrictEqual({ countryCode: 'de', companyId: 'HRB1' });
		expect(() => rows.keyAt(1)).toThrow('Company ID is empty');
		expect(() => rows.keyAt(2)).toThrow('A United States company needs a State');
	});
});

import { deepCopy, NodeApiError, NodeOperationError, type IDataObject } from 'n8n-workflow';

import { standInNode } from '../../harness/standInNode';
import {
	errorItem,
	failAll,
	inputErrorOf,
	lookupSettings,
	lookUpRows,
	redactRecord,
} from '../../nodes/shared/lookupPipeline';
import type { CompanyRecord } from '../../nodes/shared/model/companyRecord';
import { LookupInputError } from '../../nodes/shared/model/lookupKey';

// The pipeline's routing where no request is sent: options read and clamped, rows that cannot be looked
// up, a credential that cannot be read, and the error item each failed row becomes (one per row, paired).

const node = standInNode();
type Context = Parameters<typeof lookUpRows>[0];
type Rows = Parameters<typeof lookUpRows>[1];

describe('lookup settings', () => {
	it('without options: the defaults, and the Base URL without trailing slashes or spaces', () => {
		expect(lookupSettings({ baseUrl: ' https://x.test// ', clientId: 'c' }, {})).toStrictEqual({
			baseUrl: 'https://x.test',
			registryKey: 'https://x.test c',
			timeoutMs: 30_000,
			maxRateLimitWaitMs: 60_000,
			maxConcurrency: 20,
			maxAttempts: 3,
			maxRequestsPerSecond: undefined,
		});
	});

	it('one client, its id pasted with white space at its ends or not: one registry key, one rate controller', () => {
		// The token endpoint gets the id trimmed (the credential), so both credentials spend one limit.
		const typed = lookupSettings({ baseUrl: 'https://x.test', clientId: 'c' }, {}).registryKey;
		expect(lookupSettings({ baseUrl: 'https://x.test', clientId: ' c\n' }, {}).registryKey).toBe(
			typed,
		);
	});

	it('reads numbers given as text, clamps them to their range, and whole numbers where counted', () => {
		expect(
			lookupSettings(
				{ baseUrl: 'https://x.test' },
				{
					timeout: '0.5',
					maxRateLimitWait: 100_000,
					maxConcurrency: 2.7,
					maxAttempts: 99,
					maxRequestsPerSecond: '2.5',
				},
			),
		).toMatchObject({
			registryKey: 'https://x.test ',
			timeoutMs: 1000,
			maxRateLimitWaitMs: 86_400_000,
			maxConcurrency: 2,
			maxAttempts: 10,
			maxRequestsPerSecond: 2.5,
		});
		expect(
			lookupSettings(
				{ baseUrl: 'https://x.test' },
				{ timeout: 700, maxRateLimitWait: -1, maxConcurrency: 0, maxAttempts: 0 },
			),
		).toMatchObject({
			timeoutMs: 600_000,
			maxRateLimitWaitMs: 0,
			maxConcurrency: 1,
			maxAttempts: 1,
		});
		expect(
			lookupSettings({}, { maxRequestsPerSecond: 20_000, timeout: null, maxAttempts: '' }),
		).toMatchObject({
			baseUrl: '',
			maxRequestsPerSecond: 10_000,
			timeoutMs: 30_000,
			maxAttempts: 3,
		});
	});

	it.each([
		['timeout', 'soon', 'The option Request Timeout must be a number from 1 to 600, not "soon"'],
		[
			'maxAttempts',
			Infinity,
			'The option Max Attempts must be a number from 1 to 10, not Infinity',
		],
		[
			'maxConcurrency',
			{ n: 1 },
			'The option Max Concurrent Requests must be a number from 1 to 100, not {"n":1}',
		],
		[
			'maxRateLimitWait',
			NaN,
			'The option Max Rate-Limit Wait must be a number from 0 to 86400, not NaN',
		],
		[
			'maxRequestsPerSecond',
			true,
			'The option Max Requests per Second must be a number from 0 to 10000, not true',
		],
	])('refuses %s = %p, saying what it takes', (name, value, message) => {
		expect(() => lookupSettings({ baseUrl: 'https://x.test' }, { [name]: value })).toThrow(
			new Error(message),
		);
	});
});

describe('the error of a row that cannot be looked up', () => {
	const context = { getNode: () => node } as unknown as Context;

	it("bad input: its message with the row's label, and what is accepted", () => {
		const error = inputErrorOf(
			context,
			new LookupInputError('Country is missing', 'a two-letter code'),
			4,
			'Company 5 of the list: ',
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('Company 5 of the list: Country is missing');
		expect(error.description).toBe('Accepted: a two-letter code.');
		expect(error.context.itemIndex).toBe(4);
	});

	it("n8n's own error passes as it is; anything else becomes one on its row", () => {
		const own = new NodeOperationError(node, 'expression failed', { itemIndex: 2 });
		expect(inputErrorOf(context, own, 7)).toBe(own);
		const thrown = inputErrorOf(context, new Error('boom'), 3);
		expect([thrown.message, thrown.context.itemIndex]).toEqual(['boom', 3]);
		const text = inputErrorOf(context, 'plain text', 1);
		expect([text.message, text.context.itemIndex]).toEqual(['plain text', 1]);
	});
});

describe('rows before any request', () => {
	const contextWith = (getCredentials: () => Promise<unknown>) =>
		({
			getNode: () => node,
			getCredentials,
			getInputData: () => [],
		}) as unknown as Context;
	const rows = (bad: number[] = []): Rows => ({
		count: 3,
		keyAt: (itemIndex) => {
			if (bad.includes(itemIndex)) throw new LookupInputError('Company ID is missing', 'an id');
			return { countryCode: 'gb', companyId: `0000000${itemIndex}` };
		},
		label: (itemIndex) => `Row ${itemIndex + 1}: `,
	});
	const noCredential = async () => {
		throw new Error('Node does not have any credentials set');
	};

	it('a credential that cannot be read fails every row, each on its own, with no lookup key', async () => {
		const results = await lookUpRows(
			contextWith(noCredential),
			rows(),
			{},
			{ stopAtFirstFailure: false },
		);
		expect(
			results.map((row) => [row.kind, row.itemIndex, row.kind === 'failed' && row.error.message]),
		).toEqual([
			['failed', 0, 'Node does not have any credentials set'],
			['failed', 1, 'Node does not have any credentials set'],
			['failed', 2, 'Node does not have any credentials set'],
		]);
		expect(
			results.map((row) => (row.kind === 'failed' ? row.error.context.itemIndex : -1)),
		).toEqual([0, 1, 2]);
		expect(results.every((row) => row.kind === 'failed' && row.key === undefined)).toBe(true);
	});

	it('a broken option fails every row likewise; under Stop, the node fails on row 0', async () => {
		const good = async () => ({ baseUrl: 'https://x.test', clientId: 'c' });
		const results = await lookUpRows(
			contextWith(good),
			rows(),
			{ timeout: 'soon' },
			{ stopAtFirstFailure: false },
		);
		expect(results.map((row) => row.kind)).toEqual(['failed', 'failed', 'failed']);
		const stopped = lookUpRows(contextWith(noCredential), rows(), {}, { stopAtFirstFailure: true });
		await expect(stopped).rejects.toThrow('Node does not have any credentials set');
		await stopped.catch((error: NodeOperationError) => expect(error.context.itemIndex).toBe(0));
	});

	it('under Stop, a bad row fails the node before anything else, with its row and label', async () => {
		const failing = lookUpRows(
			contextWith(noCredential),
			rows([1]),
			{},
			{ stopAtFirstFailure: true },
		);
		await expect(failing).rejects.toThrow('Row 2: Company ID is missing');
		await failing.catch((error: NodeOperationError) => expect(error.context.itemIndex).toBe(1));
	});
});

describe('the item of a failed row', () => {
	it('carries the message, the description, the HTTP code and the lookup, paired with its row', () => {
		const error = new NodeApiError(
			node,
			{},
			{ message: 'Not allowed', description: 'Ask for access', httpCode: '403' },
		);
		expect(
			errorItem({
				kind: 'failed',
				itemIndex: 4,
				key: { countryCode: 'de', companyId: 'X' },
				error,
			}),
		).toStrictEqual({
			json: {
				error: 'Not allowed',
				details: {
					description: 'Ask for access',
					httpCode: '403',
					lookup: { countryCode: 'de', companyId: 'X' },
				},
			},
			pairedItem: { item: 4 },
		});
	});

	it("the registry's error without an HTTP code (no answer came): no code in the item", () => {
		const error = new NodeApiError(
			node,
			{},
			{ message: 'No answer', description: 'The registry did not answer' },
		);
		expect(errorItem({ kind: 'failed', itemIndex: 1, error })).toStrictEqual({
			json: { error: 'No answer', details: { description: 'The registry did not answer' } },
			pairedItem: { item: 1 },
		});
	});

	it('without a description, a code or a key: the message alone', () => {
		const error = new NodeOperationError(node, 'Country is missing');
		error.description = null;
		expect(errorItem({ kind: 'failed', itemIndex: 0, error })).toStrictEqual({
			json: { error: 'Country is missing', details: {} },
			pairedItem: { item: 0 },
		});
	});

	it('every input row fails with one unexpected error, each its own item', () => {
		const context = { getNode: () => node, getInputData: () => [{ json: {} }, { json: {} }] };
		const rows = failAll(context as never, new Error('Unexpected'));
		expect(
			rows.map((row) => [row.kind, row.itemIndex, row.error.message, row.error.context.itemIndex]),
		).toEqual([
			['failed', 0, 'Unexpected', 0],
			['failed', 1, 'Unexpected', 1],
		]);
		expect(failAll(context as never, 'text thrown')[0].error.message).toBe('text thrown');
	});
});

describe('a record on its way to an output, at depth', () => {
	it('cleans nested lists and objects, and names of fields of its own', () => {
		const secret = 'client-secret-4711';
		const record = {
			isRegistered: true,
			officialName: `Name ${secret}`,
			status: 'Active',
			registrationDate: '2020-01-01',
			registeredAddress: `Street ${secret}`,
			[secret]: 1,
			extra: [[`deep ${secret}`], { [secret]: secret, count: 3, none: null }],
		} as unknown as CompanyRecord;
		const clean = redactRecord(record, [secret]);
		expect(JSON.stringify(clean)).not.toContain(secret);
		expect(clean).toMatchObject({
			isRegistered: true,
			status: 'Active',
			registrationDate: '2020-01-01',
		});
		expect(clean.officialName.startsWith('Name ')).toBe(true);
		// Lists stay lists, at any depth; other values pass as they are.
		expect((clean as unknown as { extra: unknown[] }).extra).toStrictEqual([
			['deep [redacted]'],
			{ '[redacted]': '[redacted]', count: 3, none: null },
		]);
	});

	it('keeps in its own fields text that only looks like a credential (a company may be called Bearer)', () => {
		const record = {
			isRegistered: true,
			officialName: 'Bearer Bonds Ltd',
			status: 'Active, Bearer shares',
			registrationDate: '2020-01-01',
			registeredAddress: 'Bearer Lane 5',
			note: 'Bearer Lane 5',
		} as unknown as CompanyRecord;
		expect(redactRecord(record, ['client-secret-4711'])).toStrictEqual({
			...record,
			// A field beyond the record's own loses anything shaped like a credential.
			note: 'Bearer [redacted] 5',
		});
	});

	it('passes a field the registry calls error on as registryError (n8n takes `error` for a failed item)', () => {
		const record = {
			isRegistered: true,
			officialName: 'Errorless Ltd',
			status: 'Active',
			registrationDate: '2020-01-01',
			registeredAddress: 'Error Street 1',
			error: '',
			errors: ['none'],
		} as unknown as CompanyRecord;
		expect(redactRecord(record, ['client-secret-4711'])).toStrictEqual({
			isRegistered: true,
			officialName: 'Errorless Ltd',
			status: 'Active',
			registrationDate: '2020-01-01',
			registeredAddress: 'Error Street 1',
			registryError: '',
			errors: ['none'],
		});
	});

	// The names the item needs, and the names they move to (recordFieldNames.test.ts runs it in the engine).
	const firm = {
		isRegistered: true,
		officialName: 'Names Ltd',
		status: 'Active',
		registrationDate: '2020-01-01',
		registeredAddress: 'Name Street 1',
	};

	it('moves a field named lookup aside, and a registry… field whose name a moved field takes, on again', () => {
		const record = {
			...firm,
			lookup: { source: 'registry' },
			error: 'from error',
			registryError: 'from registryError',
			registryRegistryError: 'from registryRegistryError',
		} as unknown as CompanyRecord;
		expect(redactRecord(record, ['client-secret-4711'])).toStrictEqual({
			...firm,
			registryLookup: { source: 'registry' },
			registryError: 'from error',
			registryRegistryError: 'from registryError',
			registryRegistryRegistryError: 'from registryRegistryError',
		});
	});

	it('keeps a registry… field its name where no field it would make way for is in the record', () => {
		const record = {
			...firm,
			registryError: 'no error field',
			registryLookup: 'no lookup field',
		} as unknown as CompanyRecord;
		expect(redactRecord(record, ['client-secret-4711'])).toStrictEqual(record);
	});

	it('moves a field named __proto__ aside, at the top and nested, as JSON.parse makes it (an own field)', () => {
		const record = JSON.parse(
			JSON.stringify({
				...firm,
				__proto__x: { polluted: 'top' },
				registry__proto__: 'kept',
				filing: {
					__proto__x: { polluted: 'nested' },
					error: 'nested error',
					registry__proto__: 'n',
				},
			}).replace(/__proto__x/g, '__proto__'),
		) as CompanyRecord;
		const item = redactRecord(record, ['client-secret-4711']) as unknown as Record<string, object>;
		expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
		expect(Object.getPrototypeOf(item.filing)).toBe(Object.prototype);
		expect(Object.keys(item)).toEqual([
			...Object.keys(firm),
			'registry__proto__',
			'registryRegistry__proto__',
			'filing',
		]);
		expect(item.registry__proto__).toStrictEqual({ polluted: 'top' });
		expect(item.registryRegistry__proto__).toBe('kept');
		expect(Object.keys(item.filing)).toEqual([
			'registry__proto__',
			'error',
			'registryRegistry__proto__',
		]);
		expect(item.filing).toMatchObject({
			registry__proto__: { polluted: 'nested' },
			error: 'nested error',
			registryRegistry__proto__: 'n',
		});
	});

	// n8n's deepCopy (every node that copies its input items) skips __proto__, constructor and prototype at
	// every depth (n8n-workflow utils.js reservedCopyKeys): a field of such a name was dropped in the next node.
	it('moves fields named constructor and prototype aside too, at the top and nested: the next node copies them', () => {
		const record = JSON.parse(
			JSON.stringify({
				...firm,
				constructor: 'C-1',
				prototype: 'P-0',
				registryConstructor: 'kept',
				filing: { prototype: 'P-1', constructor: { x: 1 }, __proto__x: 'X' },
			}).replace('__proto__x', '__proto__'),
		) as CompanyRecord;
		const item = redactRecord(record, ['client-secret-4711']);
		expect(item).toStrictEqual({
			...firm,
			registryConstructor: 'C-1',
			registryPrototype: 'P-0',
			registryRegistryConstructor: 'kept',
			filing: { registryPrototype: 'P-1', registryConstructor: { x: 1 }, registry__proto__: 'X' },
		});
		const copied = JSON.stringify(deepCopy(item as unknown as IDataObject));
		for (const value of ['"C-1"', '"P-0"', '"kept"', '"P-1"', '{"x":1}', '"X"'])
			expect(copied).toContain(value);
	});

	it('keeps registry_ names where the record holds no field they would make way for, nested too', () => {
		const record = {
			...firm,
			registry__proto__: 'no __proto__ field',
			registry_id: 'no _id field',
			_id: 'an id',
			nested: { registry__proto__: 'no __proto__ here', error: 'stays', lookup: 'stays' },
		} as unknown as CompanyRecord;
		expect(redactRecord(record, ['client-secret-4711'])).toStrictEqual(record);
	});

	it('moves only names that are registry, a capital, and the rest of a moved name', () => {
		const record = {
			...firm,
			error: 'from error',
			lookup: 'from lookup',
			// registry inside a name, a line break after a moved name, a small letter after registry.
			myregistryError: 'inside',
			'registryError\nnote': 'two lines',
			registryerror: 'small letter',
			registryLookup: 'from registryLookup',
		} as unknown as CompanyRecord;
		expect(redactRecord(record, ['client-secret-4711'])).toStrictEqual({
			...firm,
			registryError: 'from error',
			registryLookup: 'from lookup',
			myregistryError: 'inside',
			'registryError\nnote': 'two lines',
			registryerror: 'small letter',
			registryRegistryLookup: 'from registryLookup',
		});
	});
});

import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import type { CompanyRecord } from '../../model/companyRecord';
import {
	countryOptions,
	LookupInputError,
	lookupKeyId,
	nonUsCountryCodes,
	toLookupKey,
	usStateOptions,
	type LookupKey,
} from '../../model/lookupKey';
import { CREDENTIAL_TYPE, RegistryClient, type LookupOutcome } from '../../transport/registryClient';
import { registryError } from '../../transport/registryError';

const showFor = { show: { resource: ['company'], operation: ['lookUp'] } };

const DEFAULT_CONCURRENCY = 20;
/** A hard bound: more would only turn a sheet into a burst that the rate limit answers with 429s. */
const MAX_CONCURRENCY = 100;

export const description: INodeProperties[] = [
	{
		displayName: 'Country',
		name: 'country',
		type: 'options',
		options: countryOptions,
		default: 'de',
		required: true,
		displayOptions: showFor,
		description:
			'Country whose register holds the company. From an expression, a two-letter code in any case (DE), a three-letter code (DEU) or the English name (Germany) also work.',
	},
	{
		displayName: 'Company ID',
		name: 'companyId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'HRB12345',
		displayOptions: showFor,
		description:
			"The company's identifier in that country's register, as issued by the government (in some countries the tax number)",
	},
	{
		displayName: 'State',
		name: 'state',
		type: 'options',
		options: usStateOptions,
		default: 'ca',
		displayOptions: {
			// Shown for the United States, and whenever Country is an expression that may resolve to it.
			show: { resource: ['company'], operation: ['lookUp'] },
			hide: { country: nonUsCountryCodes },
		},
		description:
			'US companies are registered per state. From an expression, the two-letter code (CA, US-CA) or the name (California) also work.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: showFor,
		options: [
			{
				displayName: 'Language',
				name: 'language',
				type: 'string',
				default: '',
				placeholder: 'en',
				description:
					'Language code for the official name and address, e.g. en. Where the register has no text in that language, the native one is returned.',
			},
			{
				displayName: 'Max Concurrent Requests',
				name: 'maxConcurrency',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
				default: DEFAULT_CONCURRENCY,
				description:
					'How many lookups may be in flight at once. The node lowers this by itself when the registry answers 429 and raises it again slowly.',
			},
			{
				displayName: 'Max Rate-Limit Wait (Seconds)',
				name: 'maxRateLimitWait',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 60,
				description:
					"How long one lookup may wait in total when the registry answers 429 Too Many Requests, honouring its Retry-After. After that the item fails with 429, which the node's Retry On Fail setting can retry.",
			},
			{
				displayName: 'Max Requests per Second',
				name: 'maxRequestsPerSecond',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 2 },
				default: 0,
				description:
					'A cap for plans with low quotas, e.g. 4 for 20 requests per 5 seconds. 0 means no cap: the node paces itself by the answers it gets.',
			},
			{
				displayName: 'Request Timeout (Seconds)',
				name: 'timeout',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 30,
				description: 'How long to wait for the registry to answer one request',
			},
		],
	},
];

interface LookupOptions {
	language?: string;
	maxRateLimitWait?: number;
	maxConcurrency?: number;
	maxRequestsPerSecond?: number;
	timeout?: number;
}

/** Reads one row's lookup key from the node parameters. Throws LookupInputError for bad input. */
function readLookupKey(context: IExecuteFunctions, itemIndex: number): LookupKey {
	return toLookupKey({
		country: context.getNodeParameter('country', itemIndex),
		companyId: context.getNodeParameter('companyId', itemIndex, ''),
		state: context.getNodeParameter('state', itemIndex, ''),
		language: context.getNodeParameter('options.language', itemIndex, ''),
	});
}

/** The output item of one row: the record as the API returned it, plus the key to join it back. */
function companyItem(record: CompanyRecord, key: LookupKey, itemIndex: number): INodeExecutionData {
	return { json: { ...record, lookup: { ...key } } as IDataObject, pairedItem: { item: itemIndex } };
}

/** One input row on its way: its key, or why it has none. */
type Row = { key: LookupKey; outcome: Promise<LookupOutcome> } | { inputError: NodeOperationError };

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const node = this.getNode();
	const continueOnFail = this.continueOnFail();
	const credentials = await this.getCredentials(CREDENTIAL_TYPE);
	const options = this.getNodeParameter('options', 0, {}) as LookupOptions;
	const settings = {
		baseUrl: String(credentials.baseUrl).trim().replace(/\/+$/, ''),
		timeoutMs: (options.timeout ?? 30) * 1000,
		maxRateLimitWaitMs: (options.maxRateLimitWait ?? 60) * 1000,
		maxConcurrency: Math.min(MAX_CONCURRENCY, Math.max(1, Math.floor(options.maxConcurrency ?? DEFAULT_CONCURRENCY))),
		maxRequestsPerSecond: options.maxRequestsPerSecond || undefined,
	};
	const client = new RegistryClient(this, settings);

	// Every row's key first: bad input fails its row before any request is made.
	const keys = items.map((_, itemIndex) => {
		try {
			return readLookupKey(this, itemIndex);
		} catch (error) {
			// Bad input, or an expression that failed on this row: the row fails, not the sheet.
			const inputError =
				error instanceof LookupInputError
					? new NodeOperationError(node, error.message, { itemIndex, description: `Accepted: ${error.accepted}.` })
					: new NodeOperationError(node, error as Error, { itemIndex });
			if (!continueOnFail) throw inputError;
			return inputError;
		}
	});

	// All lookups start at once and queue in the rate controller. Identical lookups share one request;
	// each row still gets its own output item.
	const lookups = new Map<string, Promise<LookupOutcome>>();
	const rows: Row[] = keys.map((key) => {
		if (key instanceof NodeOperationError) return { inputError: key };
		const id = lookupKeyId(key);
		let outcome = lookups.get(id);
		if (!outcome) {
			outcome = client.lookUp(key).then((result) => {
				// Without "continue", the first failure stops the node: no point sending the rest.
				if ('failure' in result && !continueOnFail) client.cancelPending();
				return result;
			});
			lookups.set(id, outcome);
		}
		return { key, outcome };
	});

	const registered: INodeExecutionData[] = [];
	const notRegistered: INodeExecutionData[] = [];
	for (const [itemIndex, row] of rows.entries()) {
		let error: NodeOperationError | NodeApiError;
		if ('inputError' in row) {
			error = row.inputError;
		} else {
			const result = await row.outcome;
			if ('record' in result) {
				(result.record.isRegistered ? registered : notRegistered).push(companyItem(result.record, row.key, itemIndex));
				continue;
			}
			// Cancelled only after another row failed; that row's error is the one thrown.
			if ('cancelled' in result) continue;
			error = registryError(result.failure, { node, itemIndex, key: row.key, ...settings });
			if (!continueOnFail) throw error;
		}
		// A failed check must never pass for a registered company: error items leave by Not Registered,
		// or by the error output. Only `error` and `details` keys: n8n then routes the item to the error
		// output with its input row merged in, and keeps the details (it would reduce an item that
		// carries an `error` object to its message).
		notRegistered.push({
			json: {
				error: error.message,
				details: {
					...(error.description ? { description: error.description } : {}),
					...('httpCode' in error && error.httpCode ? { httpCode: error.httpCode } : {}),
					...('key' in row ? { lookup: { ...row.key } } : {}),
				},
			},
			pairedItem: { item: itemIndex },
		});
	}
	if (registered.length + notRegistered.length !== items.length) {
		// Only reachable if a lookup was cancelled without another row failing: never lose a row silently.
		throw new NodeOperationError(node, 'Some rows were not looked up because the execution was cancelled');
	}
	return [registered, notRegistered];
}

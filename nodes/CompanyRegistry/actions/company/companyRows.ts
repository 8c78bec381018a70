import {
	NodeApiError,
	NodeOperationError,
	type ICredentialDataDecryptedObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import {
	countryOptions,
	LookupInputError,
	nonUsCountryCodes,
	toLookupKey,
	usStateOptions,
	type LookupKey,
} from '../../model/lookupKey';
import { CREDENTIAL_TYPE, RegistryClient, type LookupOutcome, type RegistrySettings } from '../../transport/registryClient';
import { registryError } from '../../transport/registryError';

/**
 * What the company operations share: the fields that name a company, the request options, and the
 * way from input rows to lookup outcomes. Each operation file adds its own options and decides what
 * to output.
 */

const DEFAULT_CONCURRENCY = 20;
/** A hard bound: more would only turn a sheet into a burst that the rate limit answers with 429s. */
export const MAX_CONCURRENCY = 100;

/**
 * Country, Company ID and State: shown for the given operation of the node, or, without one, as they
 * stand in the trigger's watchlist entries.
 */
export function companyFields(operation?: string): INodeProperties[] {
	const show = operation ? { resource: ['company'], operation: [operation] } : undefined;
	return [
		{
			displayName: 'Country',
			name: 'country',
			type: 'options',
			options: countryOptions,
			default: 'de',
			required: true,
			...(show ? { displayOptions: { show } } : {}),
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
			...(show ? { displayOptions: { show } } : {}),
			description:
				"The company's identifier in that country's register, as issued by the government (in some countries the tax number)",
		},
		{
			displayName: 'State',
			name: 'state',
			type: 'options',
			options: usStateOptions,
			default: 'ca',
			// Shown for the United States, and whenever Country is an expression that may resolve to it.
			displayOptions: { ...(show ? { show } : {}), hide: { country: nonUsCountryCodes } },
			description:
				'US companies are registered per state. From an expression, the two-letter code (CA, US-CA) or the name (California) also work.',
		},
	];
}

/** Options every company operation has: language and how requests are paced. Sorted by name. */
export const requestOptions: INodeProperties[] = [
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
];

/** Shared by Watch for Changes and the trigger. */
export const reportFirstSightingsOption: INodeProperties = {
	displayName: 'Report First Sightings',
	name: 'reportFirstSightings',
	type: 'boolean',
	default: false,
	description: 'Whether a company checked for the first time is output (event "firstSeen"). Otherwise it only sets the baseline.',
};

export interface RequestOptionValues {
	language?: string;
	maxConcurrency?: number;
	maxRateLimitWait?: number;
	maxRequestsPerSecond?: number;
	timeout?: number;
}

export function registrySettings(credentials: ICredentialDataDecryptedObject, options: RequestOptionValues): RegistrySettings {
	return {
		baseUrl: String(credentials.baseUrl).trim().replace(/\/+$/, ''),
		timeoutMs: (options.timeout ?? 30) * 1000,
		maxRateLimitWaitMs: (options.maxRateLimitWait ?? 60) * 1000,
		maxConcurrency: Math.min(MAX_CONCURRENCY, Math.max(1, Math.floor(options.maxConcurrency ?? DEFAULT_CONCURRENCY))),
		maxRequestsPerSecond: options.maxRequestsPerSecond || undefined,
	};
}

/** One input row after its lookup: the key and what the registry said, or why there was no lookup. */
export type CompanyRow =
	| { itemIndex: number; key: LookupKey; outcome: LookupOutcome }
	| { itemIndex: number; inputError: NodeOperationError };

/**
 * Reads every row's lookup key and looks them all up. Bad input fails its row before any request.
 * Without "continue" (`continueOnFail` false) the first failing row throws, with its item index.
 */
export async function lookUpRows(
	this: IExecuteFunctions,
	options: RequestOptionValues,
	continueOnFail: boolean,
): Promise<{ rows: CompanyRow[]; settings: RegistrySettings }> {
	const node = this.getNode();
	const items = this.getInputData();
	let settings: RegistrySettings;
	try {
		settings = registrySettings(await this.getCredentials(CREDENTIAL_TYPE), options);
	} catch (error) {
		// No usable credential: every row fails with it. Thrown under "continue", n8n would pass the
		// input rows on through the first output, where a failed check could pass for a registered company.
		const credentialError = new NodeOperationError(node, error as Error);
		if (!continueOnFail) throw credentialError;
		return {
			rows: items.map((_, itemIndex) => ({ itemIndex, inputError: new NodeOperationError(node, credentialError.message, { itemIndex }) })),
			settings: registrySettings({ baseUrl: '' }, options),
		};
	}
	const keys = items.map((_, itemIndex) => {
		try {
			return toLookupKey({
				country: this.getNodeParameter('country', itemIndex),
				companyId: this.getNodeParameter('companyId', itemIndex, ''),
				state: this.getNodeParameter('state', itemIndex, ''),
				language: this.getNodeParameter('options.language', itemIndex, ''),
			});
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
	const client = new RegistryClient(this, settings);
	const outcomes = await client.lookUpMany(keys, { stopAtFirstFailure: !continueOnFail });
	const rows = keys.map((key, itemIndex): CompanyRow =>
		key instanceof NodeOperationError ? { itemIndex, inputError: key } : { itemIndex, key, outcome: outcomes[itemIndex]! },
	);
	if (!continueOnFail) {
		// Cancelled lookups only follow another row's failure, whose error is the one thrown.
		for (const row of rows) {
			if ('outcome' in row && 'failure' in row.outcome) throw rowError.call(this, row, settings);
		}
	}
	return { rows, settings };
}

/** The error of a row whose lookup failed (or was cancelled), with its own item index. */
export function rowError(this: IExecuteFunctions, row: CompanyRow, settings: RegistrySettings): NodeOperationError | NodeApiError {
	if ('inputError' in row) return row.inputError;
	const { outcome } = row;
	if ('failure' in outcome) {
		return registryError(outcome.failure, { node: this.getNode(), itemIndex: row.itemIndex, key: row.key, ...settings });
	}
	return new NodeOperationError(this.getNode(), 'The lookup was cancelled', { itemIndex: row.itemIndex });
}

/**
 * The item of a failed row. Only `error` and `details` keys: n8n then routes it to the error output
 * with its input row merged in, and keeps the details (it would reduce an item that carries an `error`
 * object to its message).
 */
export function errorItem(error: NodeOperationError | NodeApiError, row: CompanyRow): INodeExecutionData {
	return {
		json: {
			error: error.message,
			details: {
				...(error.description ? { description: error.description } : {}),
				...('httpCode' in error && error.httpCode ? { httpCode: error.httpCode } : {}),
				...('key' in row ? { lookup: { ...row.key } } : {}),
			},
		},
		pairedItem: { item: row.itemIndex },
	};
}

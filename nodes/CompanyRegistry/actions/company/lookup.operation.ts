import {
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
				displayName: 'Max Rate-Limit Wait (Seconds)',
				name: 'maxRateLimitWait',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 60,
				description:
					"How long one lookup may wait in total when the registry answers 429 Too Many Requests, honouring its Retry-After. After that the item fails with 429, which the node's Retry On Fail setting can retry.",
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

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const credentials = await this.getCredentials(CREDENTIAL_TYPE);
	const options = this.getNodeParameter('options', 0, {}) as LookupOptions;
	const settings = {
		baseUrl: String(credentials.baseUrl).trim().replace(/\/+$/, ''),
		timeoutMs: (options.timeout ?? 30) * 1000,
		maxRateLimitWaitMs: (options.maxRateLimitWait ?? 60) * 1000,
	};
	const client = new RegistryClient(this, settings);
	const continueOnFail = this.continueOnFail();

	const registered: INodeExecutionData[] = [];
	const notRegistered: INodeExecutionData[] = [];
	// Identical lookups in one execution share one request; each row still gets its own output item.
	const lookups = new Map<string, Promise<LookupOutcome>>();

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		let key: LookupKey | undefined;
		try {
			key = readLookupKey(this, itemIndex);
			const id = lookupKeyId(key);
			let outcome = lookups.get(id);
			if (!outcome) {
				outcome = client.lookUp(key);
				lookups.set(id, outcome);
			}
			const result = await outcome;
			if ('failure' in result) {
				throw registryError(result.failure, { node: this.getNode(), itemIndex, key, ...settings });
			}
			(result.record.isRegistered ? registered : notRegistered).push(companyItem(result.record, key, itemIndex));
		} catch (caught) {
			const error =
				caught instanceof LookupInputError
					? new NodeOperationError(this.getNode(), caught.message, { itemIndex, description: `Accepted: ${caught.accepted}.` })
					: caught;
			if (!continueOnFail) throw error;
			// A failed check must never pass for a registered company: error items leave by Not Registered,
			// or by the error output. Only `error` and `details` keys: n8n then routes the item to the error
			// output with its input row merged in, and keeps the details (it would reduce an item that
			// carries an `error` object to its message).
			notRegistered.push({
				json: {
					error: error.message,
					details: {
						...(error.description ? { description: error.description } : {}),
						...(error.httpCode ? { httpCode: error.httpCode } : {}),
						...(key ? { lookup: { ...key } } : {}),
					},
				},
				pairedItem: { item: itemIndex },
			});
		}
	}
	return [registered, notRegistered];
}

import type { INodeProperties } from 'n8n-workflow';

import { countryOptions, nonUsCountryCodes, usStateOptions } from './model/lookupKey';

/**
 * The fields and options that Look Up, Watch for Changes and the trigger share. Each option is named,
 * so an operation picks the ones it offers by name; `lookupPipeline` reads them.
 */

export const DEFAULT_CONCURRENCY = 20;
/** A hard bound: more would only turn a sheet into a burst that the rate limit answers with 429s. */
export const MAX_CONCURRENCY = 100;
export const DEFAULT_ATTEMPTS = 3;
export const MAX_ATTEMPTS = 10;

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
				'Country whose register holds the company. Search by name, ISO code or a common alias (UK, USA, Holland). From an expression, a two-letter code in any case (DE), a three-letter code (DEU) or the English name (Germany) also work.',
		},
		{
			displayName: 'Company ID',
			name: 'companyId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. HRB12345',
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

/** Options every company lookup has: language, and how requests are paced and retried. */
export const requestOptions = {
	language: {
		displayName: 'Language',
		name: 'language',
		type: 'string',
		default: '',
		placeholder: 'e.g. en',
		description:
			'Language of the official name and address, as a language code such as en or pt-BR. Where the register has no text in that language, its own language is returned.',
	},
	maxAttempts: {
		displayName: 'Max Attempts',
		name: 'maxAttempts',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_ATTEMPTS },
		default: DEFAULT_ATTEMPTS,
		description:
			'How many times one lookup is tried when the registry is briefly unavailable (HTTP 500, 502, 503 or 504, 520-524 or 529 from a gateway, 408, a dropped connection, no answer in time), waiting longer each time. Set it to 1 to turn these retries off.',
	},
	maxConcurrency: {
		displayName: 'Max Concurrent Requests',
		name: 'maxConcurrency',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
		default: DEFAULT_CONCURRENCY,
		description:
			'How many lookups may be in flight at once. The node paces itself by what the registry allows, whatever this is.',
	},
	maxRateLimitWait: {
		displayName: 'Max Rate-Limit Wait (Seconds)',
		name: 'maxRateLimitWait',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 60,
		description:
			"How long one lookup may wait in total when the registry answers 429 Too Many Requests and says when to try again. A lookup that would have to wait longer stops at once with 429, and where the registry refuses every lookup from the start for this long (a minute at least), those not yet answered stop too; raise this value, lower 'Max Requests per Second', or turn on the node's 'Retry On Fail' setting.",
	},
	maxRequestsPerSecond: {
		displayName: 'Max Requests per Second',
		name: 'maxRequestsPerSecond',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description:
			"A cap, e.g. to leave part of a quota to other clients. 0 means no cap: the node learns the registry's limit from its answers.",
	},
	timeout: {
		displayName: 'Request Timeout (Seconds)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 30,
		description: 'How long one request may take, from sending it to the last byte of the answer',
	},
} satisfies Record<string, INodeProperties>;

/** Shared by Watch for Changes and the trigger. */
export const reportFirstSightingsOption: INodeProperties = {
	displayName: 'Report First Sightings',
	name: 'reportFirstSightings',
	type: 'boolean',
	default: false,
	description:
		'Whether a company checked for the first time is output (event "firstSeen"). Otherwise it only sets the baseline.',
};

/** Sorted by display name, as n8n's linter wants a collection's options. */
export function sortedOptions(...options: INodeProperties[]): INodeProperties[] {
	return [...options].sort((a, b) => a.displayName.localeCompare(b.displayName));
}

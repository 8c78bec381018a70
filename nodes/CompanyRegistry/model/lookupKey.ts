import { COUNTRIES, US_STATES } from './countries.generated';

/** What one input row asks the registry, normalised: the request is built from this alone. */
export interface LookupKey {
	/** ISO 3166-1 alpha-2, lowercase (section 2.2). */
	countryCode: string;
	/** Trimmed; sent as one percent-encoded path segment. */
	companyId: string;
	/** Lowercase US state code; only for `us`. */
	stateCode?: string;
	languageCode?: string;
}

/** Raw field values of one row, as the node parameters give them (strings, numbers, or nothing). */
export interface LookupFields {
	country: unknown;
	companyId: unknown;
	state?: unknown;
	language?: unknown;
}

/** A row that cannot be looked up: what is wrong, and what would be accepted. */
export class LookupInputError extends Error {
	constructor(
		message: string,
		readonly accepted: string,
	) {
		super(message);
		this.name = 'LookupInputError';
	}
}

/** Lowercase, without accents, apostrophes, punctuation or extra spaces: "Côte d'Ivoire" → "cote divoire". */
function simplify(name: string): string {
	return name
		.normalize('NFD')
		.replace(/\p{M}/gu, '')
		.toLowerCase()
		.replace(/['’]/g, '')
		.replace(/[^a-z0-9]+/g, ' ')
		.trim();
}

/** Common names that are not ISO's short names; everything else comes from the generated table. */
const COUNTRY_ALIASES: Record<string, string> = {
	uk: 'gb',
	'united kingdom': 'gb',
	'great britain': 'gb',
	england: 'gb',
	usa: 'us',
	'united states': 'us',
	america: 'us',
	'south korea': 'kr',
	'north korea': 'kp',
	russia: 'ru',
	iran: 'ir',
	syria: 'sy',
	vietnam: 'vn',
	laos: 'la',
	bolivia: 'bo',
	venezuela: 've',
	tanzania: 'tz',
	moldova: 'md',
	taiwan: 'tw',
	'czech republic': 'cz',
	turkey: 'tr',
	'ivory coast': 'ci',
	netherlands: 'nl',
	holland: 'nl',
};

const countryByInput = new Map<string, string>();
for (const country of COUNTRIES) {
	countryByInput.set(country.code, country.code);
	countryByInput.set(country.alpha3, country.code);
	countryByInput.set(simplify(country.name), country.code);
	// "Bolivia (Plurinational State of)" → "bolivia", "Korea, Republic of" stays whole.
	const short = simplify(country.name.replace(/\s*\(.*\)\s*$/, ''));
	if (!countryByInput.has(short)) countryByInput.set(short, country.code);
}
for (const [alias, code] of Object.entries(COUNTRY_ALIASES)) countryByInput.set(alias, code);

const stateByInput = new Map<string, string>();
for (const state of US_STATES) {
	stateByInput.set(state.code, state.code);
	stateByInput.set(`us ${state.code}`, state.code);
	stateByInput.set(simplify(state.name), state.code);
}

const text = (value: unknown): string =>
	typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';

export function normalizeCountry(input: unknown): string {
	const raw = text(input);
	const accepted = "a two-letter ISO 3166-1 code such as 'de', a three-letter code such as 'deu', or the English name such as 'Germany'";
	if (raw === '') throw new LookupInputError('Country is empty', accepted);
	const code = countryByInput.get(simplify(raw));
	if (!code) throw new LookupInputError(`Unknown country '${raw}'`, accepted);
	return code;
}

export function normalizeUsState(input: unknown): string {
	const raw = text(input);
	const accepted = "a two-letter state code such as 'ca' or 'ny' (also 'US-CA'), or the state's name such as 'California'";
	if (raw === '') {
		throw new LookupInputError('A United States company needs a State: US companies are registered per state', accepted);
	}
	const code = stateByInput.get(simplify(raw));
	if (!code) throw new LookupInputError(`Unknown United States state '${raw}'`, accepted);
	return code;
}

/** Normalises and checks one row before any request is made. Throws LookupInputError. */
export function toLookupKey(fields: LookupFields): LookupKey {
	const countryCode = normalizeCountry(fields.country);
	const companyId = text(fields.companyId);
	if (companyId === '') {
		throw new LookupInputError('Company ID is empty', "the company's registration number as the national register writes it, e.g. 'HRB12345'");
	}
	if (/^\.+$/.test(companyId)) {
		// '.' and '..' would be read as path steps by every URL parser, whatever their encoding.
		throw new LookupInputError(`Company ID '${companyId}' is not an identifier`, 'an id with at least one letter or digit');
	}
	const key: LookupKey = { countryCode, companyId };
	if (countryCode === 'us') key.stateCode = normalizeUsState(fields.state);
	const languageCode = text(fields.language);
	if (languageCode !== '') key.languageCode = languageCode;
	return key;
}

/** Rows with the same id make one request per execution. */
export function lookupKeyId(key: LookupKey): string {
	return [key.countryCode, key.stateCode ?? '', key.companyId, key.languageCode ?? ''].join('\u0000');
}

/** The options lists of the node's Country and State fields. */
export const countryOptions = COUNTRIES.map((country) => ({ name: country.name, value: country.code }));
export const usStateOptions = US_STATES.map((state) => ({ name: state.name, value: state.code }));
export const nonUsCountryCodes = COUNTRIES.filter((country) => country.code !== 'us').map((country) => country.code);

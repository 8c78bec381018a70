import { COUNTRIES, US_STATES, type CountryEntry } from './countries.generated';

/** What one input row asks the registry, normalised: the request is built from this alone. */
export interface LookupKey {
	/** ISO 3166-1 alpha-2, lowercase (section 2.2, "Lookup input parameters"). */
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

/**
 * Lowercase, without accents, apostrophes, dots, punctuation, extra spaces or a leading "the": "Côte
 * d'Ivoire" → "cote divoire", "U.S.A." → "usa" (as "USA"), "The Netherlands" → "netherlands".
 */
function simplify(name: string): string {
	// NFKD, not NFD: the Georgia guard reads the raw Country and State, full-width ones included.
	return name
		.normalize('NFKD')
		.replace(/\p{M}/gu, '')
		.toLowerCase()
		.replace(/['’.]/g, '')
		.replace(/[^a-z0-9]+/g, ' ')
		.trim()
		.replace(/^the /, '');
}

const countryByInput = new Map<string, string>();
/** Short names two countries share ("Virgin Islands": vg and vi): refused, naming both, not taken as one. */
const countriesByShortName = new Map<string, CountryEntry[]>();
for (const country of COUNTRIES) {
	countryByInput.set(country.code, country.code);
	countryByInput.set(country.alpha3, country.code);
	// The common name, ISO's name and the aliases ("UK", "Holland") of generate-countries.mjs.
	for (const name of [country.name, country.isoName, ...country.aliases])
		countryByInput.set(simplify(name), country.code);
	// "Falkland Islands (Malvinas)" → "falkland islands", unless another country has that name.
	const short = simplify(country.isoName.replace(/\s*\(.*\)\s*$/, ''));
	countriesByShortName.set(short, [...(countriesByShortName.get(short) ?? []), country]);
}
for (const [short, countries] of countriesByShortName) {
	if (countries.length === 1 && !countryByInput.has(short))
		countryByInput.set(short, countries[0].code);
}

const stateByInput = new Map<string, string>();
for (const state of US_STATES) {
	stateByInput.set(state.code, state.code);
	stateByInput.set(`us ${state.code}`, state.code);
	stateByInput.set(simplify(state.name), state.code);
}

/** Registry ids are short; a longer value is a pasted paragraph or an attack, not an id. */
export const MAX_FIELD_LENGTH = 100;

/** A lone UTF-16 surrogate: JSON from a webhook may carry one, and no URL can encode it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/**
 * C0 and C1 controls and the invisible formatting characters (bidi marks, zero-width space and joiners,
 * soft hyphen, a byte-order mark inside the text): never part of an identifier, and a copied id that
 * carries one is another id to the registry, which then knows no such company.
 */
const CONTROL = /[\p{Cc}\p{Cf}]/u;

const codePoint = (char: string) =>
	`U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * One field of a row as text: strings are trimmed, finite numbers written out; anything else (an
 * object, an array, a boolean, NaN, Infinity from an expression) is refused with what it was, rather
 * than sent as "[object Object]" or reported as empty.
 */
export function fieldText(name: string, value: unknown, accepted: string): string {
	if (value === undefined || value === null) return '';
	if (typeof value === 'number') {
		if (!Number.isFinite(value))
			throw new LookupInputError(`${name} is ${String(value)}, not a value`, accepted);
		return String(value);
	}
	if (typeof value !== 'string') {
		const kind = Array.isArray(value)
			? 'a list'
			: typeof value === 'object'
				? 'an object'
				: `a ${typeof value}`;
		throw new LookupInputError(`${name} is ${kind}, not text`, accepted);
	}
	const typed = value.trim();
	if (LONE_SURROGATE.test(typed)) {
		throw new LookupInputError(
			`${name} contains a broken character (a lone UTF-16 surrogate)`,
			accepted,
		);
	}
	const control = CONTROL.exec(typed);
	if (control)
		throw new LookupInputError(
			`${name} contains the control character ${codePoint(control[0])}`,
			accepted,
		);
	// Full-width letters and digits (typed with a Japanese or Chinese input method) and no-break spaces
	// (a French spreadsheet's digit groups) read as the id yet are other characters to the registry:
	// NFKC writes each as the character it stands for.
	const text = typed.normalize('NFKC');
	if (text.length > MAX_FIELD_LENGTH) {
		throw new LookupInputError(
			`${name} is ${text.length} characters long; at most ${MAX_FIELD_LENGTH} are accepted`,
			accepted,
		);
	}
	return text;
}

const COUNTRY_ACCEPTED =
	"a two-letter ISO 3166-1 code such as 'de', a three-letter code such as 'deu', or the English name such as 'Germany'";
const STATE_ACCEPTED =
	"a two-letter state code such as 'ca' or 'ny' (also 'US-CA'), or the state's name such as 'California'";
const COMPANY_ID_ACCEPTED =
	"the company's registration number as the national register writes it, e.g. 'HRB12345'";
const LANGUAGE_ACCEPTED = "a language code such as 'en' or 'pt-BR'";

export function normalizeCountry(input: unknown): string {
	const accepted = COUNTRY_ACCEPTED;
	const raw = fieldText('Country', input, accepted);
	if (raw === '') throw new LookupInputError('Country is empty', accepted);
	const code = countryByInput.get(simplify(raw));
	if (code) return code;
	const countries = countriesByShortName.get(simplify(raw));
	if (countries && countries.length > 1) {
		const named = countries.map((country) => `'${country.code}' (${country.name})`).join(' or ');
		throw new LookupInputError(`Country '${raw}' names more than one country: ${named}`, accepted);
	}
	throw new LookupInputError(`Unknown country '${raw}'`, accepted);
}

export function normalizeUsState(input: unknown): string {
	const accepted = STATE_ACCEPTED;
	const raw = fieldText('State', input, accepted);
	if (raw === '') {
		throw new LookupInputError(
			'A United States company needs a State: US companies are registered per state',
			accepted,
		);
	}
	const code = stateByInput.get(simplify(raw));
	if (!code) throw new LookupInputError(`Unknown United States state '${raw}'`, accepted);
	return code;
}

/**
 * Registers whose company numbers are a fixed count of digits, leading zeros written: Companies House
 * (8 characters, 04417982), Belgium's KBO (10 digits, from 0), the Dutch KvK (8 digits). A sheet's
 * number column (Excel's default for digits) drops the zeros, and the register answers not registered.
 */
const FIXED_DIGITS: Readonly<Record<string, number>> = { gb: 8, be: 10, nl: 8 };

/** A Company ID given as a whole number, with the zeros its register writes and a number cannot hold. */
function withLeadingZeros(countryCode: string, given: unknown, companyId: string): string {
	return typeof given === 'number' && /^\d+$/.test(companyId)
		? companyId.padStart(FIXED_DIGITS[countryCode] ?? 0, '0')
		: companyId;
}

/** Normalises and checks one row before any request is made. Throws LookupInputError. */
export function toLookupKey(fields: LookupFields): LookupKey {
	const countryCode = normalizeCountry(fields.country);
	if (
		typeof fields.companyId === 'number' &&
		Number.isFinite(fields.companyId) &&
		Math.abs(fields.companyId) > Number.MAX_SAFE_INTEGER
	) {
		// Past 2^53 a number is no longer the id that was typed: it would look up another company.
		throw new LookupInputError(
			`Company ID is the number ${String(fields.companyId)}, too long to be held exactly as a number; give it as text`,
			COMPANY_ID_ACCEPTED,
		);
	}
	const companyId = withLeadingZeros(
		countryCode,
		fields.companyId,
		fieldText('Company ID', fields.companyId, COMPANY_ID_ACCEPTED),
	);
	if (companyId === '') throw new LookupInputError('Company ID is empty', COMPANY_ID_ACCEPTED);
	if (/^\.+$/.test(companyId)) {
		// '.' and '..' would be read as path steps by every URL parser, whatever their encoding.
		throw new LookupInputError(
			`Company ID '${companyId}' is not an identifier`,
			'an id with at least one letter or digit',
		);
	}
	const key: LookupKey = { countryCode, companyId };
	if (countryCode === 'us') key.stateCode = normalizeUsState(fields.state);
	else refuseStateNamedAsCountry(fields.country, countryCode, fields.state);
	const languageCode = languageTag(fieldText('Language', fields.language, LANGUAGE_ACCEPTED));
	if (languageCode !== '') key.languageCode = languageCode;
	return key;
}

const LANGUAGE_TAG = /^([a-z]{2,3})(?:-([a-z\d]{2,8}))?$/i;

/**
 * A language tag in the case registries write it (`EN` → `en`, `pt-br` → `pt-BR`, `zh-hant` → `zh-Hant`):
 * tags are the same in any case (BCP 47), yet a registry may refuse `EN`. Anything else goes as typed.
 */
function languageTag(text: string): string {
	const tag = LANGUAGE_TAG.exec(text);
	if (!tag) return text;
	const [, language, subtag] = tag;
	if (subtag === undefined) return language.toLowerCase();
	const shaped = /^[a-z]{2}$/i.test(subtag)
		? subtag.toUpperCase()
		: /^[a-z]{4}$/i.test(subtag)
			? subtag[0].toUpperCase() + subtag.slice(1).toLowerCase()
			: subtag;
	return `${language.toLowerCase()}-${shaped}`;
}

/** Rows with the same id make one request per execution. */
export function lookupKeyId(key: LookupKey): string {
	return [key.countryCode, key.stateCode ?? '', key.companyId, key.languageCode ?? ''].join(
		'\u0000',
	);
}

/**
 * A country's name in the Country dropdown: "Germany (DE)", "South Korea (KR; Korea, Republic of)". n8n's
 * dropdown search matches what the user types anywhere in an option's name (Element Plus's filter: one
 * case-insensitive substring of the label; descriptions are not searched), so the ISO code, the aliases
 * and ISO's name, where it differs, stand in the name itself.
 */
function countryOptionName(country: CountryEntry): string {
	const label = `${country.name} (${[country.code.toUpperCase(), ...country.aliases].join(', ')}`;
	return label.toLowerCase().includes(country.isoName.toLowerCase())
		? `${label})`
		: `${label}; ${country.isoName})`;
}

/** The options lists of the node's Country and State fields; the value is the API's ISO code. */
export const countryOptions = COUNTRIES.map((country) => ({
	name: countryOptionName(country),
	value: country.code,
}));
export const usStateOptions = US_STATES.map((state) => ({ name: state.name, value: state.code }));
export const nonUsCountryCodes = COUNTRIES.filter((country) => country.code !== 'us').map(
	(country) => country.code,
);

/**
 * A Country that is also a US state's name (Georgia) beside a State naming that same state (GA): the row
 * may be the state's company, and looked up in the country's register it may match another company
 * there. Any other State is ignored, as for every country but us: the field keeps its default ('ca')
 * where Country is an expression.
 */
function refuseStateNamedAsCountry(country: unknown, countryCode: string, state: unknown): void {
	if (
		!namesUsState(country) ||
		typeof state !== 'string' ||
		stateByInput.get(simplify(state)) !== stateByInput.get(simplify(country))
	)
		return;
	throw new LookupInputError(
		`Country '${country.trim()}' with State '${state.trim()}' names the country '${countryCode}' or the United States state '${stateByInput.get(simplify(state))}'`,
		`Country '${countryCode}' (and no State) for the country, or Country 'us' for the state`,
	);
}

/** A country's name that is also a US state's (Georgia), not a code. */
const namesUsState = (country: unknown): country is string =>
	typeof country === 'string' &&
	simplify(country).length > 3 &&
	stateByInput.has(simplify(country));

/**
 * Whether a row's State is read: for the United States, and beside a Country that names a US state too.
 * Throws, as normalizeCountry, for a country it cannot name.
 */
export const readsState = (country: unknown): boolean =>
	normalizeCountry(country) === 'us' || namesUsState(country);

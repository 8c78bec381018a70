import {
	countryOptions,
	LookupInputError,
	lookupKeyId,
	nonUsCountryCodes,
	normalizeCountry,
	normalizeUsState,
	toLookupKey,
	usStateOptions,
} from '../../../nodes/shared/model/lookupKey';

// Interface document section 2.2: countryCode is lowercase ISO 3166-1 alpha-2; stateCode is required for us.
describe('lookup key', () => {
	it.each([
		['de', 'de'],
		['DE', 'de'],
		[' gb ', 'gb'],
		['DEU', 'de'],
		['gbr', 'gb'],
		['Germany', 'de'],
		['germany', 'de'],
		['United Kingdom of Great Britain and Northern Ireland', 'gb'],
		['United Kingdom', 'gb'],
		['UK', 'gb'],
		['United States of America', 'us'],
		['USA', 'us'],
		['Korea, Republic of', 'kr'],
		['South Korea', 'kr'],
		["Côte d'Ivoire", 'ci'],
		['Cote dIvoire', 'ci'],
		['Bolivia', 'bo'],
		['Japan', 'jp'],
	])('normalises the country %p to %p', (input, code) => {
		expect(normalizeCountry(input)).toBe(code);
	});

	it.each(['xx', 'Atlantis', 'ZZZ', 'd e'])(
		'rejects the unknown country %p, saying what is accepted',
		(input) => {
			expect(() => normalizeCountry(input)).toThrow(
				new LookupInputError(`Unknown country '${input}'`, ''),
			);
			try {
				normalizeCountry(input);
			} catch (error) {
				expect((error as LookupInputError).accepted).toContain("'de'");
			}
		},
	);

	it('rejects an empty country', () => {
		expect(() => normalizeCountry('  ')).toThrow('Country is empty');
		expect(() => normalizeCountry(undefined)).toThrow('Country is empty');
	});

	it.each([
		['ca', 'ca'],
		['CA', 'ca'],
		['US-CA', 'ca'],
		['us-ny', 'ny'],
		['California', 'ca'],
		['new york', 'ny'],
		['District of Columbia', 'dc'],
		['DE', 'de'],
	])('normalises the US state %p to %p', (input, code) => {
		expect(normalizeUsState(input)).toBe(code);
	});

	it('needs a valid state for the United States (our choice for 4.2 rule 5)', () => {
		expect(() => toLookupKey({ country: 'us', companyId: 'C0806592' })).toThrow(
			'A United States company needs a State: US companies are registered per state',
		);
		expect(() => toLookupKey({ country: 'us', companyId: 'C0806592', state: 'Ontario' })).toThrow(
			"Unknown United States state 'Ontario'",
		);
	});

	it('ignores a state outside the United States (2.2: "otherwise unused")', () => {
		expect(toLookupKey({ country: 'de', companyId: 'HRB12345', state: 'ca' })).toEqual({
			countryCode: 'de',
			companyId: 'HRB12345',
		});
	});

	it('trims the id, keeps its inner spaces, and accepts numbers from a sheet', () => {
		expect(toLookupKey({ country: 'gb', companyId: '  HRB 12345 ' }).companyId).toBe('HRB 12345');
		expect(toLookupKey({ country: 'fr', companyId: 732829320 }).companyId).toBe('732829320');
	});

	it.each(['', '   ', undefined, null])('rejects the empty company id %p', (companyId) => {
		expect(() => toLookupKey({ country: 'de', companyId })).toThrow('Company ID is empty');
	});

	it.each(['.', '..', '...'])(
		'rejects the id %p, which a URL would read as a path step',
		(companyId) => {
			expect(() => toLookupKey({ country: 'de', companyId })).toThrow('is not an identifier');
		},
	);

	it('keeps the language when given, and the key id tells identical lookups apart', () => {
		const key = toLookupKey({
			country: 'us',
			companyId: 'C0806592',
			state: 'California',
			language: ' en ',
		});
		expect(key).toEqual({
			countryCode: 'us',
			companyId: 'C0806592',
			stateCode: 'ca',
			languageCode: 'en',
		});
		expect(lookupKeyId(key)).toBe(
			lookupKeyId(
				toLookupKey({ country: 'USA', companyId: 'C0806592 ', state: 'CA', language: 'en' }),
			),
		);
		expect(lookupKeyId(key)).not.toBe(lookupKeyId({ ...key, languageCode: undefined }));
		expect(lookupKeyId(key)).not.toBe(lookupKeyId({ ...key, stateCode: 'ny' }));
	});
});

// The Country and State dropdowns: what the editor lists and what a saved workflow stores.
describe('the dropdown options', () => {
	it.each([
		['de', 'Germany (DE)'],
		['kr', 'South Korea (KR; Korea, Republic of)'],
		['fk', 'Falkland Islands (FK; Falkland Islands (Malvinas))'],
		[
			'gb',
			'United Kingdom (GB, UK, Great Britain, England, Scotland, Wales, Northern Ireland; United Kingdom of Great Britain and Northern Ireland)',
		],
	])('the country %s is listed as %j, and a value the lookup accepts', (code, name) => {
		expect(countryOptions.filter((option) => option.value === code)).toEqual([
			{ name, value: code },
		]);
		expect(normalizeCountry(code)).toBe(code);
	});

	it('lists the states by name, storing their code; the non-US list is every country but the US', () => {
		expect(usStateOptions).toContainEqual({ name: 'California', value: 'ca' });
		expect(nonUsCountryCodes).not.toContain('us');
		expect(nonUsCountryCodes).toContain('de');
		expect(nonUsCountryCodes).toHaveLength(countryOptions.length - 1);
	});
});

describe('names of countries as people write them', () => {
	it.each([
		['Aland Islands', 'ax'],
		// Accents the table does not have: dropped from what is typed too.
		['Perú', 'pe'],
		['México', 'mx'],
		['Curacao', 'cw'],
		['Reunion', 're'],
		// ISO's name without its part in brackets, where no other country has it.
		['Saint Martin', 'mf'],
		['Sint Maarten', 'sx'],
		['Falkland Islands', 'fk'],
		// Both ISO names shorten to "Virgin Islands", which is refused naming both
		// (test/integration/redteam/ambiguousCountryName.test.ts).
		['British Virgin Islands', 'vg'],
		['US Virgin Islands', 'vi'],
	])('%j, accents or brackets aside, is %s', (name, code) => {
		expect(normalizeCountry(name)).toBe(code);
	});

	it.each([
		[{ country: {}, companyId: 'X' }, 'Country is an object, not text'],
		[{ country: 'us', companyId: 'X', state: [] }, 'State is a list, not text'],
	])('names the field that is not text: %j', (fields, message) => {
		const error = ((): unknown => {
			try {
				return toLookupKey(fields);
			} catch (thrown) {
				return thrown;
			}
		})();
		// As n8n's log and a Code node print it.
		expect(String(error)).toBe(`LookupInputError: ${message}`);
	});
});

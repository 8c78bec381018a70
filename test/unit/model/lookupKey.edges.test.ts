import {
	LookupInputError,
	lookupKeyId,
	normalizeCountry,
	normalizeUsState,
	readsState,
	toLookupKey,
} from '../../../nodes/shared/model/lookupKey';

// What a row may hold at the edges of what is accepted: each case is what the user sees on the row
// (the key sent, or the message and what is accepted). Found by mutation testing (issue 27).
const refusal = (fields: Parameters<typeof toLookupKey>[0]) => {
	try {
		toLookupKey(fields);
	} catch (error) {
		expect(error).toBeInstanceOf(LookupInputError);
		return {
			message: (error as LookupInputError).message,
			accepted: (error as LookupInputError).accepted,
		};
	}
	throw new Error(`accepted: ${JSON.stringify(fields)}`);
};

describe('lookup key, at the edges', () => {
	it('refuses a Company ID number past 2^53, either sign, and takes the largest exact one or the same digits as text', () => {
		const tooLong = refusal({ country: 'de', companyId: 2 ** 53 + 2 });
		expect(tooLong.message).toBe(
			'Company ID is the number 9007199254740994, too long to be held exactly as a number; give it as text',
		);
		expect(refusal({ country: 'de', companyId: -(2 ** 53 + 2) }).message).toContain('too long');
		expect(toLookupKey({ country: 'de', companyId: Number.MAX_SAFE_INTEGER }).companyId).toBe(
			'9007199254740991',
		);
		expect(toLookupKey({ country: 'de', companyId: '9007199254740993' }).companyId).toBe(
			'9007199254740993',
		);
	});

	it('accepts an id of 100 characters and refuses one of 101, saying both lengths', () => {
		expect(toLookupKey({ country: 'de', companyId: 'X'.repeat(100) }).companyId).toHaveLength(100);
		expect(refusal({ country: 'de', companyId: 'X'.repeat(101) }).message).toBe(
			'Company ID is 101 characters long; at most 100 are accepted',
		);
		// Counted after trimming: spaces around a long id do not count.
		expect(
			toLookupKey({ country: 'de', companyId: ` ${'X'.repeat(100)} ` }).companyId,
		).toHaveLength(100);
	});

	it('writes full-width characters and no-break spaces as the ones they stand for, and counts those', () => {
		expect(toLookupKey({ country: 'ＤＥ', companyId: ' ＨＲＢ１２３４５ ' })).toEqual({
			countryCode: 'de',
			companyId: 'HRB12345',
		});
		expect(toLookupKey({ country: 'fr', companyId: '732\u202F829\u00A0320' }).companyId).toBe(
			'732 829 320',
		);
		expect(toLookupKey({ country: 'us', companyId: 'C1', state: 'ＣＡ' }).stateCode).toBe('ca');
		// U+FDFA stands for 18 characters: six of them are an id of 108.
		expect(refusal({ country: 'de', companyId: '\uFDFA'.repeat(6) }).message).toBe(
			'Company ID is 108 characters long; at most 100 are accepted',
		);
	});

	it.each([
		['a lone high surrogate at the end', 'HRB\uD800'],
		['a lone high surrogate before a letter', 'HRB\uD800X'],
		['a lone low surrogate at the start', '\uDC00HRB'],
		['a lone low surrogate after a letter', 'H\uDC00RB'],
	])('refuses %s as a broken character', (_label, companyId) => {
		expect(refusal({ country: 'de', companyId }).message).toBe(
			'Company ID contains a broken character (a lone UTF-16 surrogate)',
		);
	});

	it('keeps a character written as a surrogate pair (the registry answers for it)', () => {
		expect(toLookupKey({ country: 'de', companyId: 'HRB\uD83D\uDE00' }).companyId).toBe(
			'HRB\uD83D\uDE00',
		);
	});

	it.each([
		['\u0000', 'U+0000'],
		['\u0009', 'U+0009'],
		['\u007F', 'U+007F'],
		['\u0085', 'U+0085'],
		['\u061C', 'U+061C'],
		['\u200E', 'U+200E'],
		['\u200F', 'U+200F'],
		['\u202A', 'U+202A'],
		['\u2066', 'U+2066'],
		['\u2069', 'U+2069'],
	])('refuses the control character %j inside an id, naming it as %s', (char, name) => {
		expect(refusal({ country: 'de', companyId: `HRB${char}1` }).message).toBe(
			`Company ID contains the control character ${name}`,
		);
	});

	it.each([
		['\u2065', 'a code point between the bidi ranges'],
		['\u202F', 'a narrow no-break space'],
		['\u061D', 'the letter after U+061C'],
	])(
		'keeps %j (%s): not a control character (a no-break space goes as the space it stands for)',
		(char) => {
			expect(toLookupKey({ country: 'de', companyId: `HRB${char}1` }).companyId).toBe(
				`HRB${char}1`.normalize('NFKC'),
			);
		},
	);

	it.each([
		[0, '0'],
		[-7, '-7'],
		[12.5, '12.5'],
	])('writes the number %p out as %p', (companyId, text) => {
		expect(toLookupKey({ country: 'de', companyId }).companyId).toBe(text);
	});

	it.each([
		[Number.NaN, 'Company ID is NaN, not a value'],
		[Number.NEGATIVE_INFINITY, 'Company ID is -Infinity, not a value'],
		[false, 'Company ID is a boolean, not text'],
		[Symbol('id'), 'Company ID is a symbol, not text'],
		[[], 'Company ID is a list, not text'],
		[{}, 'Company ID is an object, not text'],
	])('refuses %p as an id with what it was', (companyId, message) => {
		const { message: said, accepted } = refusal({ country: 'de', companyId });
		expect(said).toBe(message);
		expect(accepted).toBe(
			"the company's registration number as the national register writes it, e.g. 'HRB12345'",
		);
	});

	it('accepts ids made of dots and letters; only dots alone are path steps', () => {
		expect(toLookupKey({ country: 'de', companyId: '.5' }).companyId).toBe('.5');
		expect(toLookupKey({ country: 'de', companyId: 'A.' }).companyId).toBe('A.');
		expect(refusal({ country: 'de', companyId: ' .. ' })).toEqual({
			message: "Company ID '..' is not an identifier",
			accepted: 'an id with at least one letter or digit',
		});
	});

	it('says what is accepted for each field', () => {
		expect(refusal({ country: '', companyId: 'X' })).toEqual({
			message: 'Country is empty',
			accepted:
				"a two-letter ISO 3166-1 code such as 'de', a three-letter code such as 'deu', or the English name such as 'Germany'",
		});
		expect(refusal({ country: 'us', companyId: 'X', state: 'Texxas' }).accepted).toBe(
			"a two-letter state code such as 'ca' or 'ny' (also 'US-CA'), or the state's name such as 'California'",
		);
		expect(refusal({ country: 'de', companyId: 'X', language: 'e\nn' })).toEqual({
			message: 'Language contains the control character U+000A',
			accepted: "a language code such as 'en' or 'pt-BR'",
		});
		expect(refusal({ country: 49, companyId: 'X' }).message).toBe("Unknown country '49'");
		expect(refusal({ country: 'us', companyId: 'X', state: 6 }).message).toBe(
			"Unknown United States state '6'",
		);
	});

	it('reads names the way people write them: any case, accents, curly apostrophes, punctuation, spacing', () => {
		expect(normalizeCountry('CÔTE D’IVOIRE')).toBe('ci');
		expect(normalizeCountry('  germany. ')).toBe('de');
		expect(normalizeCountry('Bosnia--and   Herzegovina')).toBe('ba');
		expect(normalizeCountry('Åland Islands')).toBe('ax');
		expect(normalizeUsState('  new-york ')).toBe('ny');
		expect(normalizeUsState('US CA')).toBe('ca');
		expect(() => normalizeUsState('us')).toThrow("Unknown United States state 'us'");
	});

	it('reads codes written with dots, names with a leading "The", and the nations of the United Kingdom', () => {
		expect(normalizeCountry('U.K.')).toBe('gb');
		expect(normalizeCountry('U.S.A.')).toBe('us');
		expect(normalizeCountry('The Netherlands')).toBe('nl');
		expect(normalizeCountry('the gambia')).toBe('gm');
		for (const nation of ['England', 'Scotland', 'Wales', 'Northern Ireland'])
			expect(normalizeCountry(nation)).toBe('gb');
		expect(normalizeUsState('D.C.')).toBe('dc');
		// Only a leading "the" goes: one inside a name stays a word of it.
		expect(() => normalizeCountry('Netherlands the')).toThrow("Unknown country 'Netherlands the'");
		expect(() => normalizeCountry('theNetherlands')).toThrow("Unknown country 'theNetherlands'");
		expect(normalizeCountry('Saint Vincent and the Grenadines')).toBe('vc');
		expect(() => normalizeCountry('Saint Vincent and Grenadines')).toThrow(
			"Unknown country 'Saint Vincent and Grenadines'",
		);
	});

	it('a language given empty is no language; a number is written out', () => {
		expect(toLookupKey({ country: 'de', companyId: 'X', language: '  ' })).toEqual({
			countryCode: 'de',
			companyId: 'X',
		});
		expect(toLookupKey({ country: 'de', companyId: 'X', language: 5 }).languageCode).toBe('5');
	});

	it('a language tag goes in the case registries write it; anything not a tag goes as typed', () => {
		const sent = (language: string) =>
			toLookupKey({ country: 'de', companyId: 'X', language }).languageCode;
		// Language, region and script subtags in their written case (BCP 47: the same tag in any case).
		expect(sent('EN')).toBe('en');
		expect(sent('pt-br')).toBe('pt-BR');
		expect(sent('zh-HANT')).toBe('zh-Hant');
		expect(sent('ES-419')).toBe('es-419');
		expect(sent('SGN-ASE1')).toBe('sgn-ASE1');
		// Not a language tag: sent as the user typed it.
		for (const typed of ['English', '1EN', 'e', 'en-', 'en-b', 'en-GB-oed', 'en-1ABCD', 'en-ABCDE'])
			expect(sent(typed)).toBe(typed);
	});

	it('one key id per distinct lookup: state, id and language never run into each other', () => {
		const ids = [
			{ countryCode: 'us', stateCode: 'ca', companyId: 'X' },
			{ countryCode: 'us', companyId: 'caX' },
			{ countryCode: 'us', companyId: 'X', languageCode: 'ca' },
			{ countryCode: 'us', companyId: 'X' },
			{ countryCode: 'usc', companyId: 'aX' },
		].map(lookupKeyId);
		expect(new Set(ids).size).toBe(ids.length);
	});
});

// A Country that is also a US state's name (Georgia) beside a State naming that state (red team): the
// row may be the state's company, so it is refused, naming both readings; any other State, and a State
// beside any other country, is not read.
describe('lookup key, a country named as a US state', () => {
	it('refuses Georgia beside the state Georgia, naming both readings, the values trimmed', () => {
		expect(refusal({ country: ' Georgia ', companyId: '1', state: ' GA ' })).toEqual({
			message:
				"Country 'Georgia' with State 'GA' names the country 'ge' or the United States state 'ga'",
			accepted: "Country 'ge' (and no State) for the country, or Country 'us' for the state",
		});
		expect(refusal({ country: 'georgia', companyId: '1', state: 'US-GA' }).message).toBe(
			"Country 'georgia' with State 'US-GA' names the country 'ge' or the United States state 'ga'",
		);
	});

	it.each([
		['Georgia without a State', { country: 'Georgia', companyId: '1' }, 'ge'],
		[
			'Georgia with a State that is no US state',
			{ country: 'Georgia', companyId: '1', state: 'Tbilisi' },
			'ge',
		],
		// The State field's default ('ca') where Country is an expression: another state is no second reading.
		[
			'Georgia beside another US state',
			{ country: 'Georgia', companyId: '1', state: ' California ' },
			'ge',
		],
		[
			'Georgia with a State that is a number',
			{ country: 'Georgia', companyId: '1', state: 6 },
			'ge',
		],
		[
			'a code that is also a state code, beside a state',
			{ country: 'de', companyId: '1', state: 'ca' },
			'de',
		],
		['Germany beside a state', { country: 'Germany', companyId: '1', state: 'California' }, 'de'],
		['Georgia by its code beside a state', { country: 'ge', companyId: '1', state: 'ca' }, 'ge'],
	])('%s: looked up in the country, the State not read', (_label, fields, countryCode) => {
		expect(toLookupKey(fields)).toEqual({ countryCode, companyId: '1' });
	});

	it.each([
		['us', true],
		['United States', true],
		['Georgia', true],
		[' georgia ', true],
		['ge', false],
		['de', false],
		['Germany', false],
	])('reads the State beside Country %p: %p', (country, reads) => {
		expect(readsState(country)).toBe(reads);
	});

	it('refuses an unknown country as the key does', () => {
		expect(() => readsState('Atlantis')).toThrow("Unknown country 'Atlantis'");
	});
});

describe('a Company ID given as a number, for a register that writes leading zeros', () => {
	it.each([
		['gb', 4417982, '04417982'],
		['gb', 0, '00000000'],
		['gb', 12345678, '12345678'],
		['gb', 123456789, '123456789'],
		['be', 403170701, '0403170701'],
		['nl', 1234567, '01234567'],
		['de', 1234567, '1234567'],
		['gb', 1.5, '1.5'],
		['gb', -5, '-5'],
		['gb', '4417982', '4417982'],
		['nl', ' 1234567 ', '1234567'],
	])('%s %j is looked up as %j', (country, companyId, sent) => {
		expect(toLookupKey({ country, companyId }).companyId).toBe(sent);
	});
});

import { readsState, toLookupKey } from '../../../nodes/shared/model/lookupKey';

// Reviewer's find (session 40, on 1270c62): Country and State in full-width characters are read since
// NFKC (fieldText), but the guard for a Country that is also a US state's name (Georgia) beside a State
// naming that same state reads the raw values through `simplify`, which folds no full-width letter: the
// row is looked up in the country Georgia's register, where its id may match another company. Each case
// failed on ac756e7.

const GEORGIA_OR_GA = "names the country 'ge' or the United States state 'ga'";

describe('a Country that is also a US state, beside that state, in full-width characters', () => {
	it.each([
		['a full-width Country', 'Ｇｅｏｒｇｉａ', 'GA'],
		['a full-width State code', 'Georgia', 'ＧＡ'],
		['a full-width State name', 'Georgia', 'Ｇｅｏｒｇｉａ'],
	])('%s is refused as the half-width one is', (_label, country, state) => {
		expect(() => toLookupKey({ country, companyId: '1', state })).toThrow(GEORGIA_OR_GA);
		expect(() => toLookupKey({ country: 'Georgia', companyId: '1', state: 'GA' })).toThrow(
			GEORGIA_OR_GA,
		);
	});

	it('a full-width Georgia has its State read, as Georgia has', () => {
		expect(readsState('Georgia')).toBe(true);
		expect(readsState('Ｇｅｏｒｇｉａ')).toBe(true);
	});
});

import { COUNTRIES } from '../../nodes/shared/model/countries.generated';
import { loadCompanies, type StoredCompany } from '../../sandbox/registry';
import { FAULT_IDS } from '../../sandbox/server';

const companies = loadCompanies();
const digits = (id: string) => id.replace(/\D/g, '');

/** Check digits of the id formats that have one. */
const checkDigitValid: Record<string, (id: string) => boolean> = {
	// SIREN: Luhn.
	fr: (id) => luhn(id),
	// CNPJ: two mod-11 check digits.
	br: (id) => {
		const d = digits(id).split('').map(Number);
		const check = (length: number) => {
			const weights =
				length === 12
					? [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
					: [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
			const rest = weights.reduce((sum, weight, index) => sum + weight * d[index], 0) % 11;
			return rest < 2 ? 0 : 11 - rest;
		};
		return d.length === 14 && check(12) === d[12] && check(13) === d[13];
	},
	// Japanese corporate number: the first digit checks the other twelve.
	jp: (id) => {
		const base = id.slice(1).split('').reverse().map(Number);
		const sum = base.reduce((total, digit, index) => total + digit * (index % 2 === 0 ? 1 : 2), 0);
		return Number(id[0]) === 9 - (sum % 9);
	},
	// OGRN: the 13th digit is the first twelve mod 11, mod 10.
	ru: (id) => Number((BigInt(id.slice(0, 12)) % 11n) % 10n) === Number(id[12]),
	// Korean business registration number.
	kr: (id) => {
		const d = digits(id).split('').map(Number);
		const weights = [1, 3, 7, 1, 3, 7, 1, 3, 5];
		const sum =
			weights.reduce((total, weight, index) => total + weight * d[index], 0) +
			Math.floor((d[8] * 5) / 10);
		return (10 - (sum % 10)) % 10 === d[9];
	},
	// Israeli company number: the identity-number check.
	il: (id) =>
		id
			.split('')
			.map((digit, index) => Number(digit) * (index % 2 === 0 ? 1 : 2))
			.reduce((sum, value) => sum + (value > 9 ? value - 9 : value), 0) %
			10 ===
		0,
};

function luhn(id: string): boolean {
	const sum = id
		.split('')
		.reverse()
		.map(Number)
		.reduce((total, digit, index) => {
			if (index % 2 === 0) return total + digit;
			const doubled = digit * 2;
			return total + (doubled > 9 ? doubled - 9 : doubled);
		}, 0);
	return sum % 10 === 0;
}

const formats: Record<string, RegExp> = {
	de: /^HR[AB]\d{5}$/,
	gb: /^(\d{8}|(SC|NI)\d{6})$/,
	fr: /^\d{9}$/,
	br: /^\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}$/,
	jp: /^\d{13}$/,
	ru: /^\d{13}$/,
	gr: /^\d{12}$/,
	kr: /^\d{3}-\d{2}-\d{5}$/,
	il: /^51\d{7}$/,
	nl: /^\d{8}$/,
};
const usFormats: Record<string, RegExp> = {
	ca: /^C\d{7}$/,
	de: /^\d{7}$/,
	ny: /^\d{7}$/,
	tx: /^\d{10}$/,
};

// The one id the issue fixes by hand: its leading digit does not satisfy the corporate-number check.
const FIXED_EXAMPLE_WITH_INVALID_CHECK_DIGIT = 'jp/1010001000001';

describe('sandbox data file (sandbox/companies.json)', () => {
	it('holds at least 60 companies across at least 10 countries, all with a valid record of 2.1', () => {
		expect(companies.length).toBeGreaterThanOrEqual(60);
		expect(new Set(companies.map((company) => company.country)).size).toBeGreaterThanOrEqual(10);
		const codes = new Set(COUNTRIES.map((country) => country.code));
		for (const company of companies) {
			expect(codes.has(company.country)).toBe(true);
			expect(['Active', 'Inactive']).toContain(company.status);
			expect(company.registrationDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
			expect(new Date(`${company.registrationDate}T00:00:00Z`).toISOString().slice(0, 10)).toBe(
				company.registrationDate,
			);
		}
	});

	it('has no id twice and none of the reserved fault ids', () => {
		const keys = companies.map(
			(company) => `${company.country}/${company.state ?? ''}/${company.companyId}`,
		);
		expect(new Set(keys).size).toBe(keys.length);
		for (const id of Object.keys(FAULT_IDS)) expect(keys).not.toContain(`de//${id}`);
		expect(keys).not.toContain('de//HRB00000');
	});

	it("uses each country's id format, with valid check digits where the format has them", () => {
		for (const company of companies) {
			const format =
				company.country === 'us' ? usFormats[company.state!] : formats[company.country];
			expect({ id: company.companyId, ok: format.test(company.companyId) }).toEqual({
				id: company.companyId,
				ok: true,
			});
			const check = checkDigitValid[company.country];
			if (
				check &&
				`${company.country}/${company.companyId}` !== FIXED_EXAMPLE_WITH_INVALID_CHECK_DIGIT
			) {
				expect({ id: company.companyId, valid: check(company.companyId) }).toEqual({
					id: company.companyId,
					valid: true,
				});
			}
		}
	});

	it('the check-digit functions reject a wrong digit (so the test above can fail)', () => {
		expect(checkDigitValid.fr('732829321')).toBe(false);
		expect(checkDigitValid.br('11.222.333/0001-82')).toBe(false);
		expect(checkDigitValid.jp('1010001000001')).toBe(false);
		expect(checkDigitValid.ru('1027700132284')).toBe(false);
		expect(checkDigitValid.kr('220-81-56786')).toBe(false);
		expect(checkDigitValid.il('514321984')).toBe(false);
	});

	it('covers the scripts and places the issue asks for', () => {
		const countries = new Set(companies.map((company) => company.country));
		for (const code of ['de', 'gb', 'fr', 'br', 'us', 'jp', 'ru', 'gr', 'kr', 'il'])
			expect(countries).toContain(code);
		const usStates = new Set(
			companies.filter((company) => company.country === 'us').map((company) => company.state),
		);
		expect(usStates.size).toBeGreaterThanOrEqual(3);
		const nameOf = (country: string) =>
			companies
				.filter((company) => company.country === country)
				.map((company) => company.officialName)
				.join('');
		expect(nameOf('ru')).toMatch(/\p{Script=Cyrillic}/u);
		expect(nameOf('gr')).toMatch(/\p{Script=Greek}/u);
		expect(nameOf('kr')).toMatch(/\p{Script=Hangul}/u);
		expect(nameOf('il')).toMatch(/\p{Script=Hebrew}/u);
		expect(nameOf('jp')).toMatch(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u);
	});

	it('mixes statuses, records without an address and English names', () => {
		const count = (predicate: (company: StoredCompany) => boolean) =>
			companies.filter(predicate).length;
		expect(count((company) => company.status === 'Inactive')).toBeGreaterThan(5);
		expect(count((company) => company.registeredAddress === undefined)).toBeGreaterThan(5);
		expect(
			count((company) => company.translations?.en?.officialName !== undefined),
		).toBeGreaterThan(3);
	});
});

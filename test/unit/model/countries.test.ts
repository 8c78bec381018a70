import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { COUNTRIES } from '../../../nodes/shared/model/countries.generated';
import { countryOptions, normalizeCountry } from '../../../nodes/shared/model/lookupKey';

// The country and state tables are generated from the `iso-3166` dataset; a hand edit or a new
// dataset version must not go unnoticed.
const TABLE = 'nodes/shared/model/countries.generated.ts';

describe('countries.generated.ts', () => {
	it('is exactly what the generator makes from the dataset', () => {
		expect(() =>
			execFileSync('node', ['scripts/generate-countries.mjs', '--check'], { stdio: 'pipe' }),
		).not.toThrow();
	});

	it('a table edited by hand fails the check', () => {
		const edited = join(mkdtempSync(join(tmpdir(), 'countries-')), 'countries.generated.ts');
		const table = readFileSync(TABLE, 'utf8');
		const handEdited = table.replace("name: 'Germany'", "name: 'Deutschland'");
		expect(handEdited).not.toBe(table);
		writeFileSync(edited, handEdited);
		expect(() =>
			execFileSync('node', ['scripts/generate-countries.mjs', '--check', edited], {
				stdio: 'pipe',
			}),
		).toThrow();
	});
});

/**
 * What n8n's options dropdown shows for a search: n8n renders an `options` parameter as an Element Plus
 * select (`filterable`, no filter method of its own), whose options stay visible when the typed text is
 * a case-insensitive substring of the option's label (its name); descriptions are not searched.
 */
function dropdownSearch(query: string): string[] {
	const typed = new RegExp(
		query.replace(/[|\\{}()[\]^$+*?.]/g, '\\$&').replace(/-/g, '\\x2d'),
		'i',
	);
	return countryOptions
		.filter((option) => typed.test(String(option.name)))
		.map((option) => option.value);
}

describe('the Country dropdown', () => {
	it.each([
		['United Kingdom', 'gb'],
		['UK', 'gb'],
		['GB', 'gb'],
		['Great Britain', 'gb'],
		['United Kingdom of Great Britain and Northern Ireland', 'gb'],
		['USA', 'us'],
		['United States of America', 'us'],
		['South Korea', 'kr'],
		['Korea, Republic of', 'kr'],
		['North Korea', 'kp'],
		['Netherlands', 'nl'],
		['Netherlands, Kingdom of the', 'nl'],
		['Holland', 'nl'],
		['Taiwan', 'tw'],
		['Taiwan, Province of China', 'tw'],
		['Czechia', 'cz'],
		['Czech Republic', 'cz'],
		['Russia', 'ru'],
		['Russian Federation', 'ru'],
		['Iran', 'ir'],
		['Bolivia', 'bo'],
		['Vietnam', 'vn'],
		['Viet Nam', 'vn'],
		['Syria', 'sy'],
		['Laos', 'la'],
		['Turkey', 'tr'],
		['Ivory Coast', 'ci'],
		['Cote d', 'ci'],
		['Curacao', 'cw'],
		['DR Congo', 'cd'],
		['Vatican', 'va'],
		['Holy See', 'va'],
		['germany', 'de'],
	])('finds %p: %p', (query, code) => {
		expect(dropdownSearch(query)).toContain(code);
	});

	it('finds every country by its common name, its ISO name, its ISO code and each alias', () => {
		const missed = COUNTRIES.flatMap((country) =>
			[country.name, country.isoName, country.code, country.code.toUpperCase(), ...country.aliases]
				.filter((query) => !dropdownSearch(query).includes(country.code))
				.map((query) => `${query} → ${country.code}`),
		);
		expect(missed).toEqual([]);
	});

	it('shows the common name first, sorted by it: "United Kingdom (GB, UK, …)"', () => {
		const gb = countryOptions.find((option) => option.value === 'gb')!;
		expect(gb.name).toMatch(/^United Kingdom \(GB, UK, /);
		expect(countryOptions.find((option) => option.value === 'de')!.name).toBe('Germany (DE)');
		const names = countryOptions.map((option) => String(option.name));
		expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en')));
	});

	it('stores the ISO code, as before: every assigned ISO 3166-1 country once, so saved workflows keep their value', () => {
		// The dataset is an ES module, which this Jest setup does not load: asked in a Node of its own.
		const script =
			"import { iso31661 } from 'iso-3166'; console.log(JSON.stringify(iso31661.filter((c) => c.state === 'assigned').map((c) => c.alpha2.toLowerCase())))";
		const assigned = JSON.parse(
			execFileSync('node', ['--input-type=module', '-e', script], { encoding: 'utf8' }),
		) as string[];
		expect(assigned.length).toBeGreaterThan(240);
		const values = countryOptions.map((option) => option.value);
		expect(new Set(values).size).toBe(values.length);
		expect([...values].sort()).toEqual([...assigned].sort());
	});

	it('every fixed country in the templates and test workflows is still an option', () => {
		const folders = ['examples/workflows', 'test/workflows'];
		const fixed = folders.flatMap((folder) =>
			readdirSync(folder)
				.filter((file) => file.endsWith('.json'))
				.flatMap((file) =>
					[...readFileSync(join(folder, file), 'utf8').matchAll(/"country":\s*"([a-z]{2})"/g)].map(
						(match) => match[1],
					),
				),
		);
		expect(fixed.length).toBeGreaterThan(0);
		expect(fixed.filter((code) => !countryOptions.some((option) => option.value === code))).toEqual(
			[],
		);
	});

	it('an expression accepts the same names: common, ISO, aliases, codes', () => {
		const wrong = COUNTRIES.flatMap((country) =>
			[
				country.name,
				country.isoName,
				country.alpha3,
				country.code.toUpperCase(),
				...country.aliases,
			]
				.filter((input) => normalizeCountry(input) !== country.code)
				.map((input) => `${input} → ${normalizeCountry(input)}, not ${country.code}`),
		);
		expect(wrong).toEqual([]);
	});
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The country and state tables are generated from the `iso-3166` dataset; a hand edit or a new
// dataset version must not go unnoticed.
const TABLE = 'nodes/shared/model/countries.generated.ts';

describe('countries.generated.ts', () => {
	it('is exactly what the generator makes from the dataset', () => {
		expect(() => execFileSync('node', ['scripts/generate-countries.mjs', '--check'], { stdio: 'pipe' })).not.toThrow();
	});

	it('a table edited by hand fails the check', () => {
		const edited = join(mkdtempSync(join(tmpdir(), 'countries-')), 'countries.generated.ts');
		writeFileSync(edited, readFileSync(TABLE, 'utf8').replace('"Germany"', '"Deutschland"'));
		expect(() => execFileSync('node', ['scripts/generate-countries.mjs', '--check', edited], { stdio: 'pipe' })).toThrow();
	});
});

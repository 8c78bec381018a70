import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import {
	beginsOnLine,
	EQUIVALENTS_FILE,
	type Equivalent,
	staleEquivalents,
} from '../../scripts/equivalentLines';

const MODULE = `export function due(rate: number | undefined, now: number, at: number): boolean {
	return (
		rate !== undefined &&
		(now > at || rate > 2)
	);
}
`;

const entry = (fields: Partial<Equivalent>): Equivalent => ({
	file: 'nodes/due.ts',
	mutator: 'EqualityOperator',
	original: 'now > at',
	replacement: 'now >= at',
	reason: 'why',
	...fields,
});

function repository(entries: Equivalent[]): string {
	const root = mkdtempSync(join(tmpdir(), 'equivalent-lines-'));
	mkdirSync(join(root, 'nodes'));
	mkdirSync(join(root, 'test/mutation'), { recursive: true });
	writeFileSync(join(root, 'nodes/due.ts'), MODULE);
	writeFileSync(join(root, EQUIVALENTS_FILE), JSON.stringify(entries));
	return root;
}

// A listed mutant counts only at its line (scripts/mutation.ts); npm run lint names each entry whose line
// does not hold its text (scripts/lint-package.ts).
describe('the equivalent mutants at their lines', () => {
	it('hold for the repository', () => {
		expect(staleEquivalents(resolve(__dirname, '../..'))).toEqual([]);
	});

	it('names an entry whose line moved, with the lines that hold its text now', () => {
		const root = repository([entry({ line: 4 }), entry({ line: 3 })]);
		expect(staleEquivalents(root)).toEqual([
			'nodes/due.ts:3 EqualityOperator now > at -> now >= at (text now on lines 4)',
		]);
	});

	it('reads a text that spans lines as a mutant has it, from the line it begins on', () => {
		const spanning = entry({
			mutator: 'LogicalOperator',
			original: 'rate !== undefined &&\n\t\t(now > at || rate > 2)',
			replacement: 'rate !== undefined || now > at || rate > 2',
		});
		expect(staleEquivalents(repository([{ ...spanning, line: 3 }]))).toEqual([]);
		expect(staleEquivalents(repository([{ ...spanning, line: 4 }]))).toEqual([
			'nodes/due.ts:4 LogicalOperator rate !== undefined && (now > at || rate > 2) -> rate !== undefined || now > at (text now on lines 3)',
		]);
	});

	it('names an entry whose text left its file or its line, or whose file is gone', () => {
		const root = repository([
			entry({ original: 'now > at' }),
			entry({ original: 'now > then' }),
			entry({ line: 4, original: 'now > then' }),
			entry({ file: 'nodes/gone.ts', line: 4 }),
		]);
		expect(staleEquivalents(root)).toEqual([
			'nodes/due.ts:- EqualityOperator now > then -> now >= at (text not in the file)',
			'nodes/due.ts:4 EqualityOperator now > then -> now >= at (text now on no line)',
			'nodes/gone.ts:4 EqualityOperator now > at -> now >= at (no such file)',
		]);
	});

	it('finds a text begun anywhere on its line, and not one begun on the line before', () => {
		expect(beginsOnLine(MODULE, 4, 'rate > 2')).toBe(true);
		expect(beginsOnLine(MODULE, 4, 'rate !== undefined')).toBe(false);
		expect(beginsOnLine(MODULE, 3, 'rate !== undefined')).toBe(true);
		expect(beginsOnLine(MODULE, 0, 'rate')).toBe(false);
		expect(beginsOnLine(MODULE, 99, 'rate')).toBe(false);
	});
});

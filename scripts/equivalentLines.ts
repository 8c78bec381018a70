// test/mutation/equivalent-mutants.json lists each equivalent mutant by its line; scripts/mutation.ts
// counts a mutant as listed only where its line is the entry's. An entry left behind when its line moved
// matches nothing: its mutant reads as a survivor in a whole run, and the entry outlives its reason
// unseen (session 44 found 28 so, pace.ts's 12 lines off since an earlier re-lining). npm run lint
// (scripts/lint-package.ts) names each entry whose line does not hold its text, so a move re-lines them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const EQUIVALENTS_FILE = 'test/mutation/equivalent-mutants.json';

/** One equivalent mutant: where (file), which change (mutator, the original text and its replacement), why. */
export interface Equivalent {
	file: string;
	/** The mutant's line, where the same change of the same text could be made elsewhere in the file. */
	line?: number;
	mutator: string;
	original: string;
	replacement: string;
	reason: string;
}

/** Text as a mutant's is compared: every run of white space one space (a mutant may span lines). */
export const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Whether `original` begins on line `line` (1-based) of `source`, running on to later lines if it spans them. */
export function beginsOnLine(source: string, line: number, original: string): boolean {
	const lines = source.split('\n');
	if (line < 1 || line > lines.length) return false;
	const wanted = squash(original);
	const from = lines.slice(0, line - 1).join('\n').length + (line > 1 ? 1 : 0);
	const to = from + lines[line - 1].length;
	// Enough of what follows for the text however its lines are indented (an entry may hold it squashed).
	const text = source.slice(0, to + original.length + 1000);
	for (let at = from; at < to; at++)
		if (text[at] === wanted[0] && squash(text.slice(at)).startsWith(wanted)) return true;
	return false;
}

/** The 1-based lines of `source` on which `original` begins. */
export const linesHolding = (source: string, original: string): number[] =>
	source
		.split('\n')
		.map((_, index) => index + 1)
		.filter((line) => beginsOnLine(source, line, original));

/**
 * Every entry whose text is not where it says, as `file:line mutator original -> replacement (text now on
 * lines ...)`: its line does not hold its original text, or (an entry without a line) its file does not.
 */
export function staleEquivalents(root: string, list = EQUIVALENTS_FILE): string[] {
	const entries = JSON.parse(readFileSync(join(root, list), 'utf8')) as Equivalent[];
	const stale: string[] = [];
	for (const { file, line, mutator, original, replacement } of entries) {
		const path = join(root, file);
		const source = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
		const named = `${file}:${line ?? '-'} ${mutator} ${squash(original).slice(0, 50)} -> ${squash(replacement).slice(0, 30)}`;
		if (source === undefined) stale.push(`${named} (no such file)`);
		else if (line === undefined) {
			if (!squash(source).includes(squash(original))) stale.push(`${named} (text not in the file)`);
		} else if (!beginsOnLine(source, line, original)) {
			const now = linesHolding(source, original);
			stale.push(
				`${named} (text now on ${now.length > 0 ? `lines ${now.join(', ')}` : 'no line'})`,
			);
		}
	}
	return stale;
}

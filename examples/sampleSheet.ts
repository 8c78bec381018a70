import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** A small CSV reader: a header row, comma-separated cells, no quoting (the sample sheet needs none). */
export function readCsv(path = 'examples/sample-sheet.csv'): Array<Record<string, string>> {
	const [header, ...lines] = readFileSync(resolve(path), 'utf8').trim().split(/\r?\n/);
	const columns = header.split(',');
	return lines.map((line) =>
		Object.fromEntries(line.split(',').map((cell, index) => [columns[index], cell.trim()])),
	);
}

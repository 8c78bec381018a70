// Issue 20: "No file in nodes/shared/transport/ over 300 lines." A transport module that grows past it
// holds more than one concern (rateControl/window.ts reached 376); npm run lint (scripts/lint-package.ts)
// names each file over, so the cap holds without anybody counting.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const TRANSPORT_FOLDER = 'nodes/shared/transport';
export const TRANSPORT_FILE_MAX_LINES = 300;

/** Lines as `wc -l` counts them in a file that ends with a newline; a last line without one counts too. */
export function lineCount(text: string): number {
	if (text === '') return 0;
	return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Every `.ts` file under `folder` (subfolders included) over `maxLines`, as `path: N lines`, paths from `root`. */
export function filesOverCap(
	root: string,
	folder = TRANSPORT_FOLDER,
	maxLines = TRANSPORT_FILE_MAX_LINES,
): string[] {
	const over: string[] = [];
	const entries = readdirSync(join(root, folder), { recursive: true, withFileTypes: true });
	for (const entry of entries) {
		if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
		const path = join(entry.parentPath, entry.name);
		const lines = lineCount(readFileSync(path, 'utf8'));
		if (lines > maxLines) over.push(`${relative(root, path)}: ${lines} lines`);
	}
	return over.sort();
}

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { filesOverCap, lineCount, TRANSPORT_FILE_MAX_LINES } from '../../scripts/transportFileCap';

const lines = (count: number): string => 'x;\n'.repeat(count);

// Issue 20's cap: no file in nodes/shared/transport/ (subfolders included) over 300 lines, checked by
// npm run lint (scripts/lint-package.ts).
describe('the transport cap of lines', () => {
	it('holds for the repository', () => {
		expect(filesOverCap(resolve(__dirname, '../..'))).toEqual([]);
	});

	it('names each file over, in subfolders too, and no other', () => {
		const root = mkdtempSync(join(tmpdir(), 'transport-cap-'));
		const folder = join(root, 'nodes/shared/transport');
		mkdirSync(join(folder, 'rateControl/headers'), { recursive: true });
		writeFileSync(join(folder, 'atCap.ts'), lines(TRANSPORT_FILE_MAX_LINES));
		writeFileSync(join(folder, 'over.ts'), lines(TRANSPORT_FILE_MAX_LINES + 1));
		writeFileSync(join(folder, 'rateControl/window.ts'), lines(376));
		writeFileSync(join(folder, 'rateControl/headers/deep.ts'), lines(TRANSPORT_FILE_MAX_LINES + 1));
		writeFileSync(join(folder, 'rateControl/notes.md'), lines(1000));
		expect(filesOverCap(root)).toEqual([
			'nodes/shared/transport/over.ts: 301 lines',
			'nodes/shared/transport/rateControl/headers/deep.ts: 301 lines',
			'nodes/shared/transport/rateControl/window.ts: 376 lines',
		]);
	});

	it('counts lines as wc -l does, and a last line without its newline', () => {
		expect(lineCount('')).toBe(0);
		expect(lineCount('a\n')).toBe(1);
		expect(lineCount('a\nb')).toBe(2);
		expect(lineCount('a\n\n')).toBe(2);
	});
});

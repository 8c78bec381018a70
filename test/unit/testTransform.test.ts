import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import ts from 'typescript';

// Jest runs the package and its tests as test/transform.js (esbuild) compiles them; n8n runs what tsc
// builds. tsconfig's `strict` makes tsc emit every module strict: there an assignment into a text, or into
// a frozen object, throws. Compiled sloppy, the same line does nothing: a test that tampers with saved
// static data through one tests nothing (tamperedFailing did, once the companies became one text), and a
// defect of the package that throws in n8n passes under jest.

const ROOT = join(__dirname, '..', '..');
/** test/transform.js, as jest loads it (CommonJS, no types). */
const transform = createRequire(__filename)('../transform.js') as {
	process(source: string, path: string): { code: string };
};

/** A module as tsc builds it under tsconfig.json's options. */
function asTscBuilds(source: string): string {
	const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (path) =>
		readFileSync(path, 'utf8'),
	);
	const { options } = ts.convertCompilerOptionsFromJson(
		(config as { compilerOptions: object }).compilerOptions,
		ROOT,
	);
	return ts.transpileModule(source, { compilerOptions: options }).outputText;
}

describe("jest's transform compiles as tsc builds the package", () => {
	it('a module of the package is strict, as tsc builds it', () => {
		const path = join(ROOT, 'nodes', 'shared', 'watch', 'memory.ts');
		const source = readFileSync(path, 'utf8');
		expect(asTscBuilds(source).startsWith('"use strict";')).toBe(true);
		expect(transform.process(source, path).code.startsWith('"use strict";')).toBe(true);
	});

	it('an assignment into a text throws in a test, as in n8n', () => {
		const companies: unknown = '{"de/HRB12345":{"s":"A","d":20000}}';
		expect(() => {
			(companies as Record<string, unknown>)['de/HRB12345'] = { s: 'I', d: 20_001 };
		}).toThrow(TypeError);
	});
});

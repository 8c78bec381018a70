// Jest's transform for TypeScript: esbuild (tsx's, which package.json already holds) strips the types file
// by file, as ts-jest did with isolatedModules; type checking is `npm run typecheck`'s job. Measured on the
// repository's 192 .ts files: ts.transpileModule about 6 s of CPU, esbuild 0.2 s, and every jest worker
// transpiles anew on a cold cache (CI's fresh clone, each mutation run's sandbox).
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { dirname } = require('node:path');

const esbuild = require(require.resolve('esbuild', { paths: [dirname(require.resolve('tsx'))] }));

const OPTIONS = {
	loader: 'ts',
	format: 'cjs',
	target: 'es2022',
	sourcemap: true,
	// As tsc compiles import() for CommonJS: a require, since jest runs no ES modules here.
	supported: { 'dynamic-import': false },
	// As tsc compiles for es2022 (tsconfig.json): class fields are defined, not assigned; and every module
	// strict, as `strict` makes tsc emit it (sloppy, an assignment into a text does nothing instead of throwing).
	tsconfigRaw: { compilerOptions: { useDefineForClassFields: true, alwaysStrict: true } },
};
const VERSION = createHash('sha1')
	.update(esbuild.version)
	.update(JSON.stringify(OPTIONS))
	.update(readFileSync(__filename))
	.digest('hex');

module.exports = {
	getCacheKey(source, path, { configString }) {
		return createHash('sha1')
			.update(VERSION)
			.update(configString)
			.update(path)
			.update(source)
			.digest('hex');
	},
	process(source, path) {
		const { code, map } = esbuild.transformSync(source, { ...OPTIONS, sourcefile: path });
		return { code, map };
	},
};

// Lint for the code this repository never ships: the sandbox registry, tests, benchmarks, scripts and
// examples. They run on Node (node:http, timers, console, child processes), so n8n's community-node rules,
// which forbid exactly that in a node, do not apply here; eslint.config.mjs (n8n's default, unmodified)
// lints what is shipped. Run with `eslint -c eslint.dev.config.mjs` (npm run lint does).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{ ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'nodes/**', 'credentials/**'] },
	{
		files: ['{sandbox,test,bench,scripts,examples}/**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended],
		languageOptions: { globals: globals.node },
		rules: {
			// `const { key: _, ...rest } = record` is how a test drops a field; the rest is what it uses.
			'@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
		},
	},
	{
		// Tests read arbitrary JSON bodies and assert on them; the assertion is the type check there.
		files: ['test/**/*.ts'],
		rules: { '@typescript-eslint/no-explicit-any': 'off' },
	},
	{
		files: ['{sandbox,test,bench,scripts,examples}/**/*.{js,mjs,cjs}', '*.{js,mjs,cjs}'],
		extends: [js.configs.recommended],
		languageOptions: { globals: { ...globals.node, ...globals.jest } },
	},
);

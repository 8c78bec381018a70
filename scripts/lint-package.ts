// `n8n-node lint` (strict) on exactly the files the package is made of: package.json, the unmodified
// eslint.config.mjs, the tsconfigs, nodes/ and credentials/, staged in a temporary folder. n8n-node lint
// runs `eslint .` over its working folder, and n8n's default config lints every .ts file there
// (@n8n/node-cli dist/commands/lint.js:22, dist/configs/eslint.js:18-19); this repository also holds the
// sandbox, tests, benchmarks and scripts, which rightly use node:http, timers and console, so staging
// gives n8n-node lint the package folder n8n expects (README, Development: why not a packages/ folder);
// eslint.dev.config.mjs lints the rest. First, the transport's cap of lines (scripts/transportFileCap.ts)
// and the equivalent mutants' lines (scripts/equivalentLines.ts).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { EQUIVALENTS_FILE, staleEquivalents } from './equivalentLines';
import { filesOverCap, TRANSPORT_FILE_MAX_LINES, TRANSPORT_FOLDER } from './transportFileCap';

const root = resolve(__dirname, '..');
const shipped = [
	'package.json',
	'eslint.config.mjs',
	'tsconfig.json',
	'tsconfig.build.json',
	'nodes',
	'credentials',
];

const over = filesOverCap(root);
if (over.length > 0)
	console.error(
		`lint: over the cap of ${TRANSPORT_FILE_MAX_LINES} lines in ${TRANSPORT_FOLDER}/ (split along its concerns):\n${over.map((file) => `  ${file}`).join('\n')}`,
	);
const stale = staleEquivalents(root);
if (stale.length > 0)
	console.error(
		`lint: entries of ${EQUIVALENTS_FILE} whose line does not hold their text (re-line them; drop those whose mutant is gone):\n${stale.map((entry) => `  ${entry}`).join('\n')}`,
	);

const stage = mkdtempSync(join(tmpdir(), 'n8n-lint-package-'));
try {
	for (const entry of shipped) cpSync(join(root, entry), join(stage, entry), { recursive: true });
	symlinkSync(join(root, 'node_modules'), join(stage, 'node_modules'), 'dir');
	const args = ['n8n-node', 'lint', ...process.argv.slice(2)];
	const result = spawnSync(join(root, 'node_modules', '.bin', args[0]), args.slice(1), {
		cwd: stage,
		stdio: 'inherit',
	});
	process.exitCode = over.length > 0 || stale.length > 0 ? 1 : (result.status ?? 1);
} finally {
	rmSync(stage, { recursive: true, force: true });
}

#!/usr/bin/env bash
# One-shot: moves the n8n package into packages/n8n-nodes-company-registry (see README, Development), so
# `n8n-node lint` runs in a folder that holds only shipped code. Run from the repository root on a clean
# tree, then `npm install && npm test`, review, commit, and delete this file.
set -euo pipefail
P=packages/n8n-nodes-company-registry
mkdir -p "$P"

# 1. What the package is made of moves; the root keeps sandbox/, test/, bench/, scripts/, examples/, docs/.
git mv nodes credentials gulpfile.js eslint.config.mjs CHANGELOG.md "$P/"
git mv tsconfig.build.json "$P/tsconfig.json"
cp LICENSE "$P/LICENSE"            # npm packs the package folder's LICENSE; GitHub reads the root one
git rm -q --cached scripts/lint-package.ts && rm scripts/lint-package.ts   # staging is no longer needed

printf '%s\n' "$P/README.md" >> .gitignore

# 2. The lint for non-shipped code becomes the root's eslint.config.mjs and leaves packages/ to n8n-node lint.
git mv eslint.dev.config.mjs eslint.config.mjs
sed -i "s#'nodes/\*\*', 'credentials/\*\*'#'packages/**'#; s#which forbid exactly that in a node, do not apply here; eslint.config.mjs#which forbid exactly that in a node, do not apply here; $P/eslint.config.mjs#; s#Run with \`eslint -c eslint.dev.config.mjs\` (npm run lint does)#npm run lint runs it after n8n-node lint#" eslint.config.mjs

# 3. Relative imports of shipped code from the root's folders gain the package folder.
grep -rlE "(\.\./)+(nodes|credentials)/" sandbox test bench scripts examples --include='*.ts' --include='*.mjs' --include='*.js' |
	xargs -r sed -i -E "s#((\.\./)+)(nodes|credentials)/#\1$P/\3/#g"

# 4. Compiler settings: the package's tsconfig extends the root one; the root typechecks everything.
sed -i 's#"extends": "./tsconfig.json"#"extends": "../../tsconfig.json"#' "$P/tsconfig.json"
sed -i "s#\"credentials/\*\*/\*\", \"nodes/\*\*/\*\",#\"$P/credentials/**/*\", \"$P/nodes/**/*\",#" tsconfig.json

# 5. The real-n8n helpers and the scan build and pack in the package folder.
sed -i "s#^export const packageRoot = root;#export const packageRoot = join(root, '$P');#" scripts/lib/realN8n.ts

# 6. The publish workflow reads the version from, and publishes, the package folder.
sed -i "s#require('./package.json').version#require('./$P/package.json').version#; s#npm publish --provenance --access public#npm publish --provenance --access public -w n8n-nodes-company-registry#" .github/workflows/publish.yml

# 7. package.json splits: the package's manifest moves, the root becomes a private workspace root.
node - "$P" <<'JS'
const fs = require('node:fs');
const dir = process.argv[2];
const all = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const packageKeys = ['name', 'version', 'description', 'keywords', 'license', 'author', 'homepage', 'bugs', 'repository',
	'engines', 'files', 'n8n', 'peerDependencies'];
const pkg = {};
for (const key of packageKeys) pkg[key] = all[key];
pkg.repository = { ...all.repository, directory: dir };
pkg.scripts = {
	// The root README stays the project's page (and the target of the nodes' documentation links); npm shows
	// the package folder's README, so the build copies it there (git-ignored; npm packs it all the same).
	build: "tsc -p tsconfig.json && gulp build:icons && node -e \"require('node:fs').copyFileSync('../../README.md', 'README.md')\"",
	lint: 'n8n-node lint',
	'lint:fix': 'n8n-node lint --fix',
};
fs.writeFileSync(`${dir}/package.json`, JSON.stringify(pkg, null, 2) + '\n');
const w = `-w ${all.name}`;
const rootManifest = {
	name: `${all.name}-repository`,
	private: true,
	description: `Development repository of ${all.name}: the package in ${dir}, its sandbox registry, tests and benchmarks.`,
	license: all.license,
	workspaces: [dir],
	engines: all.engines,
	scripts: {
		...all.scripts,
		build: `npm run build ${w}`,
		lint: `npm run lint ${w} && eslint .`,
		'lint:fix': `npm run lint:fix ${w} && eslint --fix .`,
	},
	devDependencies: all.devDependencies,
};
fs.writeFileSync('package.json', JSON.stringify(rootManifest, null, 2) + '\n');
JS
echo "moved; now: npm install && npm test, then update README (see Development) and the documentation links"

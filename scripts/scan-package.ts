// n8n's verification scan, run before publishing, against what `npm pack` would ship. It calls
// @n8n/scan-community-package's own analyzePackage (its eslint config, plugins and no-console) on both of
// its legs: the source the provenance attestation points at (package.json, nodes/, credentials/) and the
// unpacked tarball (dist/**/*.js and the published package.json). The scanner's first gate, npm
// provenance, can only be read from the registry after `npm publish --provenance`; here we check what
// makes it possible: a GitHub repository the attestation can name and a publish workflow that signs.
// Then the manifest and codex checks n8n's loader relies on. Needs `npm run build` first (npm test does).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Checklist, packageRoot, root, run } from '../test/e2e/lib/realN8n';

interface Manifest {
	name: string;
	version: string;
	keywords?: string[];
	author?: { name?: string; email?: string; url?: string };
	homepage?: string;
	bugs?: { url?: string };
	repository?: { type?: string; url?: string };
	dependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
	n8n?: { n8nNodesApiVersion?: number; strict?: boolean; nodes?: string[]; credentials?: string[] };
}

/** The same pattern the scanner uses to read the source repository out of a provenance statement. */
const GITHUB_REPOSITORY =
	/^git\+https:\/\/github\.com\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?(?:@|$)/;

async function main(): Promise<void> {
	const list = new Checklist('scan');
	if (!existsSync(join(packageRoot, 'dist')))
		throw new Error('dist/ is missing: run npm run build first');

	const work = mkdtempSync(join(tmpdir(), 'n8n-scan-'));
	try {
		const tarball = run('npm', ['pack', '--silent', '--pack-destination', work], {
			cwd: packageRoot,
		})
			.trim()
			.split('\n')
			.pop()!;
		const packageDir = join(work, 'package');
		mkdirSync(packageDir);
		run('tar', ['-xzf', join(work, tarball), '-C', packageDir, '--strip-components=1']);
		const shipped = listFiles(packageDir);
		list.log(`packed ${tarball}: ${shipped.length} files`);

		// The scanner makes a temporary folder when it loads; under TMPDIR=work it goes with ours.
		process.env.TMPDIR = work;
		const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(
			'@n8n/scan-community-package/scanner/scanner.mjs'
		);
		const sourceLeg = await analyzePackage(packageRoot, SOURCE_FILE_PATTERNS);
		list.check(
			sourceLeg.passed,
			`scanner, source leg (${SOURCE_FILE_PATTERNS.join(', ')})${failure(sourceLeg)}`,
		);
		const tarballLeg = await analyzePackage(packageDir, ['**/*.js', 'package.json']);
		list.check(
			tarballLeg.passed,
			`scanner, tarball leg (**/*.js, package.json; no-console)${failure(tarballLeg)}`,
		);
		for (const details of [sourceLeg.details, tarballLeg.details])
			if (details) console.log(details);

		const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Manifest;
		checkManifest(list, manifest, shipped);
		checkCodex(list, manifest, packageDir, shipped);
		checkPublishing(list, manifest);
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
	list.log(list.failures === 0 ? 'all checks passed' : `${list.failures} check(s) failed`);
	process.exitCode = list.failures === 0 ? 0 : 1;
}

function failure(result: { passed: boolean; message?: string }): string {
	return result.passed ? '' : `: ${result.message}`;
}

function listFiles(dir: string, prefix = ''): string[] {
	return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
		const path = prefix ? `${prefix}/${entry.name}` : entry.name;
		return entry.isDirectory() ? listFiles(dir, path) : [path];
	});
}

function checkManifest(list: Checklist, manifest: Manifest, shipped: string[]): void {
	list.check(
		/^(@[a-z0-9-]+\/)?n8n-nodes-[a-z0-9-]+$/.test(manifest.name),
		`name ${manifest.name} follows n8n-nodes-*`,
	);
	list.check(
		manifest.keywords?.includes('n8n-community-node-package') === true,
		'keyword n8n-community-node-package',
	);
	list.check(Object.keys(manifest.dependencies ?? {}).length === 0, 'no runtime dependencies');
	list.check(
		Object.keys(manifest.peerDependencies ?? {}).join() === 'n8n-workflow',
		'n8n-workflow is the only peer dependency',
	);
	list.check(manifest.n8n?.strict === true, 'n8n.strict is true');
	const entries = [...(manifest.n8n?.nodes ?? []), ...(manifest.n8n?.credentials ?? [])];
	const missing = entries.filter((entry) => !shipped.includes(entry));
	list.check(
		entries.length > 0 && missing.length === 0,
		`every n8n.nodes / n8n.credentials entry is in the tarball${missing.length ? `: missing ${missing.join(', ')}` : ''}`,
	);
	const extra = shipped.filter(
		(file) =>
			!file.startsWith('dist/') && !/^(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/.test(file),
	);
	list.check(
		extra.length === 0,
		`the tarball holds dist/, package.json, README, CHANGELOG, LICENSE only${extra.length ? `: also ${extra.join(', ')}` : ''}`,
	);
	const tests = shipped.filter((file) =>
		/(^|\/)(test|sandbox|bench|scripts|examples)\/|\.test\.js$/.test(file),
	);
	list.check(
		tests.length === 0,
		`no test, sandbox, bench, script or example code shipped${tests.length ? `: ${tests.join(', ')}` : ''}`,
	);
}

/** n8n's node loader reads <Name>.node.json next to <Name>.node.js for the node's categories and documentation links. */
function checkCodex(
	list: Checklist,
	manifest: Manifest,
	packageDir: string,
	shipped: string[],
): void {
	const repository = repositoryUrl(manifest);
	for (const node of manifest.n8n?.nodes ?? []) {
		const codexPath = node.replace(/\.js$/, '.json');
		if (!shipped.includes(codexPath)) {
			list.check(false, `codex ${codexPath} is shipped`);
			continue;
		}
		const codex = JSON.parse(readFileSync(join(packageDir, codexPath), 'utf8'));
		const nodeName = node
			.split('/')
			.pop()!
			.replace(/\.node\.js$/, '');
		const links = [
			...(codex.resources?.primaryDocumentation ?? []),
			...(codex.resources?.credentialDocumentation ?? []),
		].map((link: { url?: string }) => link.url ?? '');
		list.check(
			codex.node === `${manifest.name}.${lowerFirst(nodeName)}` &&
				typeof codex.nodeVersion === 'string' &&
				typeof codex.codexVersion === 'string' &&
				Array.isArray(codex.categories) &&
				codex.categories.length > 0 &&
				links.length > 0 &&
				links.every((url) => repository !== undefined && url.startsWith(repository)),
			`codex ${codexPath}: node ${codex.node}, categories ${JSON.stringify(codex.categories)}, ${links.length} documentation link(s) into the repository`,
		);
	}
}

function checkPublishing(list: Checklist, manifest: Manifest): void {
	const match = GITHUB_REPOSITORY.exec(manifest.repository?.url ?? '');
	list.check(
		match !== null,
		`repository.url ${manifest.repository?.url} is a GitHub repository provenance can name`,
	);
	const repository = repositoryUrl(manifest);
	const agree = [manifest.homepage, manifest.bugs?.url, manifest.author?.url].every(
		(url) => repository && url?.startsWith(repository),
	);
	list.check(agree, 'homepage, bugs and author.url point into the same repository');
	list.check(
		/^[^@\s]+@[^@\s]+\.[a-z]+$/i.test(manifest.author?.email ?? ''),
		`author has an email (${manifest.author?.email})`,
	);
	const workflowPath = join(root, '.github', 'workflows', 'publish.yml');
	const workflow = existsSync(workflowPath) ? readFileSync(workflowPath, 'utf8') : '';
	list.check(
		/id-token:\s*write/.test(workflow) && /npm publish --provenance/.test(workflow),
		'.github/workflows/publish.yml publishes with npm provenance (id-token: write, npm publish --provenance)',
	);
}

function repositoryUrl(manifest: Manifest): string | undefined {
	const match = GITHUB_REPOSITORY.exec(manifest.repository?.url ?? '');
	return match ? `https://github.com/${match[1]}/${match[2]}` : undefined;
}

function lowerFirst(text: string): string {
	return text.charAt(0).toLowerCase() + text.slice(1);
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});

// npm run dev [-- --fresh]: the node in a real n8n editor, for trying it and for working on it.
//   1. prepares Node 24 and n8n (the ones npm run test:n8n uses; the first time downloads about 3 GB);
//   2. builds the package into a user folder that persists between runs (<cache>/dev; --fresh starts
//      it over), where n8n loads it as an installed community package;
//   3. starts the sandbox registry, and makes the "Company Registry (sandbox)" credential point at it;
//   4. imports the templates of examples/workflows (the first time, so edits to them survive);
//   5. starts n8n with its owner set up, and prints the editor's address and the owner's sign-in;
//   6. rebuilds on every change (tsc --watch) and n8n reloads the node (N8N_DEV_RELOAD);
//   7. on Ctrl-C, stops n8n, the compiler and the sandbox, by their own process ids.
import { type ChildProcess } from 'node:child_process';
import {
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';

import { DEMO_CLIENT, startSandbox, type Sandbox } from '../sandbox/server';
import {
	cache,
	Checklist,
	freePort,
	importCredential as importCredentialFile,
	isN8nPrepared,
	N8N_VERSION,
	n8nCli,
	OWNER,
	PACKAGE_NAME,
	prepareN8n,
	Processes,
	root,
	startN8n,
} from '../test/e2e/lib/realN8n';

const { values } = parseArgs({ options: { fresh: { type: 'boolean', default: false } } });

const CREDENTIAL = { id: 'company-registry-sandbox', name: 'Company Registry (sandbox)' };
/** n8n's own default port and the sandbox's (npm run sandbox): taken when free, so bookmarks keep working. */
const PREFERRED_N8N_PORT = 5678;
const PREFERRED_SANDBOX_PORT = 4010;

/** N8N_DEV_USER_FOLDER: another folder (npm run test:n8n runs this script in a throwaway one). */
const userFolder = process.env.N8N_DEV_USER_FOLDER ?? join(cache, 'dev');
/** Where n8n's Community Nodes screen would have installed the package; the compiler writes into it. */
const packageDir = join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
const tsc = join(root, 'node_modules', '.bin', 'tsc');

/** A child's output as lines. */
const lines = (chunk: Buffer) =>
	chunk
		.toString()
		.split(/\r?\n/)
		.map((line) => line.trim())
		.filter((line) => line !== '');

const checklist = new Checklist('dev');
const log = (message: string) => checklist.log(message);
const processes = new Processes();

async function portOr(preferred: number): Promise<number> {
	const { createServer } = await import('node:net');
	const free = await new Promise<boolean>((done) => {
		const server = createServer()
			.once('error', () => done(false))
			.listen(preferred, '127.0.0.1', () => server.close(() => done(true)));
	});
	return free ? preferred : await freePort();
}

/**
 * The package as n8n installs it: package.json without dev and peer dependencies (n8n provides
 * n8n-workflow), the compiled code and the icons and codex files TypeScript does not emit. n8n reads
 * the installed packages from .n8n/nodes/package.json.
 */
function installPackage(): void {
	const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
	delete manifest.devDependencies;
	delete manifest.peerDependencies;
	delete manifest.scripts;
	mkdirSync(packageDir, { recursive: true });
	writeFileSync(join(packageDir, 'package.json'), JSON.stringify(manifest, null, 2));
	writeFileSync(
		join(userFolder, '.n8n', 'nodes', 'package.json'),
		JSON.stringify(
			{
				name: 'installed-nodes',
				private: true,
				dependencies: { [PACKAGE_NAME]: manifest.version },
			},
			null,
			2,
		),
	);
	for (const folder of ['nodes', 'credentials']) {
		cpSync(join(root, folder), join(packageDir, 'dist', folder), {
			recursive: true,
			filter: (source) => !/\.ts$/.test(source),
		});
	}
}

/**
 * Compiles into the installed package, then again on every change; n8n, started with N8N_DEV_RELOAD,
 * reloads the node when its files change. Resolves after the first build.
 */
async function watchSources(): Promise<ChildProcess> {
	const watcher = processes.spawn(
		tsc,
		[
			'-p',
			'tsconfig.build.json',
			'--outDir',
			join(packageDir, 'dist'),
			'--watch',
			'--preserveWatchOutput',
		],
		{ cwd: root, env: process.env },
		join(userFolder, 'tsc-watch.log'),
	);
	let ready: () => void = () => {};
	const firstBuild = new Promise<void>((done) => (ready = done));
	watcher.stdout?.on('data', (chunk: Buffer) => {
		for (const line of lines(chunk)) {
			// "12:00:00 - Found 0 errors. Watching for file changes." ends every build.
			const found = /Found (\d+) errors?\. Watching/.exec(line);
			if (found) {
				ready();
				log(
					found[1] === '0'
						? 'built: n8n reloads the node'
						: `build: ${found[1]} TypeScript error(s), see above`,
				);
			} else if (/error TS\d+/.test(line)) log(line.trim());
		}
	});
	await firstBuild;
	return watcher;
}

/**
 * The "Company Registry (sandbox)" credential, pointing at the sandbox; the templates refer to it by its
 * id. Imported again only when the sandbox's address changed (an n8n CLI call takes half a minute).
 */
async function importCredential(registry: Sandbox): Promise<void> {
	const marker = join(userFolder, 'credential-points-at');
	if (existsSync(marker) && readFileSync(marker, 'utf8') === registry.baseUrl) return;
	await importCredentialFile(userFolder, {
		...CREDENTIAL,
		type: 'companyRegistryApi',
		data: {
			clientId: DEMO_CLIENT.clientId,
			clientSecret: DEMO_CLIENT.clientSecret,
			baseUrl: registry.baseUrl,
			authUrl: registry.authUrl,
		},
	});
	writeFileSync(marker, registry.baseUrl);
	log(`credential "${CREDENTIAL.name}" points at ${registry.baseUrl}`);
}

/** The templates, under ids of their own, once: later runs keep what the user changed in them. */
async function importTemplates(): Promise<void> {
	const marker = join(userFolder, 'templates-imported');
	if (existsSync(marker)) return;
	const folder = mkdtempSync(join(tmpdir(), 'n8n-dev-templates-'));
	const templates = readdirSync(join(root, 'examples', 'workflows')).filter((file) =>
		file.endsWith('.json'),
	);
	for (const file of templates) {
		const workflow = JSON.parse(readFileSync(join(root, 'examples', 'workflows', file), 'utf8'));
		workflow.id = `template-${basename(file, '.json')}`.slice(0, 36);
		writeFileSync(join(folder, file), JSON.stringify(workflow));
	}
	await n8nCli(userFolder, ['import:workflow', '--separate', `--input=${folder}`]);
	rmSync(folder, { recursive: true, force: true });
	writeFileSync(marker, `${templates.join('\n')}\n`);
	log(`imported ${templates.length} templates from examples/workflows`);
}

async function main(): Promise<void> {
	// From the start: a Ctrl-C during the build stops the compiler too. `on`, not `once`: a Ctrl-C reaches
	// this process twice (from the terminal and relayed by tsx), and the second must not end it before
	// n8n has stopped.
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
		process.on(signal, () => void shutdown(0));
	await checklist.timed(
		isN8nPrepared() ? 'n8n ready' : 'prepare n8n (first time: about 3 GB)',
		() => prepareN8n(log),
	);
	if (values.fresh) rmSync(userFolder, { recursive: true, force: true });
	mkdirSync(userFolder, { recursive: true });
	log(`user folder ${userFolder} (npm run dev -- --fresh starts it over)`);

	installPackage();
	// Built before n8n's CLI imports anything: the CLI, too, loads the installed packages.
	await checklist.timed('build', () => watchSources());
	const registry = await startSandbox({ port: await portOr(PREFERRED_SANDBOX_PORT) });
	sandbox = registry;
	log(`sandbox registry at ${registry.baseUrl} (client ${DEMO_CLIENT.clientId})`);

	await importCredential(registry);
	await importTemplates();

	const port = await portOr(PREFERRED_N8N_PORT);
	const editor = `http://localhost:${port}`;
	const n8n = await startN8n(
		userFolder,
		processes,
		checklist,
		{
			N8N_DEV_RELOAD: 'true',
			N8N_HOST: 'localhost',
			N8N_EDITOR_BASE_URL: `${editor}/`,
			DB_SQLITE_POOL_SIZE: '10',
		},
		port,
	);
	n8n.process.stdout?.on('data', (chunk: Buffer) => {
		for (const line of lines(chunk)) if (/hot reload|error/i.test(line)) log(`n8n: ${line}`);
	});
	// n8n ending on its own (not by Ctrl-C) ends the session: nothing is left running without it.
	n8n.process.once('exit', (code) => {
		if (stopping) return;
		log(`n8n stopped by itself (exit ${code}); its log is n8n-start-${port}.log in ${userFolder}`);
		void shutdown(1);
	});

	console.log('');
	console.log(`  n8n ${N8N_VERSION} with ${PACKAGE_NAME} from ${root}, rebuilt on change`);
	console.log(`  Editor:   ${editor}`);
	console.log(`  Sign in:  ${OWNER.email} / ${OWNER.password}`);
	console.log(
		`  Credential "${CREDENTIAL.name}" -> sandbox ${registry.baseUrl}; templates under Overview`,
	);
	console.log('  Ctrl-C stops n8n, the compiler and the sandbox.');
	console.log('');
}

let stopping = false;
let sandbox: Sandbox | undefined;

async function shutdown(code: number): Promise<void> {
	if (stopping) return;
	stopping = true;
	log('stopping n8n, the compiler and the sandbox');
	await processes.stopAll();
	await sandbox?.close();
	log('stopped: nothing of this session is running');
	process.exit(code);
}

main().catch((error: unknown) => {
	console.error(error);
	processes.killAll();
	process.exit(1);
});

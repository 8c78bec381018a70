// What n8n's queue mode runs on, started for npm run test:queue: Redis (Debian's redis-server) and
// Postgres 15 (the server binaries on the machine image), each on loopback with a throwaway data folder.
// Postgres refuses to run as root, so it runs as an unprivileged system user created here.
import { execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { freePort, Processes, run, waitFor } from './realN8n';

const execFileAsync = promisify(execFile);
const PG_BIN = '/usr/lib/postgresql/15/bin';
const PG_SYSTEM_USER = 'n8n-queue-pg';

/** Stops one child: `signal`, then SIGKILL if it has not exited within `seconds`. */
export async function stopChild(
	child: ChildProcess,
	signal: NodeJS.Signals = 'SIGTERM',
	seconds = 30,
): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise<void>((done) => child.once('exit', () => done()));
	child.kill(signal);
	const timer = new Promise<'late'>((done) => setTimeout(() => done('late'), seconds * 1000));
	if ((await Promise.race([exited, timer])) === 'late') {
		child.kill('SIGKILL');
		await exited;
	}
}

export function ensureRedisServer(log: (message: string) => void): void {
	try {
		run('which', ['redis-server']);
	} catch {
		log('installing Debian redis-server (apt-get)');
		run('apt-get', ['update', '-qq']);
		run('apt-get', ['install', '-y', '-qq', 'redis-server'], {
			env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
		});
	}
}

export interface RunningRedis {
	port: number;
	process: ChildProcess;
}

export async function startRedis(
	processes: Processes,
	dataDir: string,
	logDir: string,
): Promise<RunningRedis> {
	mkdirSync(dataDir, { recursive: true });
	const port = await freePort();
	const child = processes.spawn(
		'redis-server',
		[
			'--bind',
			'127.0.0.1',
			'--port',
			String(port),
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dataDir,
			'--daemonize',
			'no',
		],
		{ cwd: dataDir, env: process.env },
		join(logDir, 'redis.log'),
	);
	await waitFor(
		'redis-server',
		async () =>
			(
				await execFileAsync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'ping'])
			).stdout.trim() === 'PONG',
		30,
	);
	return { port, process: child };
}

function systemUser(): { uid: number; gid: number } {
	try {
		run('id', ['-u', PG_SYSTEM_USER]);
	} catch {
		run('useradd', [
			'--system',
			'--no-create-home',
			'--shell',
			'/usr/sbin/nologin',
			PG_SYSTEM_USER,
		]);
	}
	return {
		uid: Number(run('id', ['-u', PG_SYSTEM_USER]).trim()),
		gid: Number(run('id', ['-g', PG_SYSTEM_USER]).trim()),
	};
}

export interface RunningPostgres {
	port: number;
	process: ChildProcess;
	/** One SQL statement through psql; rows as tab-separated lines. */
	sql(query: string): Promise<string>;
}

export async function startPostgres(
	processes: Processes,
	dataDir: string,
	logDir: string,
): Promise<RunningPostgres> {
	if (!existsSync(join(PG_BIN, 'postgres'))) throw new Error(`no Postgres 15 server in ${PG_BIN}`);
	const { uid, gid } = systemUser();
	// The parent folder may be root's 0700 temporary folder: the data folder's own parent must be traversable.
	mkdirSync(dataDir, { recursive: true });
	chmodSync(join(dataDir, '..'), 0o755);
	chownSync(dataDir, uid, gid);
	chmodSync(dataDir, 0o700);
	const env = { PATH: process.env.PATH, LANG: 'C.UTF-8' };
	execFileSync(
		join(PG_BIN, 'initdb'),
		['-D', dataDir, '-U', 'postgres', '--auth=trust', '--locale=C', '-E', 'UTF8', '--no-sync'],
		{
			cwd: dataDir,
			env,
			uid,
			gid,
			stdio: 'ignore',
		},
	);
	const port = await freePort();
	// Throwaway data: durability settings off, sockets in the data folder, TCP on loopback only.
	const child = processes.spawn(
		join(PG_BIN, 'postgres'),
		[
			'-D',
			dataDir,
			'-h',
			'127.0.0.1',
			'-p',
			String(port),
			'-k',
			dataDir,
			'-c',
			'fsync=off',
			'-c',
			'synchronous_commit=off',
			'-c',
			'full_page_writes=off',
		],
		{ cwd: dataDir, env, uid, gid },
		join(logDir, 'postgres.log'),
	);
	const psql = async (database: string, query: string) =>
		(
			await execFileAsync(
				join(PG_BIN, 'psql'),
				[
					'-h',
					'127.0.0.1',
					'-p',
					String(port),
					'-U',
					'postgres',
					'-d',
					database,
					'-At',
					'-F',
					'\t',
					'-c',
					query,
				],
				{
					maxBuffer: 512 * 1024 * 1024,
				},
			)
		).stdout;
	await waitFor('postgres', async () => (await psql('postgres', 'select 1')).trim() === '1', 60);
	await psql('postgres', 'create database n8n');
	return { port, process: child, sql: (query) => psql('n8n', query) };
}

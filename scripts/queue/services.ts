/**
 * Postgres and Redis on loopback for n8n's queue mode (npm run test:queue, npm run dev -- --queue).
 *
 * Debian's `postgresql` and `redis-server` packages: installed with apt-get when their binaries are
 * missing (scripts/apt.ts). Each server runs in a fresh temp folder, on a free
 * loopback port, as an unprivileged user: Postgres refuses to run as root, so when this script is
 * root the servers run as the packages' own `postgres` / `redis` users. Data durability is not the
 * point of a test database: fsync is off.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

import { aptInstall } from '../apt';

import { canConnect, freePort } from '../n8n';
import { tailFile } from '../n8n/log';

function log(msg: string): void {
	process.stderr.write(`[queue-services] ${msg}\n`);
}

function postgresBinDir(): string | null {
	const root = '/usr/lib/postgresql';
	if (!fs.existsSync(root)) return null;
	const versions = fs
		.readdirSync(root)
		.filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length ? path.join(root, versions[0], 'bin') : null;
}

function redisBin(): string | null {
	const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
	return found.status === 0 ? found.stdout.trim() : null;
}

/**
 * Install the Debian packages that are missing. Returns the seconds it took (0 when nothing was
 * missing), so the caller can report the install apart from the test time.
 */
export function ensurePackages(): number {
	const missing: string[] = [];
	if (!postgresBinDir()) missing.push('postgresql');
	if (!redisBin()) missing.push('redis-server');
	if (missing.length === 0) return 0;
	if (process.getuid && process.getuid() !== 0) {
		throw new Error(`missing Debian packages ${missing.join(' ')}: install them (sudo apt-get install -y ${missing.join(' ')}) and run again`);
	}
	const started = Date.now();
	log(`installing ${missing.join(' ')} with apt-get (once)...`);
	aptInstall(missing);
	if (!postgresBinDir() || !redisBin()) throw new Error(`apt-get installed ${missing.join(' ')} but the binaries are still missing`);
	const seconds = (Date.now() - started) / 1000;
	log(`installed ${missing.join(' ')} in ${seconds.toFixed(1)} s`);
	return seconds;
}

/** uid/gid of a system user, or null. */
function userIds(name: string): { uid: number; gid: number } | null {
	const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
	const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
	if (uid.status !== 0 || gid.status !== 0) return null;
	return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Run as `user` when we are root (spawn's uid/gid), as ourselves otherwise. */
function runAs(user: string): { uid?: number; gid?: number } {
	if (!process.getuid || process.getuid() !== 0) return {};
	const ids = userIds(user);
	if (!ids) throw new Error(`running as root needs the system user ${user} (created by its Debian package)`);
	return ids;
}

interface Exit {
	code: number | null;
	signal: NodeJS.Signals | null;
}

export interface ServerHandle {
	process: ChildProcess;
	logFile: string;
	exited(): Exit | null;
	stop(timeoutMs?: number): Promise<Exit>;
}

export type Postgres = ServerHandle & { host: string; port: number; user: string; database: string };
export type Redis = ServerHandle & { host: string; port: number };

/** A long-running server child with stop(): SIGTERM, then SIGKILL after timeoutMs. */
function serverHandle(child: ChildProcess, logFile: string): ServerHandle {
	let exited: Exit | null = null;
	const exitPromise = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve((exited = { code, signal }))));
	process.once('exit', () => {
		if (!exited) child.kill('SIGKILL');
	});
	return {
		process: child,
		logFile,
		exited: () => exited,
		async stop(timeoutMs = 10_000) {
			if (exited) return exited;
			child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
			const res = await exitPromise;
			clearTimeout(timer);
			return res;
		},
	};
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, handle: ServerHandle, { timeoutMs = 60_000 } = {}): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (await check()) return;
		const exited = handle.exited();
		const tail = () => tailFile(handle.logFile, 20);
		if (exited) throw new Error(`${what} exited (code ${exited.code}, signal ${exited.signal}) before it was ready:\n${tail()}`);
		if (Date.now() > deadline) {
			await handle.stop();
			throw new Error(`${what} not ready after ${timeoutMs / 1000} s:\n${tail()}`);
		}
		await new Promise((r) => setTimeout(r, 200));
	}
}

/**
 * Postgres in baseDir/postgres: initdb (superuser `n8n`, trust auth on loopback and the socket in
 * the data folder), start on a free port, create database `n8n`.
 * Resolves { host, port, user, database, stop(), process, logFile }.
 */
export async function startPostgres(baseDir: string): Promise<Postgres> {
	const bin = postgresBinDir();
	if (!bin) throw new Error('postgres is not installed (ensurePackages first)');
	const ids = runAs('postgres');
	const dataDir = path.join(baseDir, 'postgres');
	fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
	if (ids.uid !== undefined) fs.chownSync(dataDir, ids.uid, ids.gid as number);
	const logFile = path.join(baseDir, 'postgres.log');
	const init = spawnSync(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'n8n', '--auth=trust', '-E', 'UTF8', '--no-sync'], { ...ids, encoding: 'utf8', cwd: baseDir });
	if (init.status !== 0) throw new Error(`initdb failed:\n${init.stdout}${init.stderr}`);
	const port = await freePort();
	const fd = fs.openSync(logFile, 'a');
	if (ids.uid !== undefined) fs.fchownSync(fd, ids.uid, ids.gid as number);
	const args = ['-D', dataDir, '-p', String(port), '-k', dataDir, '-c', 'listen_addresses=127.0.0.1'];
	for (const setting of ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=200']) args.push('-c', setting);
	const child = spawn(path.join(bin, 'postgres'), args, { ...ids, cwd: baseDir, stdio: ['ignore', fd, fd] });
	fs.closeSync(fd);
	const handle = serverHandle(child, logFile);
	const ready = () => spawnSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'n8n'], { encoding: 'utf8' }).status === 0;
	await waitFor('postgres', ready, handle);
	const created = spawnSync(path.join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'n8n', 'n8n'], { encoding: 'utf8' });
	if (created.status !== 0) {
		await handle.stop();
		throw new Error(`createdb n8n failed: ${created.stderr}`);
	}
	return { ...handle, host: '127.0.0.1', port, user: 'n8n', database: 'n8n' };
}

/** n8n's settings for this Postgres. */
export function postgresEnv(postgres: Postgres): Record<string, string> {
	return {
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: postgres.host,
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: '',
		DB_POSTGRESDB_DATABASE: postgres.database,
		// n8n's default pool is 2 connections per process: a burst of webhook deliveries then waits
		// for a connection until n8n answers 503 (its database health check fails).
		DB_POSTGRESDB_POOL_SIZE: '10',
	};
}

/** Redis in baseDir/redis on a free port, no persistence. Resolves { host, port, stop(), ... }. */
export async function startRedis(baseDir: string): Promise<Redis> {
	const bin = redisBin();
	if (!bin) throw new Error('redis-server is not installed (ensurePackages first)');
	const ids = runAs('redis');
	const dataDir = path.join(baseDir, 'redis');
	fs.mkdirSync(dataDir, { recursive: true });
	if (ids.uid !== undefined) fs.chownSync(dataDir, ids.uid, ids.gid as number);
	const port = await freePort();
	const logFile = path.join(baseDir, 'redis.log');
	const fd = fs.openSync(logFile, 'a');
	const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dataDir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--protected-mode', 'yes'];
	const child = spawn(bin, args, { ...ids, cwd: dataDir, stdio: ['ignore', fd, fd] });
	fs.closeSync(fd);
	const handle = serverHandle(child, logFile);
	await waitFor('redis', () => canConnect(port), handle);
	return { ...handle, host: '127.0.0.1', port };
}

/** A temp folder the service users can enter (mkdtemp gives 0700 to root). */
export function makeBaseDir(prefix = 'money-queue-'): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	fs.chmodSync(dir, 0o755);
	return dir;
}

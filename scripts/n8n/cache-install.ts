/**
 * Installs into the cache, safely shared by concurrent processes: each install goes to a
 * temporary folder beside its final place under a lock, and is renamed into place only after it
 * completed, with a marker file inside; a folder without the marker is redone. npm runs with its
 * output in a log file and a heartbeat on stderr.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

import { log, seconds, tailFile } from './log';
import { pidAlive } from './processes';

const MARKER = '.install-complete.json';
const REPO = path.resolve(__dirname, '..', '..');

/**
 * The npm_config_* variables the repository's .npmrc sets, as `npm run` hands them to every
 * script. They are for the repository's own install, not for the caches: its legacy-peer-deps
 * would leave n8n's peer dependencies out of n8n's install (n8n 1.123 then fails to load).
 */
export function repositoryNpmConfigVars(npmrc: string = fs.readFileSync(path.join(REPO, '.npmrc'), 'utf8')): string[] {
	return npmrc
		.split('\n')
		.map((line) => line.trim())
		.filter((line) => line && !/^[#;]/.test(line) && line.includes('='))
		.map((line) => `npm_config_${line.slice(0, line.indexOf('=')).trim().replace(/-/g, '_')}`.toLowerCase());
}

/** The environment for npm in the cache: the caller's, less what the repository's .npmrc set. */
export function cacheInstallEnv(base: NodeJS.ProcessEnv = process.env, npmrc?: string): NodeJS.ProcessEnv {
	const drop = new Set(repositoryNpmConfigVars(npmrc));
	return Object.fromEntries(Object.entries(base).filter(([key]) => !drop.has(key.toLowerCase())));
}

export function isComplete(dir: string): boolean {
	try {
		const marker = JSON.parse(fs.readFileSync(path.join(dir, MARKER), 'utf8'));
		return Boolean(marker && marker.complete);
	} catch {
		return false;
	}
}

function sleepSync(ms: number): void {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function safeMtime(p: string): number {
	try {
		return fs.statSync(p).mtimeMs;
	} catch {
		return Date.now();
	}
}

/**
 * Serialise installs of one cache entry across processes (npm run dev and npm run test:e2e at
 * the same time): a lock directory holding the owner's pid; a lock whose owner died is taken over.
 */
function withInstallLock<T>(finalDir: string, what: string, fn: () => T): T {
	const lockDir = `${finalDir}.lock`;
	fs.mkdirSync(path.dirname(finalDir), { recursive: true });
	let announced = false;
	for (;;) {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
			break;
		} catch (e) {
			if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
			let owner = NaN;
			try {
				owner = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8'));
			} catch {
				/* being written, or gone */
			}
			if (owner && !pidAlive(owner)) {
				log(`taking over a stale install lock for ${what} (pid ${owner} is gone)`);
				fs.rmSync(lockDir, { recursive: true, force: true });
				continue;
			}
			if (!owner) {
				// The owner may not have written its pid yet; a lock that stays pid-less is stale.
				const age = Date.now() - safeMtime(lockDir);
				if (age > 30_000) fs.rmSync(lockDir, { recursive: true, force: true });
			}
			if (!announced) {
				log(`waiting for another process (pid ${owner || '?'}) installing ${what}...`);
				announced = true;
			}
			sleepSync(1000);
		}
	}
	try {
		return fn();
	} finally {
		fs.rmSync(lockDir, { recursive: true, force: true });
	}
}

function npmCliPath(): string {
	const candidates: string[] = [];
	if (process.env.npm_execpath && /npm-cli\.js$/.test(process.env.npm_execpath)) {
		candidates.push(process.env.npm_execpath);
	}
	candidates.push(path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'));
	const which = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' });
	if (which.status === 0 && which.stdout.trim()) {
		try {
			const real = fs.realpathSync(which.stdout.trim());
			if (/npm-cli\.js$/.test(real)) candidates.push(real);
			else candidates.push(path.join(path.dirname(real), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'));
		} catch {
			/* ignore */
		}
	}
	for (const c of candidates) if (fs.existsSync(c)) return path.resolve(c);
	throw new Error('cannot find npm (npm-cli.js); is npm installed?');
}

interface NpmRunOptions {
	cwd: string;
	nodeBin?: string;
	env?: Record<string, string>;
	logFile: string;
	label?: string;
	/** A shell snippet adding detail to the heartbeat; it may read "$LOG". */
	progress?: string;
}

/**
 * Run npm (the machine's npm, on the given node binary), its output going to a log file.
 * Synchronous; a small shell loop prints a heartbeat to stderr every 30 s. Throws with the log
 * tail on failure.
 */
export function runNpm(args: string[], { cwd, nodeBin = process.execPath, env = {}, logFile, label = 'npm', progress = '' }: NpmRunOptions): void {
	fs.appendFileSync(logFile, `\n$ npm ${args.join(' ')}\n`);
	const pathEnv = [path.dirname(nodeBin), process.env.PATH].join(path.delimiter);
	const script = [
		'"$NODE_BIN" "$NPM_CLI" "$@" >>"$LOG" 2>&1 & pid=$!',
		'start=$(date +%s)',
		'while kill -0 $pid 2>/dev/null; do',
		'  sleep 1; n=$(( $(date +%s) - start ))',
		`  if [ $n -gt 0 ] && [ $((n % 30)) -eq 0 ]; then echo "[n8n-runtime]     ...still $LABEL ($n s${progress ? `, ${progress}` : ''})" >&2; fi`,
		'done',
		'wait $pid',
	].join('\n');
	const res = spawnSync('sh', ['-c', script, 'npm', ...args], {
		cwd,
		env: {
			...cacheInstallEnv(),
			PATH: pathEnv,
			NODE_BIN: nodeBin,
			NPM_CLI: npmCliPath(),
			LOG: logFile,
			LABEL: label,
			npm_config_audit: 'false',
			npm_config_fund: 'false',
			npm_config_update_notifier: 'false',
			npm_config_progress: 'false',
			npm_config_loglevel: 'http',
			...env,
		},
		stdio: ['ignore', 'inherit', 'inherit'],
	});
	if (res.status !== 0) {
		const tail = tailFile(logFile, 40);
		throw new Error(`npm ${args.join(' ')} failed (exit ${res.status}${res.signal ? `, ${res.signal}` : ''}); log ${logFile}:\n${tail}`);
	}
}

/**
 * Install into a temporary sibling of finalDir with `build(tmpDir)`, write the marker, then
 * rename into place. Returns finalDir. Does nothing when finalDir already holds the marker.
 */
export function installOnce(finalDir: string, what: string, build: (tmpDir: string) => object | undefined): string {
	if (isComplete(finalDir)) return finalDir;
	return withInstallLock(finalDir, what, () => {
		if (isComplete(finalDir)) return finalDir; // another process finished while we waited
		if (fs.existsSync(finalDir)) {
			log(`removing an incomplete ${what} install at ${finalDir}`);
			fs.rmSync(finalDir, { recursive: true, force: true });
		}
		// Leftovers of interrupted installs.
		const parent = path.dirname(finalDir);
		for (const name of fs.readdirSync(parent)) {
			if (name.startsWith(`${path.basename(finalDir)}.tmp-`)) {
				fs.rmSync(path.join(parent, name), { recursive: true, force: true });
			}
		}
		const tmpDir = `${finalDir}.tmp-${process.pid}-${Date.now()}`;
		fs.mkdirSync(tmpDir, { recursive: true });
		const started = Date.now();
		try {
			const info = build(tmpDir) || {};
			fs.writeFileSync(
				path.join(tmpDir, MARKER),
				JSON.stringify({ complete: true, what, installedAt: new Date().toISOString(), seconds: (Date.now() - started) / 1000, ...info }, null, 2),
			);
			fs.renameSync(tmpDir, finalDir);
		} catch (e) {
			fs.rmSync(tmpDir, { recursive: true, force: true });
			throw e;
		}
		log(`${what} installed in ${seconds(Date.now() - started)} at ${finalDir}`);
		return finalDir;
	});
}

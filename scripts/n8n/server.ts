/** An n8n server (`n8n start`, or a queue-mode `worker` / `webhook`) started, awaited and stopped. */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';

import { expectOk, fetchText, httpJson } from './api';
import { n8nCli, type CliOptions, type CliResult } from './cli';
import { ensureN8n } from './install';
import { log, seconds, tailFile } from './log';
import { freePort, killGroup, portFree, track } from './processes';
import { n8nDir as cachedN8nDir, n8nProfile, n8nVersion } from './versions';

export interface Owner {
	email: string;
	password: string;
	firstName?: string;
	lastName?: string;
	passwordHash?: string;
}

export interface N8nEnvOptions {
	userFolder: string;
	port?: number;
	brokerPort?: number;
	/** The task runner's health server (off unless N8N_RUNNERS_HEALTH_CHECK_SERVER_ENABLED; its port is set anyway, so that turning it on collides with nothing). */
	runnerHealthPort?: number;
	encryptionKey?: string;
	owner?: Owner;
	nodeBin?: string;
	n8nDir?: string;
	/** Extra variables; they win over the defaults. */
	env?: Record<string, string>;
}

export interface StartOptions extends Omit<N8nEnvOptions, 'nodeBin' | 'n8nDir'> {
	/** Default $userFolder/n8n.log. */
	logFile?: string;
	/** Default 180000. */
	readyTimeoutMs?: number;
	quiet?: boolean;
	/** For queue mode: 'worker', 'webhook'; default 'start'. */
	command?: string;
	/** E.g. ['--concurrency=5']. */
	args?: string[];
	/** Default `${url}/healthz/readiness`; a worker answers on QUEUE_HEALTH_CHECK_PORT. */
	readyUrl?: string;
}

export interface Exit {
	code: number | null;
	signal: NodeJS.Signals | null;
}

export interface N8nHandle {
	url: string;
	port: number;
	brokerPort: number;
	process: ChildProcess;
	env: NodeJS.ProcessEnv;
	logFile: string;
	nodeBin: string;
	n8nBin: string;
	n8nDir: string;
	startSeconds: number;
	/** Set by callers that name their processes (queue workers). */
	name?: string;
	healthPort?: number;
	logs(): string;
	stop(timeoutMs?: number): Promise<Exit>;
	/** kill -9 of n8n and its task runner, as a crash or an OOM kill would do. */
	kill(): Promise<Exit>;
	/** Run an n8n CLI command against this server's database and settings. */
	cli(args: string[], cliOpts?: CliOptions): Promise<CliResult>;
}

function requireFromN8n(n8nDir: string, mod: string): any {
	const resolved = require.resolve(mod, { paths: [path.join(n8nDir, 'node_modules', 'n8n'), n8nDir] });
	return require(resolved);
}

/** bcrypt hash (n8n's own bcryptjs) for N8N_INSTANCE_OWNER_PASSWORD_HASH. */
export function hashPassword(password: string, n8nDir: string = cachedN8nDir()): string {
	const bcrypt = requireFromN8n(n8nDir, 'bcryptjs');
	return bcrypt.hashSync(password, 10);
}

/** Environment for `n8n start` and the n8n CLI. */
export function n8nEnv(opts: N8nEnvOptions): NodeJS.ProcessEnv {
	if (!opts.userFolder) throw new Error('n8nEnv: userFolder is required');
	const env: NodeJS.ProcessEnv = {};
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
	if (opts.runnerHealthPort) env.N8N_RUNNERS_HEALTH_CHECK_SERVER_PORT = String(opts.runnerHealthPort);
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

/** Start `n8n start` (or opts.command) and wait until its readiness URL answers 200. */
export async function startN8n(opts: StartOptions): Promise<N8nHandle> {
	const { nodeBin, n8nBin, n8nDir } = ensureN8n();
	if (!opts.userFolder) throw new Error('startN8n: userFolder is required');
	const profile = n8nProfile();
	fs.mkdirSync(opts.userFolder, { recursive: true });
	const port = opts.port || (await freePort());
	if (!(await portFree(port))) throw new Error(`port ${port} on 127.0.0.1 is already in use (set another port)`);
	const brokerPort = opts.brokerPort || (await freePort());
	const runnerHealthPort = opts.runnerHealthPort || (await freePort());
	const env = n8nEnv({ ...opts, port, brokerPort, runnerHealthPort, nodeBin, n8nDir });
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
	let exited: Exit | null = null;
	const exitPromise = new Promise<Exit>((resolve) => {
		child.once('exit', (code, signal) => {
			exited = { code, signal };
			resolve(exited);
		});
	});
	const url = `http://127.0.0.1:${port}`;
	const handle: N8nHandle = {
		url,
		port,
		brokerPort,
		process: child,
		env,
		logFile,
		nodeBin,
		n8nBin,
		n8nDir,
		startSeconds: 0,
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
				process.kill(-(child.pid as number), 'SIGKILL');
			} catch {
				/* group gone */
			}
			return res;
		},
		async kill() {
			if (exited) return exited;
			killGroup(child, 'SIGKILL');
			return await exitPromise;
		},
		cli: (args, cliOpts = {}) => n8nCli(args, { ...cliOpts, env: { ...env, ...(cliOpts.env || {}) } }),
	};
	const readyUrl = opts.readyUrl || `${url}/healthz/readiness`;
	if (!opts.quiet) {
		log(`starting n8n ${n8nVersion()} ${opts.command || 'start'} on ${url} (log: ${logFile}); waiting for ${readyUrl}${profile.readyLogLine ? ` and "${profile.readyLogLine}"` : ''}...`);
	}
	const deadline = started + (opts.readyTimeoutMs || 180_000);
	for (;;) {
		const gone = exited as Exit | null;
		if (gone) {
			throw new Error(`n8n exited before it was ready (code ${gone.code}, signal ${gone.signal}); log tail:\n${tailFile(logFile, 40)}`);
		}
		try {
			const res = await fetchText(readyUrl, { timeoutMs: 2000 });
			if (res.status === 200 && (!profile.readyLogLine || handle.logs().slice(logOffset).includes(profile.readyLogLine))) break;
		} catch {
			/* not listening yet */
		}
		if (Date.now() > deadline) {
			await handle.stop();
			throw new Error(`n8n was not ready after ${seconds(Date.now() - started)}; log tail:\n${tailFile(logFile, 40)}`);
		}
		await new Promise((r) => setTimeout(r, 250));
	}
	if (opts.owner && profile.ownerSetup === 'rest') await setUpOwnerOverRest(url, opts.owner);
	handle.startSeconds = (Date.now() - started) / 1000;
	if (!opts.quiet) log(`n8n ready in ${seconds(Date.now() - started)}`);
	return handle;
}

/** Claim the instance for the owner (n8n 1.x); an instance already set up (a kept data folder) is fine. */
async function setUpOwnerOverRest(url: string, owner: Owner): Promise<void> {
	const res = await httpJson('POST', `${url}/rest/owner/setup`, {
		body: { email: owner.email, password: owner.password, firstName: owner.firstName || 'Dev', lastName: owner.lastName || 'Owner' },
	});
	if (res.status === 400 && /already setup/i.test(res.text)) return;
	expectOk(`owner setup for ${owner.email}`, res);
}

/**
 * The Money API sandbox (sandbox/cli.ts) as a child process, for the e2e, browser and queue-mode
 * tiers and the quick start. It runs the TypeScript through the repo's ts-node (--transpile-only)
 * and prints one line `sandbox ready {json}` (its SandboxInfo).
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';

import type { ClientPatch, ClientView, Counters, FaultSpec, Ledger, SandboxInfo, SeedRequest, WebhookScheme } from '../sandbox';

export interface SandboxOptions {
	repoDir?: string;
	/** 0 = a free one. */
	port?: number;
	/** 0 = a free one. */
	authPort?: number;
	webhookUrl?: string;
	webhookScheme?: string;
	finalizeAfterMs?: number | null;
	statePath?: string;
	/** Extra CLI arguments. */
	args?: string[];
	/** Where its output goes (default: kept in memory only). */
	logFile?: string;
	/** Default 60000. */
	readyTimeoutMs?: number;
}

export interface SandboxHandle {
	info: SandboxInfo;
	process: ChildProcess;
	control: SandboxControlClient;
	logs(): string;
	stop(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Start the sandbox; resolves once it printed its ready line. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<SandboxHandle> {
	const repoDir = opts.repoDir || path.resolve(__dirname, '..');
	const tsNodeBin = require.resolve('ts-node/dist/bin.js', { paths: [repoDir] });
	const args = [tsNodeBin, '--transpile-only', path.join(repoDir, 'sandbox', 'cli.ts')];
	args.push('--port', String(opts.port ?? 0), '--auth-port', String(opts.authPort ?? 0));
	if (opts.webhookUrl) args.push('--webhook-url', opts.webhookUrl);
	if (opts.webhookScheme) args.push('--webhook-scheme', opts.webhookScheme);
	if (opts.finalizeAfterMs !== undefined && opts.finalizeAfterMs !== null) args.push('--finalize-after-ms', String(opts.finalizeAfterMs));
	if (opts.statePath) args.push('--state', opts.statePath);
	args.push(...(opts.args || []));
	const child = spawn(process.execPath, args, {
		cwd: repoDir,
		env: { ...process.env, TS_NODE_PROJECT: path.join(repoDir, 'tsconfig.json') },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	const logStream = opts.logFile ? fs.createWriteStream(opts.logFile, { flags: 'a' }) : null;
	const onData = (d: Buffer | string): void => {
		output += d;
		if (output.length > 1_000_000) output = output.slice(-500_000);
		if (logStream) logStream.write(d);
	};
	child.stderr.on('data', onData);
	let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
	const exitPromise = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
		child.once('exit', (code, signal) => {
			exited = { code, signal };
			if (logStream) logStream.end();
			resolve(exited);
		});
	});
	process.once('exit', () => {
		if (!exited) child.kill('SIGKILL');
	});
	const info = await new Promise<SandboxInfo>((resolve, reject) => {
		let buffer = '';
		const timer = setTimeout(() => {
			child.kill('SIGKILL');
			reject(new Error(`sandbox not ready after ${(opts.readyTimeoutMs || 60000) / 1000} s:\n${output.slice(-3000)}`));
		}, opts.readyTimeoutMs || 60000);
		const onStdout = (d: Buffer | string): void => {
			onData(d);
			buffer += d;
			const line = buffer.split('\n').find((l) => l.startsWith('sandbox ready '));
			if (line && buffer.includes('\n', buffer.indexOf('sandbox ready '))) {
				clearTimeout(timer);
				child.stdout.off('data', onStdout);
				child.stdout.on('data', onData);
				try {
					resolve(JSON.parse(line.slice('sandbox ready '.length)));
				} catch {
					reject(new Error(`sandbox ready line is not JSON: ${line.slice(0, 300)}`));
				}
			}
		};
		child.stdout.on('data', onStdout);
		child.once('exit', (code, signal) => {
			clearTimeout(timer);
			reject(new Error(`sandbox exited (code ${code}, signal ${signal}) before it was ready:\n${output.slice(-3000)}`));
		});
	});
	return {
		info,
		process: child,
		control: new SandboxControlClient(info.controlUrl),
		logs: () => output,
		async stop(timeoutMs = 10_000) {
			if (exited) return exited;
			child.kill('SIGTERM'); // the sandbox closes cleanly (state saved) on SIGTERM
			const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
			const res = await exitPromise;
			clearTimeout(timer);
			return res;
		},
	};
}

const STATUS_PATH = { COMPLETED: 'complete', FAILED: 'fail', CANCELLED: 'cancel', REVERSED: 'reverse' } as const;

/** The sandbox control API over HTTP (the routes of sandbox/README.md). */
export class SandboxControlClient {
	constructor(private readonly controlUrl: string) {}

	async call<T = any>(method: string, p: string, body?: unknown): Promise<T> {
		const res = await fetch(`${this.controlUrl}${p}`, {
			method,
			headers: body !== undefined ? { 'content-type': 'application/json' } : {},
			body: body !== undefined ? JSON.stringify(body) : undefined,
			signal: AbortSignal.timeout(30_000),
		});
		const text = await res.text();
		let json: unknown;
		try {
			json = text ? JSON.parse(text) : undefined;
		} catch {
			json = text;
		}
		if (!res.ok) throw new Error(`sandbox control ${method} ${p}: HTTP ${res.status} ${text.slice(0, 300)}`);
		return json as T;
	}

	setStatus = (reference: string, status: keyof typeof STATUS_PATH) => this.call('POST', `/transactions/${encodeURIComponent(reference)}/${STATUS_PATH[status]}`);
	counters = (): Promise<Counters> => this.call('GET', '/counters');
	resetCounters = () => this.call('POST', '/counters/reset');
	ledger = (clientId?: string): Promise<Ledger> => this.call('GET', `/ledger${clientId ? `?clientId=${encodeURIComponent(clientId)}` : ''}`);
	setWebhook = (url: string | null, scheme?: WebhookScheme, clientId?: string) => this.call('PUT', '/webhook', { url, scheme, clientId });
	flushWebhooks = () => this.call('POST', '/webhook/flush');
	deliverEvent = (event: object, copies?: number, clientId?: string): Promise<{ statuses: Array<number | null> }> =>
		this.call('POST', '/webhook/deliver', { event, copies, clientId });
	setFinalizeAfter = (afterMs: number | null) => this.call('PUT', '/finalize', { afterMs });
	addFault = (fault: FaultSpec) => this.call('POST', '/faults', fault);
	clearFaults = () => this.call('DELETE', '/faults');
	revokeTokens = (clientId?: string) => this.call('POST', clientId ? `/clients/${encodeURIComponent(clientId)}/revoke-tokens` : '/revoke-tokens');
	getClient = (id: string): Promise<ClientView> => this.call('GET', `/clients/${encodeURIComponent(id)}`);
	updateClient = (id: string, patch: ClientPatch): Promise<ClientView> => this.call('PATCH', `/clients/${encodeURIComponent(id)}`, patch);
	seed = (req: SeedRequest) => this.call('POST', '/seed', req);
	health = () => this.call('GET', '/health');
}

/**
 * The `moneyApi` credential data pointing at a running sandbox (SandboxInfo).
 * Field names follow credentials/MoneyApi.credentials.ts.
 */
export function moneyCredentialData(info: SandboxInfo) {
	return {
		baseUrl: info.baseUrl,
		tokenUrl: info.authUrl,
		authentication: 'clientCredentials',
		clientId: info.clientId,
		clientSecret: info.clientSecret,
		hmacSecret: info.hmacSecret,
		webhookSecret: info.webhookSecret,
		rsaPublicKey: info.rsaPublicKeyPem,
		walletPinSecret: info.pin,
		accessToken: '',
	};
}

/**
 * The Money API sandbox (sandbox/cli.ts) as a child process, for the e2e, browser and queue-mode
 * tiers and the quick start. It runs the TypeScript through the repo's ts-node (--transpile-only)
 * and prints one line `sandbox ready {json}` (its SandboxInfo). Its control API is driven with
 * the sandbox's own client (sandbox/control/client.ts); the credential pointing at it comes from
 * sandbox/control/credential.ts.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';

import type { SandboxInfo } from '../sandbox';
import { SandboxControlClient } from '../sandbox/control/client';

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

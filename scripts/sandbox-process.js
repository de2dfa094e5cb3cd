'use strict';
/**
 * The Money API sandbox (sandbox/cli.ts) as a child process, for scripts/e2e.js and
 * scripts/dev.js. Plain CommonJS; runs the TypeScript through the repo's ts-node
 * (--transpile-only). The sandbox prints one line `sandbox ready {json}` (its SandboxInfo).
 */

const path = require('node:path');
const { spawn } = require('node:child_process');
const fs = require('node:fs');

/**
 * Start the sandbox. opts: repoDir, port (0 = free), authPort (0 = free), webhookUrl,
 * webhookScheme, finalizeAfterMs, statePath, args (extra CLI arguments), logFile (default: its
 * stderr is inherited when verbose, else kept in memory), readyTimeoutMs (default 60000).
 * Resolves { info, process, control, stop(), logs() }.
 */
async function startSandbox(opts = {}) {
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
	const onData = (d) => {
		output += d;
		if (output.length > 1_000_000) output = output.slice(-500_000);
		if (logStream) logStream.write(d);
	};
	child.stderr.on('data', onData);
	let exited = null;
	const exitPromise = new Promise((resolve) => {
		child.once('exit', (code, signal) => {
			exited = { code, signal };
			if (logStream) logStream.end();
			resolve(exited);
		});
	});
	process.once('exit', () => {
		if (!exited) child.kill('SIGKILL');
	});
	const info = await new Promise((resolve, reject) => {
		let buffer = '';
		const timer = setTimeout(() => {
			child.kill('SIGKILL');
			reject(new Error(`sandbox not ready after ${(opts.readyTimeoutMs || 60000) / 1000} s:\n${output.slice(-3000)}`));
		}, opts.readyTimeoutMs || 60000);
		const onStdout = (d) => {
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
		control: sandboxControl(info.controlUrl),
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

/** The sandbox control API over HTTP (the routes of sandbox/README.md). */
function sandboxControl(controlUrl) {
	const call = async (method, p, body) => {
		const res = await fetch(`${controlUrl}${p}`, {
			method,
			headers: body !== undefined ? { 'content-type': 'application/json' } : {},
			body: body !== undefined ? JSON.stringify(body) : undefined,
			signal: AbortSignal.timeout(30_000),
		});
		const text = await res.text();
		let json;
		try {
			json = text ? JSON.parse(text) : undefined;
		} catch {
			json = text;
		}
		if (!res.ok) throw new Error(`sandbox control ${method} ${p}: HTTP ${res.status} ${text.slice(0, 300)}`);
		return json;
	};
	const statusPath = { COMPLETED: 'complete', FAILED: 'fail', CANCELLED: 'cancel', REVERSED: 'reverse' };
	return {
		call,
		setStatus: (reference, status) => call('POST', `/transactions/${encodeURIComponent(reference)}/${statusPath[status]}`),
		counters: () => call('GET', '/counters'),
		resetCounters: () => call('POST', '/counters/reset'),
		ledger: (clientId) => call('GET', `/ledger${clientId ? `?clientId=${encodeURIComponent(clientId)}` : ''}`),
		setWebhook: (url, scheme, clientId) => call('PUT', '/webhook', { url, scheme, clientId }),
		flushWebhooks: () => call('POST', '/webhook/flush'),
		deliverEvent: (event, copies, clientId) => call('POST', '/webhook/deliver', { event, copies, clientId }),
		setFinalizeAfter: (afterMs) => call('PUT', '/finalize', { afterMs }),
		addFault: (fault) => call('POST', '/faults', fault),
		clearFaults: () => call('DELETE', '/faults'),
		revokeTokens: (clientId) => call('POST', clientId ? `/clients/${encodeURIComponent(clientId)}/revoke-tokens` : '/revoke-tokens'),
		getClient: (id) => call('GET', `/clients/${encodeURIComponent(id)}`),
		updateClient: (id, patch) => call('PATCH', `/clients/${encodeURIComponent(id)}`, patch),
		seed: (req) => call('POST', '/seed', req),
		health: () => call('GET', '/health'),
	};
}

/**
 * The `moneyApi` credential data pointing at a running sandbox (SandboxInfo).
 * Field names follow credentials/MoneyApi.credentials.ts.
 */
function moneyCredentialData(info) {
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

module.exports = { startSandbox, sandboxControl, moneyCredentialData };

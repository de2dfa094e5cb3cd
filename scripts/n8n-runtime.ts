/**
 * The n8n runtime's command line (the runtime itself is scripts/n8n/):
 *   npm run n8n-runtime -- install     install n8n (and a Node that runs it) into the cache if needed, verify, print paths
 *   npm run n8n-runtime -- where       print the cache folder of n8n for the Node this would choose, install nothing
 *   npm run n8n-runtime -- selftest [--keep]   the chain with n8n's own nodes only
 * Environment: MONEY_CACHE_DIR, MONEY_NODE_VERSION, MONEY_N8N_VERSION (see scripts/n8n/versions.ts).
 */

import { spawnSync } from 'node:child_process';

import { isComplete } from './n8n/cache-install';
import { ensureN8n, verifyNative } from './n8n/install';
import type { ProcessMemory } from './n8n/processes';
import { selfTest } from './n8n/selftest';
import { chooseNode } from './n8n/node-choice';
import { cacheRoot, n8nDir, n8nProfile, n8nVersion } from './n8n/versions';

const cmd = process.argv[2] || 'install';
if (cmd === 'where') {
	const node = chooseNode({ engines: n8nProfile().nodeEngines, what: `n8n ${n8nVersion()}`, system: { bin: process.execPath, version: process.version }, platform: process.platform, arch: process.arch });
	// The folder for Node 24's ABI; another Node's gets its ABI appended (versions.ts).
	console.log(JSON.stringify({ cacheRoot: cacheRoot(), node, n8n: n8nDir(), n8nComplete: isComplete(n8nDir()) }, null, 2));
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
		console.error((e as Error).message);
		process.exit(1);
	}
} else if (cmd === 'selftest') {
	selfTest({ keep: process.argv.includes('--keep') }).then(
		(r) => {
			const mb = (m: ProcessMemory) => `${Math.round(m.totalKb / 1024)} MB (${m.processes.map((p) => `${p.pid}: ${Math.round(p.rssKb / 1024)} MB`).join(', ')})`;
			console.log(JSON.stringify({ ...r, memoryAfterStart: r.memoryAfterStart && mb(r.memoryAfterStart), memoryAfterRun: r.memoryAfterRun && mb(r.memoryAfterRun) }, null, 2));
		},
		(e) => {
			console.error(e.stack || e.message);
			process.exit(1);
		},
	);
} else {
	console.error('usage: npm run n8n-runtime -- [install|where|selftest [--keep]]');
	process.exit(2);
}

/**
 * `npm run prefetch`: what the real-server tiers install on first use, installed ahead, in the
 * order .ci/run needs them: n8n (and a Node that runs it) for every tested line at once (the two
 * e2e runs start together; each install waits mostly on the registry), then Debian's postgresql,
 * redis-server (`npm run test:queue`) and chromium (`npm run test:ui`). .ci/run starts it in the
 * background while the unit suites run; a tier that gets there first waits on the same install
 * lock (scripts/n8n/cache-install.ts, apt's DPkg::Lock::Timeout). Prints how long each took;
 * exits 1 when one failed (the tier that needs it then fails and says why).
 */

import * as path from 'node:path';
import { spawn } from 'node:child_process';

import { say } from './output';
import { ensurePackages } from './queue/services';
import { ensureChromium } from './ui/chromium';
import { TESTED_N8N } from './n8n/versions';

const REPO = path.resolve(__dirname, '..');

function tookOrFailed(what: string, started: number, error?: Error): boolean {
	const seconds = ((Date.now() - started) / 1000).toFixed(0);
	say(error ? `# prefetch: ${what} failed after ${seconds} s: ${error.message.split('\n')[0]}` : `# prefetch: ${what} ready in ${seconds} s`);
	return !error;
}

function timed(what: string, fn: () => void): boolean {
	const started = Date.now();
	try {
		fn();
		return tookOrFailed(what, started);
	} catch (err) {
		return tookOrFailed(what, started, err as Error);
	}
}

async function installN8n(line: string): Promise<boolean> {
	const started = Date.now();
	const code = await new Promise<number | null>((resolve) => {
		const child = spawn(process.execPath, [require.resolve('ts-node/dist/bin.js'), '--transpile-only', path.join(REPO, 'scripts', 'n8n-runtime.ts'), 'install'], {
			cwd: REPO,
			env: { ...process.env, MONEY_N8N_VERSION: line },
			stdio: ['ignore', 'ignore', 'inherit'],
		});
		child.on('error', () => resolve(null));
		child.on('close', resolve);
	});
	return tookOrFailed(`n8n ${line}`, started, code === 0 ? undefined : new Error(`npm run n8n-runtime -- install (${line}) exited ${code}`));
}

async function main(): Promise<boolean> {
	const n8n = await Promise.all(Object.keys(TESTED_N8N).map(installN8n));
	const packages = [timed('postgresql and redis-server', () => void ensurePackages()), timed('chromium', () => void ensureChromium())];
	return [...n8n, ...packages].every(Boolean);
}

main().then(
	(ok) => {
		process.exitCode = ok ? 0 : 1;
	},
	(error: unknown) => {
		say(`# prefetch failed: ${(error as Error).message}`);
		process.exitCode = 1;
	},
);

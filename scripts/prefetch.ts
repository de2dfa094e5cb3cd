/**
 * `npm run prefetch`: what the real-server tiers install on first use, installed ahead, in the
 * order .ci/run needs them: n8n (and a Node that runs it) for the default line, Debian's
 * postgresql, redis-server (`npm run test:queue`) and chromium (`npm run test:ui`), then n8n for
 * the other tested lines. .ci/run starts it in the
 * background while the unit suites run; a tier that gets there first waits on the same install
 * lock (scripts/n8n/cache-install.ts, apt's DPkg::Lock::Timeout). Prints how long each took;
 * exits 1 when one failed (the tier that needs it then fails and says why).
 */

import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

import { say } from './output';
import { ensurePackages } from './queue/services';
import { ensureChromium } from './ui/chromium';
import { TESTED_N8N } from './n8n/versions';

const REPO = path.resolve(__dirname, '..');

function timed(what: string, fn: () => void): boolean {
	const started = Date.now();
	try {
		fn();
		say(`# prefetch: ${what} ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
		return true;
	} catch (err) {
		say(`# prefetch: ${what} failed after ${((Date.now() - started) / 1000).toFixed(0)} s: ${(err as Error).message.split('\n')[0]}`);
		return false;
	}
}

function installN8n(line: string): void {
	const res = spawnSync(process.execPath, [require.resolve('ts-node/dist/bin.js'), '--transpile-only', path.join(REPO, 'scripts', 'n8n-runtime.ts'), 'install'], {
		cwd: REPO,
		env: { ...process.env, MONEY_N8N_VERSION: line },
		stdio: ['ignore', 'ignore', 'inherit'],
	});
	if (res.status !== 0) throw new Error(`npm run n8n-runtime -- install (${line}) exited ${res.status}`);
}

const [first, ...others] = Object.keys(TESTED_N8N);
const results = [
	timed(`n8n ${first}`, () => installN8n(first)),
	timed('postgresql and redis-server', () => void ensurePackages()),
	timed('chromium', () => void ensureChromium()),
	...others.map((line) => timed(`n8n ${line}`, () => installN8n(line))),
];
process.exitCode = results.every(Boolean) ? 0 : 1;

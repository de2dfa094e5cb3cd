/** The browser of `npm run test:ui`: Debian's chromium (playwright-core never downloads one). */

import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';

import { say } from '../output';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Debian's chromium, installed with apt-get when missing (root only; otherwise say how). */
export function ensureChromium(): string {
	if (fs.existsSync(CHROMIUM)) return CHROMIUM;
	if (process.env.CHROMIUM_PATH) throw new Error(`CHROMIUM_PATH=${CHROMIUM} does not exist`);
	if (typeof process.getuid === 'function' && process.getuid() !== 0) {
		throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (sudo apt-get install chromium)`);
	}
	say('# installing Debian\'s chromium package (apt-get, first run only)...');
	const apt = (args: string[]) => spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
	// Another apt-get (the queue tier's, .ci/run's prefetch) may hold the lock: wait for it.
	const install = ['install', '-y', '-o', 'DPkg::Lock::Timeout=600', '--no-install-recommends', 'chromium'];
	let res = apt(install);
	if (res.status !== 0) {
		apt(['update', '-o', 'DPkg::Lock::Timeout=600']);
		res = apt(install);
	}
	if (res.status !== 0 || !fs.existsSync(CHROMIUM)) throw new Error('apt-get install chromium failed');
	return CHROMIUM;
}

/** The browser of `npm run test:ui`: Debian's chromium (playwright-core never downloads one). */

import * as fs from 'node:fs';

import { aptInstall } from '../apt';
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
	aptInstall(['chromium']);
	if (!fs.existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} is missing`);
	return CHROMIUM;
}

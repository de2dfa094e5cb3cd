/** Progress lines of the n8n runtime (stderr, `[n8n-runtime] ...`) and log-tail helpers. */

import * as fs from 'node:fs';

export function log(msg: string): void {
	process.stderr.write(`[n8n-runtime] ${msg}\n`);
}

export function seconds(ms: number): string {
	return `${(ms / 1000).toFixed(1)} s`;
}

/** The last `lines` lines of a text. */
export function tail(text: string, lines: number): string {
	return String(text).split('\n').slice(-lines).join('\n');
}

/** The last `lines` lines of a file ('' when it cannot be read). */
export function tailFile(file: string, lines: number): string {
	try {
		return tail(fs.readFileSync(file, 'utf8'), lines);
	} catch {
		return '';
	}
}

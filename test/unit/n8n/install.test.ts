import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { installProgress } from '../../../scripts/n8n/install';

describe("scripts/n8n/install: the n8n install's progress counts what npm has done", () => {
	it('counts each package document and each package tarball once, fetched or from the cache, however often npm logs it, and the MB written', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'money-install-log-'));
		const log = path.join(dir, 'install.log');
		fs.writeFileSync(
			log,
			[
				'$ npm install --no-audit --no-fund --ignore-scripts --omit=dev',
				'npm http fetch GET 200 https://registry.npmjs.org/n8n 28ms (cache stale)',
				'npm http fetch GET 200 https://registry.npmjs.org/@1password%2fconnect 212ms (cache miss)',
				'npm http fetch GET 200 https://registry.npmjs.org/n8n 3ms (cache hit)',
				'npm http fetch GET 200 https://registry.npmjs.org/@types/debug/-/debug-4.1.13.tgz 74572ms (cache miss)',
				'npm http cache @ai-sdk/anthropic@https://registry.npmjs.org/@ai-sdk/anthropic/-/anthropic-4.0.68.tgz 0ms (cache hit)',
				'npm http cache @ai-sdk/anthropic@https://registry.npmjs.org/@ai-sdk/anthropic/-/anthropic-4.0.68.tgz 0ms (cache hit)',
				'npm http fetch GET 200 https://registry.npmjs.org/@ai-sdk/anthropic/-/anthropic-4.0.105.tgz 5ms (cache miss)',
				'',
			].join('\n'),
		);
		try {
			expect(installProgress(dir, log)).toBe('2 package documents read, 3 packages fetched, 0 MB written');
			fs.mkdirSync(path.join(dir, 'node_modules', 'big'), { recursive: true });
			fs.writeFileSync(path.join(dir, 'node_modules', 'big', 'index.js'), Buffer.alloc(5 * 1024 * 1024));
			const written = /^2 package documents read, 3 packages fetched, (\d+) MB written$/.exec(installProgress(dir, log));
			expect(Number(written && written[1])).toBeGreaterThanOrEqual(5); // du rounds up, and counts the folders' blocks
			expect(Number(written && written[1])).toBeLessThanOrEqual(6);
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	});
});

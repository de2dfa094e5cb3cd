import * as fs from 'node:fs';
import * as path from 'node:path';

import * as semver from 'semver';

const REPO = path.resolve(__dirname, '..', '..');

/**
 * `npm ci` warns (EBADENGINE) about each locked package whose `engines.node` excludes the running
 * Node. On Node 20 and 22 these three are expected, and nothing the scripts run there loads them
 * (CONTRIBUTING.md, Requirements):
 *   isolated-vm    n8n-workflow 2.41's expression runtime and n8n-nodes-base: its only build is
 *                  Node 24's, so it cannot load on 20 or 22, and the engine tests run without it;
 *   sanitize-html  n8n-nodes-base's Form node, which no test loads;
 *   content-type   release-it's GitHub client (`npm run release`).
 * Any other package is a tool that may not run on this Node: a problem to solve, not a name to add.
 */
const EXPLAINED = ['content-type', 'isolated-vm', 'sanitize-html'];

describe('npm ci on this Node', () => {
	it('warns about no package but those CONTRIBUTING.md explains (EBADENGINE)', () => {
		const lock = JSON.parse(fs.readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: { node?: string } | string[] }> };
		const warned = Object.entries(lock.packages)
			.filter(([location, entry]) => {
				const range = entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
				return location !== '' && range !== undefined && !semver.satisfies(process.version, range, { includePrerelease: true });
			})
			.map(([location]) => location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length));
		expect(warned.filter((name) => !EXPLAINED.includes(name))).toEqual([]);
	});
});

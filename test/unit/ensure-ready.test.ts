import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const { staleReason } = require('../../scripts/ensure-ready') as { staleReason: (repo: string) => string | null };

/** A folder with a package-lock.json locking `locked` and a node_modules holding `installed`. */
function repoWith(locked: Record<string, { version: string; optional?: boolean; link?: boolean }>, installed: Record<string, string> | null) {
	const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'money-ensure-ready-'));
	const packages: Record<string, object> = { '': { name: 'x' } };
	for (const [name, entry] of Object.entries(locked)) packages[`node_modules/${name}`] = entry;
	fs.writeFileSync(path.join(repo, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages }));
	if (installed) {
		fs.mkdirSync(path.join(repo, 'node_modules'));
		for (const [name, version] of Object.entries(installed)) {
			fs.mkdirSync(path.join(repo, 'node_modules', name), { recursive: true });
			fs.writeFileSync(path.join(repo, 'node_modules', name, 'package.json'), JSON.stringify({ name, version }));
		}
	}
	return repo;
}

describe('scripts/ensure-ready.js: when npm ci must run first', () => {
	const repos: string[] = [];
	const make = (...args: Parameters<typeof repoWith>) => {
		const repo = repoWith(...args);
		repos.push(repo);
		return repo;
	};
	afterAll(() => repos.forEach((repo) => fs.rmSync(repo, { recursive: true, force: true })));

	it('a fresh clone: node_modules is missing', () => {
		expect(staleReason(make({ jest: { version: '30.0.0' } }, null))).toBe('node_modules is missing');
	});

	it('node_modules holding what the lock locks is ready, nested and scoped packages included', () => {
		const locked = { jest: { version: '30.0.0' }, '@n8n/x': { version: '1.0.0' }, 'jest/node_modules/y': { version: '2.0.0' } };
		expect(staleReason(make(locked, { jest: '30.0.0', '@n8n/x': '1.0.0', 'jest/node_modules/y': '2.0.0' }))).toBeNull();
	});

	it('a locked package that is not installed makes it stale', () => {
		expect(staleReason(make({ jest: { version: '30.0.0' }, gulp: { version: '5.0.1' } }, { jest: '30.0.0' }))).toBe(
			'node_modules/gulp is missing',
		);
	});

	it('a lock that moved on (a pull changed a version) makes it stale', () => {
		expect(staleReason(make({ jest: { version: '30.2.0' } }, { jest: '30.0.0' }))).toBe(
			'node_modules/jest is 30.0.0, package-lock.json locks 30.2.0',
		);
	});

	it('optional packages for other platforms and links are not required', () => {
		const locked = { jest: { version: '30.0.0' }, '@esbuild/darwin-arm64': { version: '0.25.0', optional: true }, local: { version: '1.0.0', link: true } };
		expect(staleReason(make(locked, { jest: '30.0.0' }))).toBeNull();
	});
});

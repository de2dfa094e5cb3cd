import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const { invalidLockEdges } = require('../../scripts/lock-check') as {
	invalidLockEdges: (repo?: string) => Promise<Array<{ from: string; name: string; type: string; spec: string; found: string | null }>>;
};

/** A folder holding only package.json and package-lock.json, for npm's resolver to read. */
function projectWith(manifest: object, packages: Record<string, object>, npmrc = ''): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'money-lock-check-'));
	if (npmrc) fs.writeFileSync(path.join(dir, '.npmrc'), npmrc);
	fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest));
	fs.writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify({ name: 'x', lockfileVersion: 3, requires: true, packages }));
	return dir;
}

describe('scripts/lock-check.js: the lock npm install leaves alone (docs/decisions.md#d7)', () => {
	const dirs: string[] = [];
	afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

	it('the committed package-lock.json has no edge that npm install would re-resolve against the registry', async () => {
		expect(await invalidLockEdges()).toEqual([]);
	});

	it('finds an optional peer that another installed version does not satisfy (what made npm install rewrite the lock)', async () => {
		const root = { name: 'x', version: '1.0.0', devDependencies: { a: '1.0.0', b: '1.0.0' } };
		const dir = projectWith(root, {
			'': root,
			'node_modules/a': { version: '1.0.0', dev: true, peerDependencies: { b: '>=2' }, peerDependenciesMeta: { b: { optional: true } } },
			'node_modules/b': { version: '1.0.0', dev: true },
		});
		dirs.push(dir);
		expect(await invalidLockEdges(dir)).toEqual([{ from: 'node_modules/a', name: 'b', type: 'peerOptional', spec: '>=2', found: 'node_modules/b@1.0.0' }]);
	});

	it('an optional peer that nothing installs is not a problem', async () => {
		const root = { name: 'x', version: '1.0.0', devDependencies: { a: '1.0.0' } };
		const dir = projectWith(root, {
			'': root,
			'node_modules/a': { version: '1.0.0', dev: true, peerDependencies: { b: '>=2' }, peerDependenciesMeta: { b: { optional: true } } },
		});
		dirs.push(dir);
		expect(await invalidLockEdges(dir)).toEqual([]);
	});

	it("judges the tree as npm does in that folder: with the folder's legacy-peer-deps, peer edges are not judged", async () => {
		const root = { name: 'x', version: '1.0.0', devDependencies: { a: '1.0.0', b: '1.0.0' } };
		const dir = projectWith(
			root,
			{
				'': root,
				'node_modules/a': { version: '1.0.0', dev: true, peerDependencies: { b: '>=2' }, peerDependenciesMeta: { b: { optional: true } } },
				'node_modules/b': { version: '1.0.0', dev: true },
			},
			'legacy-peer-deps=true\n',
		);
		dirs.push(dir);
		expect(await invalidLockEdges(dir)).toEqual([]);
	});
});

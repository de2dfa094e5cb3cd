/**
 * The built pack installed into an n8n user folder: as n8n's Community Nodes install leaves it
 * (installPack, a copy: the quick start, the browser and queue-mode tiers), or as a user installs
 * a build of it (installPackedTarball: `npm pack`, then `npm install` of the tarball; the
 * end-to-end tier).
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

import { npmCommand } from '../ensure-ready';

/**
 * Copy the built pack (repoDir/package.json + repoDir/dist) to
 * $userFolder/.n8n/nodes/node_modules/n8n-nodes-money, as a Community Nodes install leaves it,
 * so node types are `n8n-nodes-money.<name>` and the credential type `moneyApi`.
 * Call before startN8n: n8n 2.41 scans that folder for `n8n-nodes-*` (and `@x/n8n-nodes-*`)
 * at start (community-packages module, scanDirectoryForPackages); no database row is needed.
 * Like n8n's own install (downloadPackage) the copied package.json loses devDependencies and
 * peerDependencies, and the ledger $userFolder/.n8n/nodes/package.json lists the package.
 * n8n-workflow is not copied: n8n puts its own node_modules on NODE_PATH before loading packages.
 */
export function installPack(userFolder: string, repoDir: string): { target: string; name: string; version: string } {
	const pkg = JSON.parse(fs.readFileSync(path.join(repoDir, 'package.json'), 'utf8'));
	const dist = path.join(repoDir, 'dist');
	if (!fs.existsSync(dist)) throw new Error(`${dist} does not exist: build the pack first (npm run build)`);
	const listed: string[] = [...((pkg.n8n && pkg.n8n.nodes) || []), ...((pkg.n8n && pkg.n8n.credentials) || [])];
	for (const f of listed) {
		if (!fs.existsSync(path.join(repoDir, f))) throw new Error(`package.json lists ${f} but it is not built (npm run build)`);
	}
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const target = path.join(nodesDir, 'node_modules', pkg.name);
	fs.rmSync(target, { recursive: true, force: true });
	fs.mkdirSync(target, { recursive: true });
	const { devDependencies, peerDependencies, optionalDependencies, scripts, ...installed } = pkg;
	fs.writeFileSync(path.join(target, 'package.json'), JSON.stringify(installed, null, 2));
	fs.cpSync(dist, path.join(target, 'dist'), { recursive: true });
	for (const extra of ['README.md', 'LICENSE', 'LICENSE.md']) {
		if (fs.existsSync(path.join(repoDir, extra))) fs.copyFileSync(path.join(repoDir, extra), path.join(target, extra));
	}
	const ledgerFile = path.join(nodesDir, 'package.json');
	let ledger: { name: string; private: boolean; dependencies: Record<string, string> } = { name: 'installed-nodes', private: true, dependencies: {} };
	try {
		const read = JSON.parse(fs.readFileSync(ledgerFile, 'utf8'));
		if (read && read.dependencies) ledger = read;
	} catch {
		/* new */
	}
	ledger.dependencies[pkg.name] = pkg.version;
	fs.writeFileSync(ledgerFile, JSON.stringify(ledger, null, 2));
	return { target, name: pkg.name, version: pkg.version };
}

/**
 * The build to load: `packDir` (MONEY_PACK_DIR: a folder with package.json + dist to test instead
 * of this repository's build) or the repository; throws when its dist/ is missing.
 */
export function builtPackDir(packDir: string | undefined, repoDir: string): string {
	const dir = packDir ? path.resolve(packDir) : repoDir;
	if (!fs.existsSync(path.join(dir, 'dist'))) throw new Error(`${dir}/dist is missing: run \`npm run build\` first`);
	return dir;
}

export interface TarballInstall {
	target: string;
	name: string;
	version: string;
	/** The tarball `npm pack` wrote. */
	tarball: string;
	/** $userFolder/.n8n/nodes, where npm ran. */
	nodesDir: string;
}

/** npm as a user's shell runs it: none of the calling npm's npm_config_* (this repository's .npmrc). */
function runNpm(args: string[], cwd: string): string {
	const npm = npmCommand();
	const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
	const res = spawnSync(npm.file, [...npm.args, ...args, '--no-audit', '--no-fund', '--no-update-notifier'], { cwd, env, encoding: 'utf8' });
	if (res.status !== 0) throw new Error(`npm ${args.join(' ')} failed (exit ${res.status}) in ${cwd}: ${res.stderr.split('\n').slice(-6).join(' | ')}`);
	return res.stdout;
}

/**
 * The route README.md gives for a build of this repository: `npm pack` of `repoDir` (package.json
 * + dist), then in $userFolder/.n8n/nodes (its package.json created as n8n creates it)
 * `npm install --legacy-peer-deps <tarball>`: the flag keeps npm from installing the peer
 * dependency n8n-workflow beside the pack, where it would load instead of n8n's own (n8n's
 * installer drops peer dependencies too), and it needs nothing from the registry.
 */
export function installPackedTarball(userFolder: string, repoDir: string): TarballInstall {
	const pkg = JSON.parse(fs.readFileSync(path.join(repoDir, 'package.json'), 'utf8'));
	builtPackDir(repoDir, repoDir);
	const packDir = fs.mkdtempSync(path.join(userFolder, 'pack-'));
	const packed = JSON.parse(runNpm(['pack', repoDir, '--json', '--pack-destination', packDir], packDir))[0];
	const tarball = path.join(packDir, packed.filename);
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	if (!fs.existsSync(path.join(nodesDir, 'package.json'))) {
		fs.writeFileSync(path.join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2));
	}
	runNpm(['install', '--legacy-peer-deps', tarball], nodesDir);
	return { target: path.join(nodesDir, 'node_modules', pkg.name), name: pkg.name, version: pkg.version, tarball, nodesDir };
}

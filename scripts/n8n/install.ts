/**
 * Cache installs of Node and n8n, once per version, into the cache of versions.ts:
 *   - the Node that runs n8n (node-choice.ts): the one running this when it satisfies that
 *     n8n's needs (nothing installed), else the registry's `node-<os>-<arch>` build;
 *   - n8n from npm, native modules (sqlite3, isolated-vm) rebuilt for that Node.
 * Each goes through cache-install.ts (a lock, a temporary folder, a marker once complete).
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

import * as semver from 'semver';

import { installOnce, runNpm } from './cache-install';
import { log, seconds } from './log';
import { chooseNode, type NodeChoiceInput, type NodePackage } from './node-choice';
import { cacheRoot, n8nDir, n8nProfile, n8nVersion } from './versions';

// isolated-vm ships a Node 24 (abi137) prebuild; only sqlite3 is compiled (its prebuild download needs GitHub).
const NATIVE_MODULES = ['sqlite3', 'isolated-vm'];

export interface N8nRuntime {
	nodeBin: string;
	/** The Node version that runs n8n, and whether it is the one running this or the registry's. */
	nodeVersion: string;
	nodeSource: 'system' | 'registry';
	n8nBin: string;
	n8nDir: string;
}

export interface NodeRuntime {
	bin: string;
	version: string;
	source: 'system' | 'registry';
	/** process.versions.modules: native modules built for one ABI load only there. */
	abi: string;
}

function nodePackageDir(pkg: NodePackage): string {
	return path.join(cacheRoot(), `${pkg.name}-${pkg.version}`);
}

function installNodePackage(pkg: NodePackage): string {
	const dir = installOnce(nodePackageDir(pkg), `Node ${pkg.version} (${pkg.name})`, (tmp) => {
		log(`installing Node ${pkg.version} from the npm registry's ${pkg.name} (first run only, ~10 s)...`);
		fs.writeFileSync(path.join(tmp, 'package.json'), JSON.stringify({ name: 'money-node', private: true }, null, 2));
		const logFile = `${nodePackageDir(pkg)}.install.log`;
		fs.writeFileSync(logFile, '');
		runNpm(['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', '--no-package-lock', '--prefer-offline', `${pkg.name}@${pkg.version}`], {
			cwd: tmp,
			logFile,
			label: `downloading Node ${pkg.version}`,
		});
		const bin = path.join(tmp, 'node_modules', pkg.name, pkg.bin);
		const v = spawnSync(bin, ['--version'], { encoding: 'utf8' });
		if (v.status !== 0 || v.stdout.trim() !== `v${pkg.version}`) {
			throw new Error(`installed node does not run: ${v.stdout}${v.stderr}${v.error || ''}`);
		}
		return { version: v.stdout.trim() };
	});
	return path.join(dir, 'node_modules', pkg.name, pkg.bin);
}

function abiOf(bin: string): string {
	if (bin === process.execPath) return process.versions.modules;
	const res = spawnSync(bin, ['-p', 'process.versions.modules'], { encoding: 'utf8' });
	if (res.status !== 0) throw new Error(`${bin} does not run: ${res.stderr}${res.error || ''}`);
	return res.stdout.trim();
}

/**
 * The Node that runs n8n (`engines`, a semver range): the one running this when it satisfies it
 * (nothing installed), else the registry's build for this platform, installed into the cache on
 * first use; throws with what to install when neither fits.
 */
export function ensureNode(engines: string, what: string, input: Partial<NodeChoiceInput> = {}): NodeRuntime {
	const choice = chooseNode({ engines, what, system: { bin: process.execPath, version: process.version }, platform: process.platform, arch: process.arch, ...input });
	if (choice.kind === 'none') throw new Error(choice.message);
	if (choice.kind === 'system') return { bin: choice.bin, version: choice.version, source: 'system', abi: abiOf(choice.bin) };
	const bin = installNodePackage(choice.pkg);
	return { bin, version: choice.pkg.version, source: 'registry', abi: abiOf(bin) };
}

/**
 * `npm install` of n8n in its cache folder: no install scripts (the native modules are rebuilt
 * for the chosen Node after), no dev dependencies, as the registry stood on `registryDate`, and
 * peer dependencies installed as npm installs them by default, whatever a .npmrc says
 * (legacy-peer-deps would leave out packages n8n loads).
 */
export function n8nInstallArgs(registryDate: string): string[] {
	return ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=dev', '--prefer-offline', '--legacy-peer-deps=false', `--before=${registryDate}T23:59:59Z`];
}

/**
 * A shell snippet run in the install folder, reading npm's log at loglevel http ("$LOG"): the
 * registry's package documents npm has read (it reads them all while it resolves the tree), the
 * package tarballs it has fetched or found in its cache (each counted once: npm logs a tarball
 * again for each place in the tree it goes to), and what it has written to node_modules (npm
 * extracts for minutes after the last tarball arrived). npm says how many packages there are only
 * at the end.
 */
export const INSTALL_PROGRESS =
	`$(grep -o 'GET 200 https://[^ ]*' "$LOG" | grep -v '\\.tgz$' | sort -u | wc -l) package documents read, ` +
	`$(grep -o 'https://[^ ]*\\.tgz' "$LOG" | sort -u | wc -l) packages fetched, ` +
	`$( (du -sm node_modules 2>/dev/null || echo 0) | cut -f1) MB written`;

/** INSTALL_PROGRESS of an install folder and its log, as the heartbeat prints it. */
export function installProgress(dir: string, logFile: string): string {
	return spawnSync('sh', ['-c', `echo "${INSTALL_PROGRESS}"`], { cwd: dir, env: { ...process.env, LOG: logFile }, encoding: 'utf8' }).stdout.trim();
}

/** The folder holding a Node's headers (include/node) when they sit beside its binary, as in the registry's builds, nodejs.org's, Homebrew's and nvm's. */
function nodeHeadersDir(nodeBin: string): string | null {
	const dir = path.resolve(path.dirname(fs.realpathSync(nodeBin)), '..');
	return fs.existsSync(path.join(dir, 'include', 'node', 'node.h')) ? dir : null;
}

/** The installed n8n's needs (its engines, and isolated-vm's) against the Node chosen for it: a wrong LINE_NEEDS entry in versions.ts fails here, not at start. */
function checkEngines(dir: string, node: NodeRuntime): void {
	for (const pkg of ['n8n', 'isolated-vm']) {
		let engines: string | undefined;
		try {
			engines = JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).engines?.node;
		} catch {
			continue; // not in this n8n's tree
		}
		if (engines && !semver.satisfies(node.version, engines)) {
			throw new Error(`${pkg} in n8n ${n8nVersion()} needs Node ${engines}, but Node ${node.version} was chosen from nodeEngines "${n8nProfile().nodeEngines}" in scripts/n8n/versions.ts: correct it there`);
		}
	}
}

/** `{ nodeBin, n8nBin, n8nDir }`, installing n8n into the cache on first use. */
export function ensureN8n(): N8nRuntime {
	const version = n8nVersion();
	const node = ensureNode(n8nProfile().nodeEngines, `n8n ${version}`);
	const nodeBin = node.bin;
	const finalDir = n8nDir(node.abi);
	const dir = installOnce(finalDir, `n8n ${version}`, (tmp) => {
		// Measured on a 2-core machine under other load: 11 min with npm's cache full, 14 to 18 min cold.
		log(`installing n8n ${version} for Node ${node.version} (first run only: 10 to 20 min on 2 cores; it downloads ~800 MB unless npm's cache holds it, writes ~3 GB, then compiles sqlite3)...`);
		const logFile = `${finalDir}.install.log`; // outside tmp: kept when the install fails
		fs.writeFileSync(logFile, '');
		fs.writeFileSync(
			path.join(tmp, 'package.json'),
			JSON.stringify(
				{
					name: 'money-n8n-runtime',
					private: true,
					dependencies: { n8n: version },
					overrides: n8nProfile().overrides,
					// npm 11's install-script policy: these two are the only scripts we run (npm rebuild).
					allowScripts: Object.fromEntries(NATIVE_MODULES.map((m) => [m, true])),
				},
				null,
				2,
			),
		);
		let t = Date.now();
		const { registryDate } = n8nProfile();
		log(`  npm install n8n@${version} --ignore-scripts, as the registry stood on ${registryDate} (log: ${logFile})...`);
		runNpm(n8nInstallArgs(registryDate), {
			cwd: tmp,
			logFile,
			label: `downloading n8n ${version} and its dependencies`,
			progress: INSTALL_PROGRESS,
		});
		log(`  downloaded in ${seconds(Date.now() - t)}: ${installProgress(tmp, logFile)}`);
		t = Date.now();
		checkEngines(tmp, node);
		log(`  npm rebuild ${NATIVE_MODULES.join(' ')} with Node ${node.version} (compiles sqlite3: 3 to 6 min on 2 cores, less on more)...`);
		// With the headers beside the binary, sqlite3 is compiled against them; without, node-gyp
		// and sqlite3's installer fetch headers or a prebuilt binary from the internet.
		const headers = nodeHeadersDir(nodeBin);
		if (!headers) log(`  (Node ${node.version} has no headers beside ${nodeBin}: node-gyp downloads them)`);
		runNpm(['rebuild', ...NATIVE_MODULES], {
			cwd: tmp,
			nodeBin,
			logFile,
			label: `compiling sqlite3 for Node ${node.version}`,
			env: {
				...(headers ? { npm_config_nodedir: headers, npm_config_build_from_source: 'sqlite3' } : {}),
				npm_config_ignore_scripts: 'false',
				JOBS: String(Math.max(1, os.cpus().length)),
			},
		});
		log(`  rebuilt in ${seconds(Date.now() - t)}`);
		const n8nBin = path.join(tmp, 'node_modules', 'n8n', 'bin', 'n8n');
		verifyNative(nodeBin, tmp);
		const v = spawnSync(nodeBin, [n8nBin, '--version'], { encoding: 'utf8', cwd: tmp, env: { ...process.env, N8N_USER_FOLDER: tmp } });
		const out = `${v.stdout}${v.stderr}`;
		if (v.status !== 0 || !out.includes(version)) throw new Error(`n8n --version failed: ${out}`);
		// The user folder above was only for the version check.
		fs.rmSync(path.join(tmp, '.n8n'), { recursive: true, force: true });
		return { version, node: node.version, nodeSource: node.source, nodeAbi: node.abi, registryDate };
	});
	return { nodeBin, nodeVersion: node.version, nodeSource: node.source, n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'), n8nDir: dir };
}

/** Load each rebuilt native module under that Node: fails loudly instead of at n8n start. */
export function verifyNative(nodeBin: string, dir: string): void {
	const code = `
		const sqlite3 = require('sqlite3');
		const db = new sqlite3.Database(':memory:');
		db.get('select 1 as x', (e, r) => { if (e || r.x !== 1) { console.error(e); process.exit(1); } db.close(); });
		require('isolated-vm');
	`;
	const res = spawnSync(nodeBin, ['-e', code], { cwd: path.join(dir, 'node_modules', 'n8n'), encoding: 'utf8' });
	if (res.status !== 0) throw new Error(`native modules do not load under ${nodeBin}: ${res.stderr}${res.stdout}`);
}

#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Why a plain `npm install` could rewrite package-lock.json: the dependency edges of the locked
 * tree that npm itself judges invalid. npm's resolver (Arborist, inside npm) re-resolves every
 * such edge on every `npm install`, against whatever the registry serves that day, even when the
 * lock and package.json agree; an optional peer dependency counts as soon as some other version
 * of it is installed where it would resolve (docs/decisions.md#d7). `npm ci` never does this.
 * The tree is judged as npm judges it in that folder: with its `legacy-peer-deps` setting (this
 * repository's .npmrc sets it, so peer edges are not judged at all).
 *
 * `node scripts/lock-check.js` prints those edges and exits 1 when there are any; the unit test
 * test/unit/lock-check.test.ts holds the committed lock to none. Plain JavaScript, type-checked
 * from its JSDoc: it uses the Arborist of the npm that runs it, nothing installed by the project.
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const REPO = path.resolve(__dirname, '..');

/**
 * Arborist's folder inside the npm that runs this (npm_execpath), else inside the npm on PATH.
 * @returns {string}
 */
function arboristPath() {
	const candidates = [];
	const cli = process.env.npm_execpath;
	if (cli && /npm-cli\.js$/.test(cli)) candidates.push(path.resolve(path.dirname(cli), '..', 'node_modules', '@npmcli', 'arborist'));
	const root = spawnSync('npm', ['root', '-g'], { encoding: 'utf8' });
	if (root.status === 0) candidates.push(path.join(root.stdout.trim(), 'npm', 'node_modules', '@npmcli', 'arborist'));
	const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'package.json')));
	if (!found) throw new Error(`cannot find npm's Arborist (looked in ${candidates.join(', ') || 'nothing: no npm found'})`);
	return found;
}

/**
 * @typedef {{ from: string, name: string, type: string, spec: string, found: string | null }} InvalidEdge
 */

/**
 * npm's `legacy-peer-deps` as a plain `npm install` in `repo` resolves it (its .npmrc, the
 * user's, the global one); not the npm_config_* variables of the npm that may be running this.
 * @param {string} repo
 * @returns {boolean}
 */
function legacyPeerDeps(repo) {
	const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_config_/i.test(key)));
	const res = spawnSync('npm', ['config', 'get', 'legacy-peer-deps'], { cwd: repo, encoding: 'utf8', env });
	if (res.status !== 0) throw new Error(`npm config get legacy-peer-deps failed: ${res.stderr}`);
	return res.stdout.trim() === 'true';
}

/**
 * The edges of `repo`'s package-lock.json that npm would re-resolve on `npm install`: invalid
 * ones, and missing ones that are not optional.
 * @param {string} [repo]
 * @returns {Promise<InvalidEdge[]>}
 */
async function invalidLockEdges(repo = REPO) {
	const Arborist = require(arboristPath());
	const tree = await new Arborist({ path: repo, legacyPeerDeps: legacyPeerDeps(repo) }).loadVirtual();
	/** @type {InvalidEdge[]} */
	const problems = [];
	for (const node of tree.inventory.values()) {
		for (const edge of node.edgesOut.values()) {
			if (edge.valid) continue;
			if (edge.missing && (edge.type === 'optional' || edge.type === 'peerOptional')) continue;
			problems.push({
				from: node.location || '(root)',
				name: edge.name,
				type: edge.type,
				spec: edge.spec,
				found: edge.to ? `${edge.to.location}@${edge.to.version}` : null,
			});
		}
	}
	return problems;
}

module.exports = { invalidLockEdges };

if (require.main === module) {
	invalidLockEdges().then(
		(problems) => {
			for (const p of problems) {
				process.stdout.write(`${p.from} -> ${p.name} (${p.type} ${p.spec}): ${p.found ? `finds ${p.found}` : 'missing'}\n`);
			}
			process.stdout.write(`${problems.length} edge(s) npm install would re-resolve\n`);
			process.exitCode = problems.length ? 1 : 0;
		},
		(error) => {
			process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
			process.exitCode = 2;
		},
	);
}

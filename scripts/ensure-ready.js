#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * First step of every npm script that needs the dev dependencies (build, lint, typecheck, and
 * through build every test, `dev`, `bench`, `scan`): so that `npm test` or `npm run dev` works on a
 * fresh clone with nothing run before it. When node_modules is missing, or does not hold what
 * package-lock.json locks (a pull changed the lock), it runs `npm ci` and says so; otherwise it
 * does nothing. Dependency-free: it runs before anything is installed, so it stays plain
 * JavaScript, type-checked from its JSDoc (`npm run typecheck`).
 *
 * Exit code: 0 when node_modules matches the lock (after installing if needed), else npm's.
 */

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const REPO = path.resolve(__dirname, '..');

/** @param {string} msg */
function say(msg) {
	process.stdout.write(`${msg}\n`);
}

/**
 * @param {string} repo
 * @param {string} folder
 * @returns {string | undefined}
 */
function installedVersion(repo, folder) {
	try {
		return JSON.parse(fs.readFileSync(path.join(repo, folder, 'package.json'), 'utf8')).version;
	} catch {
		return undefined;
	}
}

/**
 * @typedef {{ version?: string, optional?: boolean, link?: boolean }} LockEntry
 */

/**
 * Why `repo`'s node_modules does not match its package-lock.json, or null when it does.
 * @param {string} [repo]
 * @returns {string | null}
 */
function staleReason(repo = REPO) {
	if (!fs.existsSync(path.join(repo, 'node_modules'))) return 'node_modules is missing';
	/** @type {{ packages?: Record<string, LockEntry> }} */
	const lock = JSON.parse(fs.readFileSync(path.join(repo, 'package-lock.json'), 'utf8'));
	for (const [folder, entry] of Object.entries(lock.packages || {})) {
		if (!folder.startsWith('node_modules/') || entry.link) continue;
		const version = installedVersion(repo, folder);
		// Optional packages for other platforms (and those the registry lacks) are never installed.
		if (version === undefined && entry.optional) continue;
		if (version === undefined) return `${folder} is missing`;
		if (entry.version && version !== entry.version) return `${folder} is ${version}, package-lock.json locks ${entry.version}`;
	}
	return null;
}

/**
 * The npm that runs this script (npm_execpath under `npm run`), else the one on PATH.
 * @returns {{ file: string, args: string[] }}
 */
function npmCommand() {
	const cli = process.env.npm_execpath;
	if (cli && /\.js$/.test(cli)) return { file: process.execPath, args: [cli] };
	return { file: 'npm', args: [] };
}

/** @returns {number} */
function main() {
	const reason = staleReason();
	if (!reason) return 0;
	say(`[ensure-ready] ${reason}: running npm ci to install the dev dependencies (a few minutes the first time; waiting for npm)...`);
	const started = Date.now();
	const npm = npmCommand();
	const res = spawnSync(npm.file, [...npm.args, 'ci'], { cwd: REPO, stdio: 'inherit' });
	if (res.status !== 0) {
		say(`[ensure-ready] npm ci failed (exit ${res.status ?? res.signal}); see its output above`);
		return res.status || 1;
	}
	const still = staleReason();
	if (still) {
		say(`[ensure-ready] after npm ci, ${still} (with NODE_ENV=production or omit=dev npm leaves out the dev dependencies these scripts need)`);
		return 1;
	}
	say(`[ensure-ready] dependencies installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
	return 0;
}

module.exports = { npmCommand, staleReason };

if (require.main === module) process.exitCode = main();

#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * `npm ci` refuses a lock file whose packages name optional dependencies the lock does not hold.
 * The registry this project installs from does not serve every platform binding of some packages
 * (unrs-resolver's non-Linux builds), so `npm install` leaves such dangling names behind. This
 * drops them from package-lock.json; run it after any `npm install` that rewrites the lock.
 * Plain JavaScript, type-checked from its JSDoc: it runs when `npm ci` cannot.
 */
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.resolve(__dirname, '..', 'package-lock.json');
/** @type {{ packages: Record<string, { optionalDependencies?: Record<string, string> }> }} */
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

/**
 * Whether `name` resolves from the package folder `from` ('' for the root), as Node would look it up.
 * @param {string} from
 * @param {string} name
 * @returns {boolean}
 */
function resolvable(from, name) {
	let folder = from;
	for (;;) {
		if (packages[folder ? `${folder}/node_modules/${name}` : `node_modules/${name}`]) return true;
		if (!folder) return false;
		const cut = folder.lastIndexOf('/node_modules/');
		folder = cut === -1 ? '' : folder.slice(0, cut);
	}
}

/** @type {string[]} */
const dropped = [];
for (const [folder, entry] of Object.entries(packages)) {
	const optional = entry.optionalDependencies ?? {};
	for (const name of Object.keys(optional)) {
		if (!resolvable(folder, name)) {
			delete optional[name];
			dropped.push(`${folder || '(root)'} -> ${name}`);
		}
	}
}
fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(dropped.length ? `dropped ${dropped.length} unresolvable optional dependencies:\n  ${dropped.join('\n  ')}\n` : 'nothing to drop\n');

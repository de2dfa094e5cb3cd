#!/usr/bin/env node
'use strict';
/**
 * `npm ci` refuses a lock file whose packages name optional dependencies the lock does not hold.
 * The registry this project installs from does not serve every platform binding of some packages
 * (unrs-resolver's non-Linux builds), so `npm install` leaves such dangling names behind. This
 * drops them from package-lock.json; run it after any `npm install` that rewrites the lock.
 */
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.resolve(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

function resolvable(from, name) {
	let folder = from;
	for (;;) {
		if (packages[folder ? `${folder}/node_modules/${name}` : `node_modules/${name}`]) return true;
		if (!folder) return false;
		const cut = folder.lastIndexOf('/node_modules/');
		folder = cut === -1 ? '' : folder.slice(0, cut);
	}
}

const dropped = [];
for (const [folder, entry] of Object.entries(packages)) {
	for (const name of Object.keys(entry.optionalDependencies ?? {})) {
		if (!resolvable(folder, name)) {
			delete entry.optionalDependencies[name];
			dropped.push(`${folder || '(root)'} -> ${name}`);
		}
	}
}
fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(dropped.length ? `dropped ${dropped.length} unresolvable optional dependencies:\n  ${dropped.join('\n  ')}\n` : 'nothing to drop\n');

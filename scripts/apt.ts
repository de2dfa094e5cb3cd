/**
 * Debian packages the real-server tiers need (postgresql and redis-server for queue mode, chromium
 * for the browser test), installed with apt-get when missing. The suites of .ci/run and its
 * prefetch may install at the same moment: apt-get waits for dpkg's lock (DPkg::Lock::Timeout) but
 * not for the package lists' lock of `apt-get update`, so every install of this repository runs
 * under one lock of its own (flock), and an `apt-get update` is run only when the install did not
 * find a package (a fresh machine has no package lists).
 */

import { spawnSync } from 'node:child_process';

const LOCK = '/tmp/n8n-nodes-money-apt.lock';
const WAIT_SECONDS = 1200;

const SCRIPT = [
	'install() { apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends "$@"; }',
	'install "$@" && exit 0',
	'apt-get update -qq -o DPkg::Lock::Timeout=600 || { sleep 10; apt-get update -qq -o DPkg::Lock::Timeout=600; } || exit 1',
	'install "$@"',
].join('\n');

/** Installs `packages` (root only: the caller says what to run otherwise); throws with apt-get's last lines. */
export function aptInstall(packages: string[]): void {
	const res = spawnSync('flock', ['-w', String(WAIT_SECONDS), LOCK, 'sh', '-c', SCRIPT, 'apt', ...packages], {
		env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
		encoding: 'utf8',
	});
	if (res.status !== 0) {
		const tail = `${res.stdout}${res.stderr}${res.error ? String(res.error) : ''}`.split('\n').slice(-20).join('\n');
		throw new Error(`apt-get install ${packages.join(' ')} failed (exit ${res.status}):\n${tail}`);
	}
}

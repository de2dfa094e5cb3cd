/**
 * Which n8n the real-server tiers use, which Node runs it, and where each is cached.
 *
 * Environment:
 *   MONEY_CACHE_DIR     cache root (default $XDG_CACHE_HOME/n8n-nodes-money or ~/.cache/n8n-nodes-money)
 *   MONEY_N8N_VERSION   n8n version: exact (1.123.81) or a tested line (1.123.x); default the 2.41.x line
 *   MONEY_NODE_VERSION  the registry Node build's version, for the platforms that have one (see node-choice.ts)
 */

import * as os from 'node:os';
import * as path from 'node:path';

export const PACK_NAME = 'n8n-nodes-money';

/**
 * The tested patch of each n8n line, and the day its install was resolved: n8n pins its own
 * packages but takes ranges for the rest (about 2,300 packages), which are resolved as the
 * registry stood on that day (npm's `--before`), so an install made later is the one that was
 * tested (docs/decisions.md#d7). Moving a line to a newer patch is changing its one entry here;
 * `npm run n8n-watch` says when the registry can install a newer patch, and prints the entry.
 */
export const TESTED_N8N = {
	'2.41.x': { version: '2.41.1', registryDate: '2026-11-23' },
	'1.123.x': { version: '1.123.81', registryDate: '2026-11-23' },
} as const satisfies Record<string, { version: string; registryDate: string }>;

export type TestedLine = keyof typeof TESTED_N8N;
const DEFAULT_LINE: TestedLine = '2.41.x';

export interface N8nProfile {
	/** The tested line this version stands for (`2.41.x`). */
	line: string;
	/** npm overrides needed to install it from the registry we have. */
	overrides: Record<string, string>;
	/** The day its dependencies are resolved as of (see TESTED_N8N). */
	registryDate: string;
	/**
	 * The Node versions that run it: n8n's `engines.node`, narrowed by that of isolated-vm (a
	 * native module n8n loads at start, whose prebuilds need a newer Node than n8n 1.x states).
	 * The install checks this against the installed package.json files (install.ts).
	 */
	nodeEngines: string;
	/** A log line to wait for besides /healthz/readiness (1.x answers the probe before its REST routes exist). */
	readyLogLine?: string;
	/** 'rest': the owner is created with POST /rest/owner/setup after start (1.x has no N8N_INSTANCE_OWNER_* variables); otherwise from the environment. */
	ownerSetup?: 'rest';
}

/** What each tested line needs to install and start here, besides its version and day. */
const LINE_NEEDS: Record<TestedLine, Omit<N8nProfile, 'line' | 'registryDate'>> = {
	'2.41.x': { overrides: { linkedom: '0.18.14' }, nodeEngines: '>=24.0.0' },
	// xlsx is a CDN tarball in n8n 1.x's dependencies; 0.18.5 is the registry's last xlsx.
	// n8n 1.123 says Node >=20.19 <= 24.x; its isolated-vm 6.2 needs >=22.
	'1.123.x': { overrides: { xlsx: '0.18.5' }, nodeEngines: '>=22.0.0 <=24.x', readyLogLine: 'Editor is now accessible', ownerSetup: 'rest' },
};

/** The n8n versions the pack is tested against (one per line), with what each needs. */
export const N8N_PROFILES: Record<string, N8nProfile> = Object.fromEntries(
	(Object.keys(TESTED_N8N) as TestedLine[]).map((line) => [TESTED_N8N[line].version, { line, registryDate: TESTED_N8N[line].registryDate, ...LINE_NEEDS[line] }]),
);

/** `2.41.1`, `1.123.x` (the tested patch of that line) or another exact version. */
export function resolveN8nVersion(wanted: string | undefined): string {
	if (!wanted) return TESTED_N8N[DEFAULT_LINE].version;
	if (/\.x$/.test(wanted)) {
		if (!(wanted in TESTED_N8N)) throw new Error(`n8n ${wanted} is not a tested line; tested: ${Object.keys(TESTED_N8N).join(', ')}`);
		return TESTED_N8N[wanted as TestedLine].version;
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

/** An untested version: the default line's needs and day. */
export function n8nProfile(): N8nProfile {
	return N8N_PROFILES[n8nVersion()] || { ...N8N_PROFILES[TESTED_N8N[DEFAULT_LINE].version], line: n8nVersion() };
}

export function cacheRoot(): string {
	if (process.env.MONEY_CACHE_DIR) return path.resolve(process.env.MONEY_CACHE_DIR);
	const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
	return path.join(base, PACK_NAME);
}

/**
 * One folder per n8n version and registry date: a new date never reuses an install made for
 * another. Its native modules are built for one Node ABI: Node 24's (137) keeps the plain name,
 * another Node's gets its ABI appended.
 */
export function n8nDir(nodeAbi = '137'): string {
	const abi = nodeAbi === '137' ? '' : `-node-abi${nodeAbi}`;
	return path.join(cacheRoot(), `n8n-${n8nVersion()}-registry-${n8nProfile().registryDate}${abi}`);
}

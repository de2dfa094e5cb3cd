/**
 * Newer patches of the tested n8n lines, and whether the registry can install each: n8n pins its
 * own packages (`@n8n/*`, `n8n-*`) to exact versions, and those pins are what a registry that
 * lists n8n may still not serve (2.41.3 was listed while 21 of them were not). Read by
 * `npm run n8n-watch` (scripts/n8n-watch.ts); the registry is reached through a RegistryClient.
 */

import * as semver from 'semver';

export interface RegistryClient {
	/** Every version the registry lists for a package. */
	versions(name: string): Promise<string[]>;
	/** One version's manifest, or null when the registry does not serve it. */
	manifest(name: string, version: string): Promise<{ dependencies?: Record<string, string> } | null>;
}

export interface PatchReport {
	version: string;
	installable: boolean;
	/** `name@version` of each pinned n8n package the registry does not serve. */
	missing: string[];
}

const OWN_PACKAGE = /^(@n8n\/|n8n-|n8n$)/;

/** The n8n packages `version` of n8n pins, transitively, that the registry does not serve. */
export async function unservedPins(client: RegistryClient, version: string): Promise<string[]> {
	const seen = new Set<string>();
	const missing: string[] = [];
	let wave: Array<[string, string]> = [['n8n', version]];
	while (wave.length > 0) {
		const manifests = await Promise.all(wave.map(([name, v]) => client.manifest(name, v)));
		const next: Array<[string, string]> = [];
		manifests.forEach((manifest, i) => {
			const [name, v] = wave[i];
			if (!manifest) {
				missing.push(`${name}@${v}`);
				return;
			}
			for (const [dep, spec] of Object.entries(manifest.dependencies || {})) {
				if (!OWN_PACKAGE.test(dep) || !semver.valid(spec) || seen.has(`${dep}@${spec}`)) continue;
				seen.add(`${dep}@${spec}`);
				next.push([dep, spec]);
			}
		});
		wave = next;
	}
	return missing.sort();
}

/** Patches of `tested`'s line newer than it (no prereleases), oldest first, each with whether it is installable. */
export async function newerPatches(client: RegistryClient, tested: string): Promise<PatchReport[]> {
	const [major, minor, patch] = tested.split('.').map(Number);
	const newer = (await client.versions('n8n'))
		.filter((v) => semver.valid(v) && !semver.prerelease(v) && semver.major(v) === major && semver.minor(v) === minor && semver.patch(v) > patch)
		.sort(semver.compare);
	const reports: PatchReport[] = [];
	for (const version of newer) {
		const missing = await unservedPins(client, version);
		reports.push({ version, installable: missing.length === 0, missing });
	}
	return reports;
}

/** One report line per tested line, and for an installable patch the entry to put in versions.ts. */
export function describe(line: string, tested: string, reports: PatchReport[], today: string): string[] {
	if (reports.length === 0) return [`${line}: tested ${tested}; the registry lists no newer patch`];
	const out = [`${line}: tested ${tested}; newer on the registry:`];
	for (const r of reports) {
		if (r.installable) {
			out.push(`  ${r.version}: installable. To test it, set '${line}': { version: '${r.version}', registryDate: '${today}' } in TESTED_N8N (scripts/n8n/versions.ts), then npm run test:e2e${line.startsWith('1.') ? ` -- --n8n ${line}` : ''}`);
			out.push(`    the Money Trigger relies on n8n behaviours no document promises (docs/webhook-memory.md); their checks first: E2E_ONLY='n8n assumption' npm run test:e2e${line.startsWith('1.') ? ` -- --n8n ${line}` : ''}`);
		} else {
			const shown = r.missing.slice(0, 6).join(', ');
			out.push(`  ${r.version}: not installable: ${r.missing.length} of the n8n packages it pins are not served (${shown}${r.missing.length > 6 ? ', ...' : ''})`);
		}
	}
	return out;
}

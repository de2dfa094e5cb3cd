/**
 * `npm run n8n-watch`: says when a newer patch of a tested n8n line (scripts/n8n/versions.ts,
 * TESTED_N8N) becomes installable from the registry npm is configured with, and prints the entry
 * that moves the line to it. A report, never a check: it exits 0 whatever the registry answers
 * (or when it does not answer), so nothing depends on the registry's later state. .ci/run prints
 * it at the end.
 */

import { spawnSync } from 'node:child_process';

import { fetchText } from './n8n/api';
import { describe, newerPatches, type RegistryClient } from './n8n/newer-patches';
import { TESTED_N8N } from './n8n/versions';

const TIMEOUT_MS = 30_000;

function registryUrl(): string {
	const res = spawnSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' });
	const url = res.status === 0 && res.stdout.trim() ? res.stdout.trim() : 'https://registry.npmjs.org/';
	return url.endsWith('/') ? url : `${url}/`;
}

function httpClient(registry: string): RegistryClient {
	const get = async (path: string, accept: string): Promise<any> => {
		const res = await fetchText(`${registry}${path}`, { headers: { accept }, timeoutMs: TIMEOUT_MS });
		if (res.status === 404) return null;
		if (res.status < 200 || res.status >= 300) throw new Error(`GET ${registry}${path}: ${res.status}`);
		return JSON.parse(res.text);
	};
	const encoded = (name: string) => name.replace('/', '%2f');
	return {
		async versions(name) {
			const doc = await get(encoded(name), 'application/vnd.npm.install-v1+json');
			return doc ? Object.keys(doc.versions || {}) : [];
		},
		manifest: (name, version) => get(`${encoded(name)}/${version}`, 'application/json'),
	};
}

async function main(): Promise<void> {
	const registry = registryUrl();
	console.log(`# n8n-watch: newer patches of the tested n8n lines on ${registry} (a report; it never fails)`);
	const client = httpClient(registry);
	const today = new Date().toISOString().slice(0, 10);
	for (const [line, { version }] of Object.entries(TESTED_N8N)) {
		try {
			describe(line, version, await newerPatches(client, version), today).forEach((l) => console.log(l));
		} catch (err) {
			console.log(`${line}: tested ${version}; could not ask the registry (${(err as Error).message}); nothing to report`);
		}
	}
}

main()
	.catch((err) => console.log(`# n8n-watch: ${(err as Error).message}; nothing to report`))
	.finally(() => {
		process.exitCode = 0;
	});

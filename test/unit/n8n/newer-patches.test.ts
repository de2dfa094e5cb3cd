import { describe as describeReport, newerPatches, unservedPins, type RegistryClient } from '../../../scripts/n8n/newer-patches';

/** A registry holding `served` manifests (`name@version` → dependencies). */
function registry(served: Record<string, Record<string, string>>, n8nVersions: string[]): RegistryClient {
	return {
		versions: async (name) => (name === 'n8n' ? n8nVersions : []),
		manifest: async (name, version) => (`${name}@${version}` in served ? { dependencies: served[`${name}@${version}`] } : null),
	};
}

describe('scripts/n8n/newer-patches.ts: newer patches of a tested line and whether they install', () => {
	const served = {
		'n8n@2.41.1': { 'n8n-core': '2.41.1' },
		'n8n-core@2.41.1': {},
		'n8n@2.41.3': { 'n8n-core': '2.41.2', '@n8n/config': '2.39.1', lodash: '4.17.21', '@n8n/di': '^0.17.0' },
		'n8n@2.41.4': { 'n8n-core': '2.41.4', '@n8n/config': '2.39.0' },
		'n8n-core@2.41.4': { '@n8n/backend-common': '1.41.4' },
		'@n8n/backend-common@1.41.4': { '@n8n/config': '2.39.0' },
		'@n8n/config@2.39.0': {},
	};
	const client = registry(served, ['2.40.9', '2.41.0', '2.41.1', '2.41.3', '2.41.4', '2.42.0', '2.41.5-rc.1', '1.123.82']);

	it('lists the pinned n8n packages (transitively) the registry does not serve; ranges and other packages are not pins', async () => {
		expect(await unservedPins(client, '2.41.3')).toEqual(['@n8n/config@2.39.1', 'n8n-core@2.41.2']);
		expect(await unservedPins(client, '2.41.4')).toEqual([]);
		expect(await unservedPins(client, '2.41.9')).toEqual(['n8n@2.41.9']);
	});

	it('only newer patches of the same line, no prereleases, oldest first', async () => {
		expect(await newerPatches(client, '2.41.1')).toEqual([
			{ version: '2.41.3', installable: false, missing: ['@n8n/config@2.39.1', 'n8n-core@2.41.2'] },
			{ version: '2.41.4', installable: true, missing: [] },
		]);
		expect(await newerPatches(client, '2.41.4')).toEqual([]);
	});

	it('the report names what is missing, and for an installable patch the entry that moves the line and the checks of the n8n behaviours the trigger relies on', async () => {
		const lines = describeReport('2.41.x', '2.41.1', await newerPatches(client, '2.41.1'), '2026-12-01');
		expect(lines[0]).toBe('2.41.x: tested 2.41.1; newer on the registry:');
		expect(lines[1]).toContain('2.41.3: not installable: 2 of the n8n packages it pins are not served (@n8n/config@2.39.1, n8n-core@2.41.2)');
		expect(lines[2]).toContain("2.41.4: installable. To test it, set '2.41.x': { version: '2.41.4', registryDate: '2026-12-01' } in TESTED_N8N");
		expect(lines[3]).toContain("E2E_ONLY='n8n assumption' npm run test:e2e");
		expect(describeReport('1.123.x', '1.123.81', [], '2026-12-01')).toEqual(['1.123.x: tested 1.123.81; the registry lists no newer patch']);
	});
});

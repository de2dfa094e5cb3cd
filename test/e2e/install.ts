/**
 * The pack as a user installs a build of it (README.md, "Installing in your n8n"): scripts/e2e.ts
 * installs the packed tarball with npm into the fresh n8n's user folder before n8n starts
 * (scripts/n8n/community-package.ts installPackedTarball), so every check of this tier runs on
 * that install. This check looks at what npm left and runs one workflow on it.
 */

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { keyedWorkflows, type CasePart, type E2eContext } from './case-setup';
import { money, node, PACK } from './workflows';

export function build(ctx: E2eContext): CasePart {
	const { ids, wf } = keyedWorkflows('e2eInstall');
	const workflows = [wf('Account', 'e2e installed from the packed tarball', [node.manualTrigger(), node.money('Account', money.accountGet())])];
	return {
		workflows,
		checks: [
			{
				onN8n1: 'n8n 1.x loads a community package from ~/.n8n/nodes by its own loader',
				name: 'installed as users install a build: npm pack, npm install <tarball> in ~/.n8n/nodes, n8n loads it and runs a workflow',
				async fn() {
					const { nodesDir, target, name, version, tarball } = ctx.pack;
					const ledger = JSON.parse(fs.readFileSync(path.join(nodesDir, 'package.json'), 'utf8'));
					assert.ok(ledger.dependencies && ledger.dependencies[name], `~/.n8n/nodes/package.json does not list ${name}: ${JSON.stringify(ledger)}`);
					const installed = JSON.parse(fs.readFileSync(path.join(target, 'package.json'), 'utf8'));
					assert.equal(installed.version, version);
					for (const entry of [...installed.n8n.nodes, ...installed.n8n.credentials]) {
						assert.ok(fs.existsSync(path.join(target, entry)), `${entry} is not in the installed package`);
					}
					assert.ok(!fs.existsSync(path.join(nodesDir, 'node_modules', 'n8n-workflow')), 'npm installed the peer n8n-workflow beside the pack: it would load instead of n8n\'s own');
					const run = await ctx.run(ids.Account);
					const account = run.output('Account');
					assert.equal(account.length, 1, `the Account node returned ${account.length} items`);
					ctx.note(`installed from ${path.basename(tarball)} (${fs.statSync(tarball).size} bytes)`);
				},
			},
			{
				onN8n1: 'which node versions n8n 1.x serves is its own',
				name: 'n8n serves the Money node at one version, 1 (docs/decisions.md#d8)',
				async fn() {
					const res = await ctx.session.request('GET', '/types/nodes.json');
					assert.equal(res.status, 200, `GET /types/nodes.json answered ${res.status}`);
					const served = (res.json as Array<{ name: string; version: unknown; defaultVersion?: unknown }>).filter((type) => type.name === `${PACK}.money`);
					assert.deepEqual(served.map((type) => [type.version, type.defaultVersion]), [[1, undefined]]);
				},
			},
		],
	};
}

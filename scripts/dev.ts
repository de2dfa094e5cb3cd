/**
 * Quick start (`npm run dev`, after `npm run build`): the Money API sandbox plus a real n8n
 * with this pack loaded as a community package, a `Money API` credential pointing at the
 * sandbox and the example workflows of examples/ imported when that n8n lacks them (a restart
 * keeps the user's edits; DEV_FRESH=1 starts over). Prints the editor URL and login.
 * Ctrl-C stops everything it started. `npm run dev -- --queue`: the same on n8n's queue mode
 * (Postgres, Redis, main, two workers, webhook process; scripts/queue/dev-queue.ts).
 *
 * Environment (all optional):
 *   N8N_PORT             editor port (default 5678)
 *   DEV_OWNER_EMAIL      owner login (default owner@example.com)
 *   DEV_OWNER_PASSWORD   owner password (default Password1)
 *   SANDBOX_PORT         sandbox API port (default 4010); SANDBOX_AUTH_PORT token host (default 4011)
 *   DEV_DATA_DIR         n8n user folder and sandbox state, kept between runs: workflows, their
 *                        executions and the sandbox's transactions stay; the credential is
 *                        rewritten at each start (default ~/.cache/n8n-nodes-money/dev)
 *   DEV_FRESH=1          start from an empty DEV_DATA_DIR (the examples as shipped)
 *   DEV_LISTEN_ADDRESS   n8n listen address (default 127.0.0.1; 0.0.0.0 to reach it from outside a container)
 *   DEV_EXAMPLES_DIR     workflows to import (default examples/)
 *   MONEY_PACK_DIR       folder with package.json + dist to load instead of this repo's build
 *   MONEY_CACHE_DIR      where n8n and its Node are cached (see scripts/n8n/versions.ts)
 *   MONEY_N8N_VERSION    n8n version (default 2.41.1; 1.123.x also tested)
 * The topology itself is started by scripts/quick-start.ts (shared with `npm run test:ui`).
 */

import * as path from 'node:path';

import * as rt from './n8n';
import { say } from './output';
import { runDevQueue } from './queue/dev-queue';
import { CREDENTIAL, loadExamples, startQuickStart, type QuickStart } from './quick-start';

async function main(): Promise<void> {
	if (process.argv.includes('--queue')) return runDevQueue({ loadExamples: () => loadExamples(path.resolve(__dirname, '..', 'examples'), say), credential: CREDENTIAL, say });
	const port = Number(process.env.N8N_PORT || 5678);
	const dataDir = path.resolve(process.env.DEV_DATA_DIR || path.join(rt.cacheRoot(), 'dev'));
	say(`Money quick start: installing or reusing n8n ${rt.n8nVersion()} and a Node that runs it (cached; the first run takes 10 to 20 min on 2 cores, depending on the network, npm's cache, the disk and the CPU)...`);

	let quickStart: QuickStart | null = null;
	let stopping = false;
	const stopAll = async (why?: string): Promise<void> => {
		if (stopping) return;
		stopping = true;
		if (why) say(`\n${why}: stopping n8n and the sandbox...`);
		if (quickStart) await quickStart.stop();
	};
	for (const sig of ['SIGINT', 'SIGTERM'] as const) {
		process.on(sig, () => stopAll(sig).finally(() => process.exit(0)));
	}

	quickStart = await startQuickStart({
		dataDir,
		fresh: process.env.DEV_FRESH === '1',
		port,
		sandboxPort: Number(process.env.SANDBOX_PORT || 4010),
		sandboxAuthPort: Number(process.env.SANDBOX_AUTH_PORT || 4011),
		listenAddress: process.env.DEV_LISTEN_ADDRESS,
		examplesDir: process.env.DEV_EXAMPLES_DIR,
		packDir: process.env.MONEY_PACK_DIR,
		owner: {
			email: process.env.DEV_OWNER_EMAIL || 'owner@example.com',
			password: process.env.DEV_OWNER_PASSWORD || 'Password1',
		},
		say,
	});
	const { n8n, sandbox, owner, examples, credential, webhookNote, seededReconciliation } = quickStart as QuickStart;
	const { info } = sandbox;
	const names = (status: string) => examples.filter((e) => e.status === status).map((e) => `"${e.workflow.name || e.file}"`);
	const [imported, kept] = [names('imported'), names('kept')];

	say('');
	say('================================================================');
	say(` n8n editor:  http://localhost:${port}`);
	say(` login:       ${owner.email} / ${owner.password}`);
	say(` credential:  "${credential.name}" -> sandbox ${info.baseUrl} (token host ${info.authUrl})`);
	if (!examples.length) say(' examples:    none found in examples/');
	else if (!kept.length) say(` examples:    ${imported.join('; ')}`);
	else {
		say(` examples:    ${imported.length ? `imported ${imported.join('; ')}; ` : ''}kept as you left them: ${kept.join('; ')}`);
		say('              (an example is imported only when this n8n lacks it; DEV_FRESH=1 starts over)');
	}
	say(` webhooks:    ${webhookNote}`);
	say(` sandbox:     payers ${[...new Set(info.payers.map((p) => p.identifier))].slice(0, 4).join(', ')}; PIN ${info.pin}`);
	say(`              complete a charge: curl -X POST ${info.controlUrl}/transactions/<reference>/complete`);
	say(`              yesterday's charges for the daily-reconciliation example: ${seededReconciliation ? 'seeded' : 'already seeded'}`);
	say(` data:        ${dataDir} (n8n.log, sandbox.log; DEV_FRESH=1 starts over)`);
	say(' Ctrl-C stops everything.');
	say('================================================================');

	// Stay up; report if a child dies on its own.
	n8n.process.once('exit', (code, signal) => {
		if (!stopping) {
			say(`n8n exited (code ${code}, signal ${signal}); see ${n8n.logFile}`);
			stopAll().finally(() => process.exit(1));
		}
	});
	sandbox.process.once('exit', (code, signal) => {
		if (!stopping) {
			say(`the sandbox exited (code ${code}, signal ${signal}); see ${path.join(dataDir, 'sandbox.log')}`);
			stopAll().finally(() => process.exit(1));
		}
	});
}

main().catch((e) => {
	process.stderr.write(`npm run dev failed: ${e.message}\n`);
	process.exit(1);
});

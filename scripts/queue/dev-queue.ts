/**
 * `npm run dev -- --queue`: the quick start on n8n's queue mode, the topology of
 * `npm run test:queue` (Postgres, Redis, one main, two workers, one webhook process, the
 * sandbox) for a user to try. Everything lives in a temp folder and is removed on Ctrl-C.
 * Editor on N8N_PORT (default 5678), production webhooks on the webhook process
 * (DEV_WEBHOOK_PORT, default 5690).
 */

import * as fs from 'node:fs';
import * as path from 'node:path';

import * as rt from '../n8n';
import { quickStartCredential, type Example } from '../quick-start';
import { seedDailyReconciliation } from '../../test/fixtures/daily-reconciliation';
import * as services from './services';
import * as topologyOf from './topology';

export async function runDevQueue({
	loadExamples,
	credential,
	say,
}: {
	loadExamples: () => Example[];
	credential: { id: string; name: string };
	say: (msg: string) => void;
}): Promise<void> {
	const owner = {
		email: process.env.DEV_OWNER_EMAIL || 'owner@example.com',
		password: process.env.DEV_OWNER_PASSWORD || 'Password1',
		firstName: 'Dev',
		lastName: 'Owner',
	};
	say('Money quick start in queue mode: installing or reusing n8n (and its Node), postgresql and redis-server...');
	rt.ensureN8n();
	services.ensurePackages();
	const baseDir = services.makeBaseDir('money-dev-queue-');
	let topology: topologyOf.RunningTopology | null = null;
	let stopping = false;
	const stopAll = async (why?: string): Promise<void> => {
		if (stopping) return;
		stopping = true;
		if (why) say(`\n${why}: stopping every process...`);
		if (topology) await topology.stop();
		fs.rmSync(baseDir, { recursive: true, force: true });
	};
	for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => stopAll(sig).finally(() => process.exit(0)));

	const mainPort = Number(process.env.N8N_PORT || 5678);
	const webhookPort = Number(process.env.DEV_WEBHOOK_PORT || 5690);
	try {
		topology = await topologyOf.start({
			baseDir,
			packDir: process.env.MONEY_PACK_DIR ? path.resolve(process.env.MONEY_PACK_DIR) : undefined,
			owner,
			encryptionKey: 'n8n-nodes-money-dev-only-encryption-key',
			ports: { main: mainPort, webhook: webhookPort },
			log: (m) => say(`  ${m}`),
		});
	} catch (e) {
		await stopAll();
		throw e;
	}
	const running = topology as topologyOf.RunningTopology;
	const { main, sandbox } = running;
	// The quick start's velocity (20 payouts per 10 s), on the sandbox and in the credential.
	await rt.importJson('import:credentials', [await quickStartCredential(sandbox)], { env: main.env });
	await seedDailyReconciliation(sandbox.control); // yesterday's charges of the daily-reconciliation example
	const examples = loadExamples();
	if (examples.length) await rt.importJson('import:workflow', examples.map((e) => e.workflow), { env: main.env });

	say('');
	say('================================================================');
	say(` n8n editor:  ${main.url}   (queue mode: main + ${running.workers.length} workers + webhook process)`);
	say(` login:       ${owner.email} / ${owner.password}`);
	say(` webhooks:    production URLs on the webhook process ${running.webhookUrl}/webhook/...`);
	say(` credential:  "${credential.name}" -> sandbox ${sandbox.info.baseUrl}`);
	say(` database:    postgres 127.0.0.1:${running.postgres.port} (db n8n, user n8n), redis 127.0.0.1:${running.redis.port}`);
	say(` logs:        ${baseDir} (removed on exit)`);
	say(' Ctrl-C stops everything.');
	say('================================================================');
	for (const h of [main, running.webhook, ...running.workers]) {
		h.process.once('exit', (code, signal) => {
			if (!stopping) {
				say(`${path.basename(path.dirname(h.logFile))} exited (code ${code}, signal ${signal}); see ${h.logFile}`);
				stopAll().finally(() => process.exit(1));
			}
		});
	}
}

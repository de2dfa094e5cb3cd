#!/usr/bin/env node
'use strict';
/**
 * Quick start (`npm run dev`, after `npm run build`): the Money API sandbox plus a real n8n 2.41
 * with this pack loaded as a community package, a `Money API` credential pointing at the
 * sandbox and the example workflows of examples/ imported. Prints the editor URL and login.
 * Ctrl-C stops everything it started. `npm run dev -- --queue`: the same on n8n's queue mode
 * (Postgres, Redis, main, two workers, webhook process; scripts/queue/dev-queue.js).
 *
 * Environment (all optional):
 *   N8N_PORT             editor port (default 5678)
 *   DEV_OWNER_EMAIL      owner login (default owner@example.com)
 *   DEV_OWNER_PASSWORD   owner password (default Password1)
 *   SANDBOX_PORT         sandbox API port (default 4010); SANDBOX_AUTH_PORT token host (default 4011)
 *   DEV_DATA_DIR         n8n user folder and sandbox state, kept between runs
 *                        (default ~/.cache/n8n-nodes-money/dev)
 *   DEV_FRESH=1          start from an empty DEV_DATA_DIR
 *   DEV_LISTEN_ADDRESS   n8n listen address (default 127.0.0.1; 0.0.0.0 to reach it from outside a container)
 *   DEV_EXAMPLES_DIR     workflows to import (default examples/)
 *   MONEY_PACK_DIR       folder with package.json + dist to load instead of this repo's build
 *   MONEY_CACHE_DIR      where Node 24 and n8n are cached (see scripts/n8n-runtime.js)
 */

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

const rt = require('./n8n-runtime');
const { startSandbox, moneyCredentialData } = require('./sandbox-process');

const REPO = path.resolve(__dirname, '..');
const CREDENTIAL = { id: 'devMoneySandbox00001', name: 'Money API (sandbox)' };

function say(msg = '') {
	process.stdout.write(`${msg}\n`);
}

/** Stable workflow id (at most 21 characters) for an example file, so re-imports overwrite. */
function exampleId(file) {
	return `ex${crypto.createHash('sha256').update(path.basename(file)).digest('hex').slice(0, 16)}`;
}

/** Example workflows with their Money credentials pointed at the sandbox credential. */
function loadExamples() {
	const dir = path.resolve(process.env.DEV_EXAMPLES_DIR || path.join(REPO, 'examples'));
	if (!fs.existsSync(dir)) return [];
	const out = [];
	for (const name of fs.readdirSync(dir).sort()) {
		if (!name.endsWith('.json')) continue;
		const file = path.join(dir, name);
		let wf;
		try {
			wf = JSON.parse(fs.readFileSync(file, 'utf8'));
		} catch (e) {
			say(`  skipping examples/${name}: not JSON (${e.message})`);
			continue;
		}
		if (!Array.isArray(wf.nodes)) {
			say(`  skipping examples/${name}: no nodes`);
			continue;
		}
		wf.id = wf.id && String(wf.id).length <= 21 ? wf.id : exampleId(file);
		wf.active = false;
		wf.settings = wf.settings || { executionOrder: 'v1' };
		for (const n of wf.nodes) {
			if (n.credentials && n.credentials.moneyApi) n.credentials.moneyApi = { ...CREDENTIAL };
		}
		out.push({ file: path.relative(REPO, file), workflow: wf });
	}
	return out;
}

async function main() {
	if (process.argv.includes('--queue')) return require('./queue/dev-queue').run({ loadExamples, credential: CREDENTIAL, say });
	const port = Number(process.env.N8N_PORT || 5678);
	const owner = {
		email: process.env.DEV_OWNER_EMAIL || 'owner@example.com',
		password: process.env.DEV_OWNER_PASSWORD || 'Password1',
		firstName: 'Dev',
		lastName: 'Owner',
	};
	const dataDir = path.resolve(process.env.DEV_DATA_DIR || path.join(rt.cacheRoot(), 'dev'));
	const packDir = process.env.MONEY_PACK_DIR ? path.resolve(process.env.MONEY_PACK_DIR) : REPO;
	if (!fs.existsSync(path.join(packDir, 'dist'))) throw new Error(`${packDir}/dist is missing: run \`npm run build\` first`);

	say('Money quick start: installing or reusing Node 24 and n8n (cached; the first run takes ~5 min)...');
	rt.ensureN8n();
	if (process.env.DEV_FRESH === '1') fs.rmSync(dataDir, { recursive: true, force: true });
	const userFolder = path.join(dataDir, 'n8n');
	fs.mkdirSync(userFolder, { recursive: true });
	rt.installPack(userFolder, packDir);

	const running = { sandbox: null, n8n: null };
	let stopping = false;
	const stopAll = async (why) => {
		if (stopping) return;
		stopping = true;
		if (why) say(`\n${why}: stopping n8n and the sandbox...`);
		await Promise.allSettled([running.n8n && running.n8n.stop(), running.sandbox && running.sandbox.stop()]);
	};
	for (const sig of ['SIGINT', 'SIGTERM']) {
		process.on(sig, () => stopAll(sig).finally(() => process.exit(0)));
	}

	say('Starting the sandbox and n8n...');
	const [sandbox, n8n] = await Promise.all([
		startSandbox({
			repoDir: REPO,
			port: Number(process.env.SANDBOX_PORT || 4010),
			authPort: Number(process.env.SANDBOX_AUTH_PORT || 4011),
			statePath: path.join(dataDir, 'sandbox-state.json'),
			logFile: path.join(dataDir, 'sandbox.log'),
		}).then((s) => (running.sandbox = s)),
		rt
			.startN8n({
				userFolder,
				port,
				owner,
				encryptionKey: 'n8n-nodes-money-dev-only-encryption-key',
				logFile: path.join(dataDir, 'n8n.log'),
				env: {
					N8N_LISTEN_ADDRESS: process.env.DEV_LISTEN_ADDRESS || '127.0.0.1',
					N8N_EDITOR_BASE_URL: `http://localhost:${port}/`,
					WEBHOOK_URL: `http://localhost:${port}/`,
				},
			})
			.then((h) => (running.n8n = h)),
	]).catch(async (e) => {
		await stopAll();
		throw e;
	});

	const { info } = sandbox;
	await rt.importJson(
		'import:credentials',
		[{ id: CREDENTIAL.id, name: CREDENTIAL.name, type: 'moneyApi', data: moneyCredentialData(info) }],
		{ env: n8n.env },
	);
	const examples = loadExamples();
	if (examples.length) {
		await rt.importJson(
			'import:workflow',
			examples.map((e) => e.workflow),
			{ env: n8n.env },
		);
	}

	// The example with a Money Trigger goes live, and the sandbox sends its events there.
	let webhookNote = 'no example has a Money Trigger; point the sandbox at one with its control API (PUT /_control/webhook)';
	const withTrigger = examples.find((e) => e.workflow.nodes.some((n) => n.type === 'n8n-nodes-money.moneyTrigger'));
	if (withTrigger) {
		const trig = withTrigger.workflow.nodes.find((n) => n.type === 'n8n-nodes-money.moneyTrigger');
		const hookPath = (trig.parameters && trig.parameters.path) || 'money'; // the trigger's webhook path
		if (trig.webhookId) {
			const url = `http://127.0.0.1:${port}/webhook/${trig.webhookId}/${hookPath}`;
			try {
				const session = await rt.login(n8n.url, owner.email, owner.password);
				const api = rt.publicApi(n8n.url, await rt.createApiKey(session, { label: `dev ${new Date().toISOString()}` }));
				await api.activateWorkflow(withTrigger.workflow.id);
				await sandbox.control.setWebhook(url);
				webhookNote = `"${withTrigger.workflow.name}" (${withTrigger.file}) is active; sandbox events go to ${url}`;
			} catch (e) {
				webhookNote = `could not activate "${withTrigger.workflow.name}": ${e.message.split('\n')[0]}`;
			}
		} else {
			webhookNote = `${withTrigger.file}: its Money Trigger has no webhookId, so its URL is not known in advance`;
		}
	}

	say('');
	say('================================================================');
	say(` n8n editor:  http://localhost:${port}`);
	say(` login:       ${owner.email} / ${owner.password}`);
	say(` credential:  "${CREDENTIAL.name}" -> sandbox ${info.baseUrl} (token host ${info.authUrl})`);
	say(` examples:    ${examples.length ? examples.map((e) => `${e.workflow.name || e.file}`).join('; ') : 'none found in examples/'}`);
	say(` webhooks:    ${webhookNote}`);
	say(` sandbox:     payers ${[...new Set(info.payers.map((p) => p.identifier))].slice(0, 4).join(', ')}; PIN ${info.pin}`);
	say(`              complete a charge: curl -X POST ${info.controlUrl}/transactions/<reference>/complete`);
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

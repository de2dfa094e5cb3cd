/**
 * The quick-start topology, as a function: the Money API sandbox plus a real n8n with this pack
 * loaded as a community package, a `Money API` credential pointing at the sandbox, the example
 * workflows of examples/ imported (each only when that n8n lacks it: a restart on the same data
 * folder keeps what the user changed), yesterday's charges of the daily-reconciliation example
 * seeded in the sandbox (once a day), and the example with a Money Trigger activated with the
 * sandbox sending its events there. Used by `npm run dev` (scripts/dev.ts) and `npm run test:ui`
 * (scripts/ui.ts).
 */

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import * as rt from './n8n';
import { MONEY_API_CREDENTIAL_TYPE } from '../nodes/api/values';
import { moneyCredentialFor } from '../sandbox/control/credential';
import { startSandbox, type SandboxHandle } from './sandbox-process';
import { seedDailyReconciliationOnce } from '../test/fixtures/daily-reconciliation';

/**
 * The spec's payout velocity (20 per 5 minutes) would make the 60-row example take 10 minutes;
 * the quick start's sandbox allows 20 per 10 s, and its credential says so, so the example's
 * pacing shows in half a minute. `npm run dev -- --queue` does the same (scripts/queue/dev-queue.ts).
 */
export const QUICK_START_VELOCITY = { velocityLimit: 20, velocityWindowSeconds: 10 };

/** The sandbox's client at the quick start's velocity, and the credential to import for it. */
export async function quickStartCredential(sandbox: SandboxHandle): Promise<{ id: string; name: string; type: string; data: ReturnType<typeof moneyCredentialFor> }> {
	const client = await sandbox.control.getClient(sandbox.info.clientId);
	await sandbox.control.updateClient(sandbox.info.clientId, { limits: { ...client.limits, ...QUICK_START_VELOCITY } });
	return { id: CREDENTIAL.id, name: CREDENTIAL.name, type: MONEY_API_CREDENTIAL_TYPE, data: moneyCredentialFor(sandbox.info, QUICK_START_VELOCITY) };
}

const REPO = path.resolve(__dirname, '..');
export const CREDENTIAL = { id: 'devMoneySandbox00001', name: 'Money API (sandbox)' };
const MONEY_TRIGGER_TYPE = 'n8n-nodes-money.moneyTrigger';

/**
 * Stable workflow id for an example file, so a restart finds it in n8n: 16 characters, because n8n
 * 1.x saves a workflow's static data (the Money Trigger's memory) only for ids of at most 16.
 */
function exampleId(file: string): string {
	return `ex${crypto.createHash('sha256').update(path.basename(file)).digest('hex').slice(0, 14)}`;
}

export interface Example {
	/** Relative to the repository. */
	file: string;
	workflow: rt.Json;
	/** What this start did: imported it, or kept the one n8n already held (the user's edits with it). */
	status?: 'imported' | 'kept';
}

/** Example workflows with their Money credentials pointed at the sandbox credential. */
export function loadExamples(dir: string, say: (msg: string) => void): Example[] {
	if (!fs.existsSync(dir)) return [];
	const out: Example[] = [];
	for (const name of fs.readdirSync(dir).sort()) {
		if (!name.endsWith('.json')) continue;
		const file = path.join(dir, name);
		let wf;
		try {
			wf = JSON.parse(fs.readFileSync(file, 'utf8'));
		} catch (e) {
			say(`  skipping examples/${name}: not JSON (${(e as Error).message})`);
			continue;
		}
		if (!Array.isArray(wf.nodes)) {
			say(`  skipping examples/${name}: no nodes`);
			continue;
		}
		wf.id = wf.id && String(wf.id).length <= 16 ? wf.id : exampleId(file);
		wf.active = false;
		wf.settings = wf.settings || { executionOrder: 'v1' };
		for (const n of wf.nodes) {
			if (n.credentials && n.credentials.moneyApi) n.credentials.moneyApi = { ...CREDENTIAL };
		}
		out.push({ file: path.relative(REPO, file), workflow: wf });
	}
	return out;
}

/**
 * Which examples the n8n already holds (by their fixed ids, through the owner's REST session): an
 * example is imported only when missing, so a restart keeps what the user changed, and one the
 * user deleted comes back.
 */
async function importMissingExamples(examples: Example[], session: rt.Session, env: NodeJS.ProcessEnv): Promise<void> {
	for (const example of examples) {
		const res = await session.request('GET', `/rest/workflows/${encodeURIComponent(example.workflow.id)}`);
		if (res.status !== 200 && res.status !== 404) throw new Error(`looking up example ${example.file} in n8n: HTTP ${res.status} ${res.text.slice(0, 300)}`);
		example.status = res.status === 200 ? 'kept' : 'imported';
	}
	const missing = examples.filter((e) => e.status === 'imported');
	if (missing.length) await rt.importJson('import:workflow', missing.map((e) => e.workflow), { env });
}

/**
 * Point the sandbox's webhooks at the example with a Money Trigger (as n8n holds it: the user may
 * have changed its path), and activate it when it was just imported (a kept one stays as the user
 * left it); says what happened.
 */
async function wireWebhookExample({ examples, n8n, sandbox, session, port }: { examples: Example[]; n8n: rt.N8nHandle; sandbox: SandboxHandle; session: rt.Session; port: number }): Promise<string> {
	const withTrigger = examples.find((e) => e.workflow.nodes.some((n: rt.Json) => n.type === MONEY_TRIGGER_TYPE));
	if (!withTrigger) {
		return 'no example has a Money Trigger; point the sandbox at one with its control API (PUT /_control/webhook)';
	}
	const name = `"${withTrigger.workflow.name}" (${withTrigger.file})`;
	try {
		const stored = (await session.request('GET', `/rest/workflows/${encodeURIComponent(withTrigger.workflow.id)}`)).json.data;
		const trig = stored.nodes.find((n: rt.Json) => n.type === MONEY_TRIGGER_TYPE);
		if (!trig) return `${name} no longer has a Money Trigger; point the sandbox at yours with its control API (PUT /_control/webhook)`;
		if (!trig.webhookId) return `${name}: its Money Trigger has no webhookId, so its URL is not known in advance`;
		const url = `http://127.0.0.1:${port}/webhook/${trig.webhookId}/${(trig.parameters && trig.parameters.path) || 'money'}`;
		await sandbox.control.setWebhook(url);
		if (withTrigger.status === 'imported') {
			const api = rt.publicApi(n8n.url, await rt.createApiKey(session, { label: `dev ${new Date().toISOString()}` }));
			await api.activateWorkflow(withTrigger.workflow.id);
		} else if (!stored.active) {
			return `${name} is inactive (activate it to receive them); sandbox events go to ${url}`;
		}
		return `${name} is active; sandbox events go to ${url}`;
	} catch (e) {
		return `could not wire ${name}: ${(e as Error).message.split('\n')[0]}`;
	}
}

export interface QuickStartOptions {
	/** n8n user folder and sandbox state. */
	dataDir: string;
	owner: rt.Owner;
	/** n8n; default a free one. */
	port?: number;
	/** Default free ones. */
	sandboxPort?: number;
	sandboxAuthPort?: number;
	listenAddress?: string;
	examplesDir?: string;
	packDir?: string;
	/** Empty dataDir first. */
	fresh?: boolean;
	/** Progress lines. */
	say?: (msg: string) => void;
}

export interface QuickStart {
	n8n: rt.N8nHandle;
	sandbox: SandboxHandle;
	owner: rt.Owner;
	port: number;
	dataDir: string;
	credential: typeof CREDENTIAL;
	examples: Example[];
	webhookNote: string;
	/** Whether this start seeded the reconciliation example's charges of yesterday (false: the sandbox held them). */
	seededReconciliation: boolean;
	stop(): Promise<void>;
}

/** Start the quick start. */
export async function startQuickStart(opts: QuickStartOptions): Promise<QuickStart> {
	const say = opts.say || (() => {});
	const dataDir = path.resolve(opts.dataDir);
	const packDir = rt.builtPackDir(opts.packDir, REPO);
	const owner = { firstName: 'Dev', lastName: 'Owner', ...opts.owner };

	rt.ensureN8n();
	if (opts.fresh) fs.rmSync(dataDir, { recursive: true, force: true });
	const userFolder = path.join(dataDir, 'n8n');
	fs.mkdirSync(userFolder, { recursive: true });
	rt.installPack(userFolder, packDir);
	const port = opts.port || (await rt.freePort());

	const running: { sandbox: SandboxHandle | null; n8n: rt.N8nHandle | null } = { sandbox: null, n8n: null };
	const stop = async (): Promise<void> => {
		await Promise.allSettled([running.n8n && running.n8n.stop(), running.sandbox && running.sandbox.stop()]);
	};
	say('Starting the sandbox and n8n...');
	try {
		await Promise.all([
			startSandbox({
				repoDir: REPO,
				port: opts.sandboxPort || 0,
				authPort: opts.sandboxAuthPort || 0,
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
						N8N_LISTEN_ADDRESS: opts.listenAddress || '127.0.0.1',
						N8N_EDITOR_BASE_URL: `http://localhost:${port}/`,
						WEBHOOK_URL: `http://localhost:${port}/`,
					},
				})
				.then((h) => (running.n8n = h)),
		]);
		const n8n = running.n8n as rt.N8nHandle;
		const sandbox = running.sandbox as SandboxHandle;
		await rt.importJson('import:credentials', [await quickStartCredential(sandbox)], { env: n8n.env });
		const session = await rt.login(n8n.url, owner.email, owner.password);
		const examples = loadExamples(path.resolve(opts.examplesDir || path.join(REPO, 'examples')), say);
		await importMissingExamples(examples, session, n8n.env);
		const seededReconciliation = await seedDailyReconciliationOnce(sandbox.control);
		const webhookNote = await wireWebhookExample({ examples, n8n, sandbox, session, port });
		return { n8n, sandbox, owner, port, dataDir, credential: CREDENTIAL, examples, webhookNote, seededReconciliation, stop };
	} catch (e) {
		await stop();
		throw e;
	}
}

/**
 * The quick-start topology, as a function: the Money API sandbox plus a real n8n with this pack
 * loaded as a community package, a `Money API` credential pointing at the sandbox, the example
 * workflows of examples/ imported, and the example with a Money Trigger activated with the sandbox
 * sending its events there. Used by `npm run dev` (scripts/dev.ts) and `npm run test:ui`
 * (scripts/ui.ts).
 */

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import * as rt from './n8n';
import { MONEY_API_CREDENTIAL_TYPE } from '../nodes/api/routes';
import { moneyCredentialFor } from '../sandbox/control/credential';
import { startSandbox, type SandboxHandle } from './sandbox-process';

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

/** Stable workflow id (at most 21 characters) for an example file, so re-imports overwrite. */
function exampleId(file: string): string {
	return `ex${crypto.createHash('sha256').update(path.basename(file)).digest('hex').slice(0, 16)}`;
}

export interface Example {
	/** Relative to the repository. */
	file: string;
	workflow: rt.Json;
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

/** Activate the example with a Money Trigger and point the sandbox's webhooks at it; says what happened. */
async function wireWebhookExample({ examples, n8n, sandbox, owner, port }: { examples: Example[]; n8n: rt.N8nHandle; sandbox: SandboxHandle; owner: rt.Owner; port: number }): Promise<string> {
	const withTrigger = examples.find((e) => e.workflow.nodes.some((n: rt.Json) => n.type === MONEY_TRIGGER_TYPE));
	if (!withTrigger) {
		return 'no example has a Money Trigger; point the sandbox at one with its control API (PUT /_control/webhook)';
	}
	const trig = withTrigger.workflow.nodes.find((n: rt.Json) => n.type === MONEY_TRIGGER_TYPE);
	const hookPath = (trig.parameters && trig.parameters.path) || 'money';
	if (!trig.webhookId) return `${withTrigger.file}: its Money Trigger has no webhookId, so its URL is not known in advance`;
	const url = `http://127.0.0.1:${port}/webhook/${trig.webhookId}/${hookPath}`;
	try {
		const session = await rt.login(n8n.url, owner.email, owner.password);
		const api = rt.publicApi(n8n.url, await rt.createApiKey(session, { label: `dev ${new Date().toISOString()}` }));
		await api.activateWorkflow(withTrigger.workflow.id);
		await sandbox.control.setWebhook(url);
		return `"${withTrigger.workflow.name}" (${withTrigger.file}) is active; sandbox events go to ${url}`;
	} catch (e) {
		return `could not activate "${withTrigger.workflow.name}": ${(e as Error).message.split('\n')[0]}`;
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
		const examples = loadExamples(path.resolve(opts.examplesDir || path.join(REPO, 'examples')), say);
		if (examples.length) {
			await rt.importJson(
				'import:workflow',
				examples.map((e) => e.workflow),
				{ env: n8n.env },
			);
		}
		const webhookNote = await wireWebhookExample({ examples, n8n, sandbox, owner, port });
		return { n8n, sandbox, owner, port, dataDir, credential: CREDENTIAL, examples, webhookNote, stop };
	} catch (e) {
		await stop();
		throw e;
	}
}

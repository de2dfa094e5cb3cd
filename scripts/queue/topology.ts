/**
 * n8n 2.41 in queue mode on loopback, with the pack installed as a community package:
 * Postgres + Redis (services.ts), one main (`n8n start`, the leader: it runs the pollers and the
 * queue recovery), `workers` workers (`n8n worker --concurrency=N`), one webhook process
 * (`n8n webhook`), and the Money API sandbox. Every process has its own user folder, port,
 * task-broker port and (workers) health-check port; all share one database, one Redis and one
 * N8N_ENCRYPTION_KEY, which is what lets a worker decrypt the credential the main saved.
 *
 * start(opts) resolves a topology: { main, workers[], webhook, sandbox, postgres, redis, env,
 * webhookUrl, startWorker(), startWebhook(), restartMain(), stop() }. stop() stops everything it
 * started, also when start failed half-way (the caller gets the error; what had started is stopped
 * first).
 */

import * as fs from 'node:fs';
import * as path from 'node:path';

import * as rt from '../n8n';
import { startSandbox, type SandboxHandle } from '../sandbox-process';
import { REPO } from './helpers';
import * as services from './services';

export interface Topology {
	baseDir: string;
	main?: rt.N8nHandle;
	workers: rt.N8nHandle[];
	webhook?: rt.N8nHandle;
	sandbox?: SandboxHandle;
	postgres?: services.Postgres;
	redis?: services.Redis;
	env?: Record<string, string>;
	webhookUrl?: string;
	timings: { servicesSeconds?: number; mainSeconds?: number; workersAndWebhookSeconds?: number };
	startWorker?: () => Promise<rt.N8nHandle>;
	/**
	 * Starts another `n8n webhook` process (a new port, or `port` to take over one that stopped),
	 * in the user folder `name`; it is stopped with the topology.
	 */
	startWebhook?: (name: string, port?: number) => Promise<rt.N8nHandle>;
	/** Stops the main and starts it again on its port and user folder: the leader activates every published workflow anew. */
	restartMain?: () => Promise<rt.N8nHandle>;
	/** Extra webhook processes (startWebhook). */
	webhooks: rt.N8nHandle[];
	stop(): Promise<void>;
}

/** A topology that started: every part is there. */
export type RunningTopology = Required<Topology>;

/** Settings shared by every n8n process of the topology. */
export function queueEnv({ postgres, redis, webhookPort, tuning = {} }: { postgres: services.Postgres; redis: services.Redis; webhookPort: number; tuning?: Record<string, string> }): Record<string, string> {
	return {
		EXECUTIONS_MODE: 'queue',
		...services.postgresEnv(postgres),
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		// Production webhook URLs shown in the editor point at the webhook process.
		WEBHOOK_URL: `http://127.0.0.1:${webhookPort}/`,
		N8N_LOG_LEVEL: 'info',
		...tuning,
	};
}

export interface TopologyOptions {
	/** Temp folder. */
	baseDir: string;
	/** package.json + dist; default this repository. */
	packDir?: string;
	/** Default 2. */
	workers?: number;
	/** Per worker, default 5. */
	concurrency?: number;
	owner?: rt.Owner;
	encryptionKey?: string;
	/** Extra env for every n8n process, e.g. shorter Bull lock and queue-recovery intervals. */
	tuning?: Record<string, string>;
	mainEnv?: Record<string, string>;
	sandboxArgs?: string[];
	/** Default free ones. */
	ports?: { main?: number; webhook?: number };
	/** Progress lines. */
	log?: (msg: string) => void;
}

export async function start(opts: TopologyOptions): Promise<RunningTopology> {
	const log = opts.log || (() => {});
	const baseDir = opts.baseDir;
	const started: Array<{ stop(): Promise<unknown> }> = [];
	const topology: Topology = {
		baseDir,
		workers: [],
		webhooks: [],
		timings: {},
		stop: async () => {
			// Webhook processes and workers first (they hold jobs), then the main, then the services.
			const n8ns = [topology.webhook, ...topology.webhooks, ...topology.workers, topology.main].filter((h): h is rt.N8nHandle => Boolean(h));
			await Promise.allSettled(n8ns.map((h) => h.stop()));
			await Promise.allSettled(started.filter((h) => !n8ns.includes(h as rt.N8nHandle)).map((h) => h.stop()));
		},
	};
	const track = <T extends { stop(): Promise<unknown> }>(handle: T): T => {
		started.push(handle);
		return handle;
	};
	try {
		let t = Date.now();
		const [postgres, redis, sandbox] = await Promise.all([
			services.startPostgres(baseDir).then(track),
			services.startRedis(baseDir).then(track),
			startSandbox({ repoDir: REPO, logFile: path.join(baseDir, 'sandbox.log'), args: opts.sandboxArgs || [] }).then(track),
		]);
		Object.assign(topology, { postgres, redis, sandbox });
		topology.timings.servicesSeconds = (Date.now() - t) / 1000;
		log(`postgres :${postgres.port}, redis :${redis.port}, sandbox ${sandbox.info.baseUrl} (${topology.timings.servicesSeconds.toFixed(1)} s)`);

		const mainPort = (opts.ports && opts.ports.main) || (await rt.freePort());
		const webhookPort = (opts.ports && opts.ports.webhook) || (await rt.freePort());
		const env = queueEnv({ postgres, redis, webhookPort, tuning: opts.tuning });
		topology.env = env;
		topology.webhookUrl = `http://127.0.0.1:${webhookPort}`;
		const common = { encryptionKey: opts.encryptionKey, quiet: true };
		const installed = new Set<string>();
		const folder = (name: string) => {
			const dir = path.join(baseDir, name);
			fs.mkdirSync(dir, { recursive: true });
			// A process started again in its folder (a restart) loads the build it loaded before, not one made since.
			if (!installed.has(name)) rt.installPack(dir, opts.packDir || REPO);
			installed.add(name);
			return dir;
		};

		// The main first: it creates the schema (migrations) the others then find.
		t = Date.now();
		const mainFolder = folder('main');
		const startMain = async () => track(await rt.startN8n({ ...common, userFolder: mainFolder, port: mainPort, owner: opts.owner, env: { ...env, ...(opts.mainEnv || {}) } }));
		const main = await startMain();
		topology.main = main;
		topology.restartMain = async (): Promise<rt.N8nHandle> => {
			await (topology.main as rt.N8nHandle).stop();
			topology.main = await startMain();
			return topology.main;
		};
		topology.timings.mainSeconds = (Date.now() - t) / 1000;
		log(`main ${main.url} ready in ${topology.timings.mainSeconds.toFixed(1)} s`);

		let workerCount = 0;
		const startWorker = async (): Promise<rt.N8nHandle> => {
			const name = `worker${++workerCount}`;
			const healthPort = await rt.freePort();
			const handle = track(
				await rt.startN8n({
					...common,
					userFolder: folder(name),
					command: 'worker',
					args: [`--concurrency=${opts.concurrency || 5}`],
					readyUrl: `http://127.0.0.1:${healthPort}/healthz/readiness`,
					env: { ...env, QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(healthPort) },
				}),
			);
			handle.name = name;
			handle.healthPort = healthPort;
			topology.workers.push(handle);
			return handle;
		};
		topology.startWorker = startWorker;
		topology.startWebhook = async (name: string, port?: number): Promise<rt.N8nHandle> => {
			const handle = track(await rt.startN8n({ ...common, userFolder: folder(name), command: 'webhook', port: port || (await rt.freePort()), env }));
			handle.name = name;
			topology.webhooks.push(handle);
			return handle;
		};

		t = Date.now();
		const [webhook] = await Promise.all([
			rt.startN8n({ ...common, userFolder: folder('webhook'), command: 'webhook', port: webhookPort, env }).then(track),
			...Array.from({ length: opts.workers ?? 2 }, () => startWorker()),
		]);
		topology.webhook = webhook;
		topology.timings.workersAndWebhookSeconds = (Date.now() - t) / 1000;
		log(`webhook process ${webhook.url} and ${topology.workers.length} workers ready in ${topology.timings.workersAndWebhookSeconds.toFixed(1)} s`);
		return topology as RunningTopology;
	} catch (err) {
		await topology.stop();
		throw err;
	}
}

/** Resident memory (MB) of each n8n process with its task runner, and of the services. */
export function memory(topology: Topology): Record<string, number> {
	const mb = (pid: number | undefined) => Math.round(rt.processTreeRssKb(pid as number).totalKb / 1024);
	const out: Record<string, number> = {};
	if (topology.main) out.main = mb(topology.main.process.pid);
	for (const w of topology.workers) if (w.process.exitCode === null && w.process.signalCode === null) out[w.name as string] = mb(w.process.pid);
	if (topology.webhook) out.webhook = mb(topology.webhook.process.pid);
	if (topology.sandbox) out.sandbox = mb(topology.sandbox.process.pid);
	if (topology.postgres) out.postgres = mb(topology.postgres.process.pid);
	if (topology.redis) out.redis = mb(topology.redis.process.pid);
	return out;
}

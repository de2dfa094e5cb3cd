/**
 * A real n8n (regular mode) with the built pack and the minimal trigger (minimal-trigger.ts), on SQLite (n8n's default) or on Postgres (the
 * queue tier's Postgres service), beside the sandbox, for benchmarks that need the server.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';

import * as rt from '../../scripts/n8n';
import { startSandbox, type SandboxHandle } from '../../scripts/sandbox-process';
import * as services from '../../scripts/queue/services';
import { moneyCredentialFor } from '../../sandbox/control/credential';
import { CREDENTIAL, CREDENTIAL_TYPE, type Workflow } from '../../test/e2e/workflows';
import { writeMinimalTrigger } from './minimal-trigger';

export type Database = 'sqlite' | 'postgres';

const OWNER = { email: 'bench-owner@example.com', password: 'Bench-owner-pass-1', firstName: 'Bench', lastName: 'Owner' };
const REPO = path.resolve(__dirname, '..', '..');

export interface ServerStack {
	db: Database;
	n8n: rt.N8nHandle;
	api: rt.PublicApi;
	sandbox: SandboxHandle;
	baseDir: string;
	importWorkflows(workflows: Workflow[]): Promise<void>;
	stop(): Promise<void>;
}

export async function startStack(db: Database, { env = {} }: { env?: Record<string, string> } = {}): Promise<ServerStack> {
	rt.ensureN8n();
	if (db === 'postgres') services.ensurePackages();
	const baseDir = services.makeBaseDir('money-bench-server-');
	const userFolder = path.join(baseDir, 'n8n');
	fs.mkdirSync(userFolder, { recursive: true });
	rt.installPack(userFolder, REPO);
	rt.installPack(userFolder, writeMinimalTrigger(path.join(baseDir, 'minimal-trigger')));
	const stoppers: Array<() => Promise<unknown>> = [];
	const stop = async () => {
		for (const fn of stoppers.reverse()) await fn().catch(() => undefined);
	};
	try {
		const sandbox = await startSandbox({ repoDir: REPO, logFile: path.join(baseDir, 'sandbox.log') });
		stoppers.push(() => sandbox.stop());
		let dbEnv: Record<string, string> = {};
		if (db === 'postgres') {
			const postgres = await services.startPostgres(baseDir);
			stoppers.push(() => postgres.stop());
			dbEnv = services.postgresEnv(postgres);
		}
		const n8n = await rt.startN8n({ userFolder, owner: OWNER, quiet: true, env: { ...dbEnv, ...env } });
		stoppers.push(() => n8n.stop());
		const cred = { id: CREDENTIAL.id, name: CREDENTIAL.name, type: CREDENTIAL_TYPE, data: moneyCredentialFor(sandbox.info) };
		await rt.importJson('import:credentials', [cred], { env: n8n.env });
		const session = await rt.login(n8n.url, OWNER.email, OWNER.password);
		const api = rt.publicApi(n8n.url, await rt.createApiKey(session, { label: 'bench' }));
		return {
			db,
			n8n,
			api,
			sandbox,
			baseDir,
			async importWorkflows(workflows) {
				await rt.importJson('import:workflow', workflows, { env: n8n.env });
			},
			async stop() {
				await stop();
				fs.rmSync(baseDir, { recursive: true, force: true });
			},
		};
	} catch (error) {
		await stop();
		throw error;
	}
}

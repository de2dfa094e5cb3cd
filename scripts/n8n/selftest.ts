/**
 * End-to-end check of the install-start-API chain with n8n-nodes-base only (no pack): start
 * (owner from env), import a Manual Trigger -> Set workflow, `n8n execute` it, log in, create an
 * API key, read the execution from the public API, stop. Resolves timings and memory.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { createApiKey, login, nodeOutput, publicApi, type Execution } from './api';
import { importJson } from './cli';
import { ensureN8n } from './install';
import { processTreeRssKb, type ProcessMemory } from './processes';
import { startN8n } from './server';

export interface SelfTestResult {
	installSeconds: number;
	startSeconds: number;
	memoryAfterStart?: ProcessMemory;
	memoryAfterRun?: ProcessMemory;
	importSeconds?: number;
	executeSeconds?: number;
	apiSeconds?: number;
	stopSeconds?: number;
	totalSeconds?: number;
	execution?: { id: Execution['id']; status: string; mode?: string; output: unknown };
}

export async function selfTest({ keep = false }: { keep?: boolean } = {}): Promise<SelfTestResult> {
	const t0 = Date.now();
	ensureN8n();
	const tInstall = Date.now() - t0;
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'money-n8n-selftest-'));
	const owner = { email: 'selftest@example.com', password: 'Selftest-pass-1', firstName: 'Self', lastName: 'Test' };
	const n8n = await startN8n({ userFolder, owner });
	const result: SelfTestResult = { installSeconds: tInstall / 1000, startSeconds: n8n.startSeconds };
	try {
		await new Promise((r) => setTimeout(r, 2000)); // let the task runner come up before measuring
		result.memoryAfterStart = processTreeRssKb(n8n.process.pid as number);
		const workflow = {
			id: 'selftestWf000000001',
			name: 'self test',
			active: false,
			nodes: [
				{ id: 'a1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{
					id: 'a2',
					name: 'Set',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					position: [200, 0],
					parameters: {
						assignments: { assignments: [{ id: 'x1', name: 'hello', type: 'string', value: '={{ "wor" + "ld" }}' }] },
						options: {},
					},
				},
			],
			connections: { Start: { main: [[{ node: 'Set', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		};
		let t = Date.now();
		await importJson('import:workflow', [workflow], { env: n8n.env });
		result.importSeconds = (Date.now() - t) / 1000;
		t = Date.now();
		const run = await n8n.cli(['execute', `--id=${workflow.id}`, '--rawOutput']);
		result.executeSeconds = (Date.now() - t) / 1000;
		const cliOut = nodeOutput(run.json, 'Set');
		if (!cliOut || cliOut[0].hello !== 'world') throw new Error(`execute output unexpected:\n${run.stdout.slice(0, 2000)}`);
		t = Date.now();
		const session = await login(n8n.url, owner.email, owner.password);
		const apiKey = await createApiKey(session);
		const api = publicApi(n8n.url, apiKey);
		const executions = await api.waitForExecutions(workflow.id);
		const out = nodeOutput(executions[0], 'Set');
		if (!out || out[0].hello !== 'world') throw new Error(`public API execution unexpected: ${JSON.stringify(executions[0]).slice(0, 2000)}`);
		result.apiSeconds = (Date.now() - t) / 1000;
		result.execution = { id: executions[0].id, status: executions[0].status, mode: executions[0].mode, output: out };
		result.memoryAfterRun = processTreeRssKb(n8n.process.pid as number);
	} finally {
		const t = Date.now();
		await n8n.stop();
		result.stopSeconds = (Date.now() - t) / 1000;
		if (!keep) fs.rmSync(userFolder, { recursive: true, force: true });
	}
	result.totalSeconds = (Date.now() - t0) / 1000;
	return result;
}

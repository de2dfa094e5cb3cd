/**
 * What the checks that run a create again share (reruns.ts, sub-workflows.ts, crash-shapes.ts,
 * cancel.ts): row nodes, amounts that identify a check's rows in the shared ledger, the ledger read
 * back, n8n's Retry as the Executions list does it, a run started by webhook inside the server,
 * and a credential and sandbox limits that do not pace.
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Execution, Json } from '../../scripts/n8n';
import { moneyCredentialFor } from '../../sandbox/control/credential';
import { amountSequence, type E2eContext } from './case-setup';
import { CREDENTIAL_TYPE, TYPES, node, type CredentialRef, type WorkflowNode } from './workflows';

/** A Set node holding the rows and a Split Out node making one item per row, as the examples do. */
export function rowNodes(rows: unknown[]): WorkflowNode[] {
	return [
		{ name: 'Rows', type: TYPES.set, typeVersion: 3.4, parameters: { mode: 'raw', jsonOutput: JSON.stringify({ rows }), options: {} } },
		{ name: 'One item per row', type: TYPES.splitOut, typeVersion: 1, parameters: { fieldToSplitOut: 'rows', options: {} } },
	];
}

/** Distinct amounts from a random base, so a check finds its own payouts in the shared ledger. */
export function amountSource(base: number): () => number {
	return amountSequence(base, 7);
}

/** A webhook trigger answering at once, with a random path (its URL: /webhook/<path>). */
export function webhookStart(key: string): { path: string; node: WorkflowNode } {
	const path = `e2e-${key.toLowerCase()}-${crypto.randomBytes(3).toString('hex')}`;
	return { path, node: node.webhook('Start run', path, crypto.randomUUID()) };
}

export async function until<T>(what: string, fn: () => Promise<T>, { timeoutMs = 90_000, intervalMs = 200 } = {}): Promise<NonNullable<T>> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await fn();
		if (value) return value as NonNullable<T>;
		assert.ok(Date.now() < deadline, `timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		await sleep(intervalMs);
	}
}

/** A credential that does not pace (its velocity fits any run of these checks). */
export const UNPACED_CREDENTIAL: CredentialRef = { id: 'e2eMoneyCredUnpaced', name: 'Money sandbox, unpaced (e2e)' };
const UNPACED = { velocityLimit: 10_000, velocityWindowSeconds: 1 };

export function rerunTools(ctx: E2eContext) {
	const { control, info } = ctx.sandbox;

	const tools = {
		unpacedCredential: { id: UNPACED_CREDENTIAL.id, name: UNPACED_CREDENTIAL.name, type: CREDENTIAL_TYPE, data: moneyCredentialFor(info, UNPACED) },

		/** Runs `fn` with the sandbox client's limits and balance high enough for any run, then puts them back. */
		async withRoomyClient<T>(fn: () => Promise<T>): Promise<T> {
			const before = (await control.getClient(info.clientId)) as Json;
			const balance = (await control.ledger()).balance.value;
			await control.updateClient(info.clientId, { limits: { ...UNPACED, dailyCap: 5_000_000_000, monthlyCap: 50_000_000_000 }, balance: 100_000_000 });
			try {
				return await fn();
			} finally {
				await control.updateClient(info.clientId, { limits: before.limits, balance });
			}
		},

		async ledgerRows(resource: 'charge' | 'payout', amounts: number[]) {
			const ledger = await control.ledger();
			const entries = resource === 'charge' ? ledger.charges : ledger.payouts;
			return entries.filter((entry) => amounts.includes(Math.abs(entry.amount.value)));
		},

		/** The amounts of `amounts` the ledger holds more than once. */
		async paidTwice(resource: 'charge' | 'payout', amounts: number[]): Promise<number[]> {
			const paid = (await tools.ledgerRows(resource, amounts)).map((row) => Math.abs(row.amount.value));
			return [...new Set(paid.filter((value, index) => paid.indexOf(value) !== index))];
		},

		/** n8n's Retry (POST /rest/executions/:id/retry) as the Executions list does it; the new execution with its data, when there is one. */
		async retry(executionId: Execution['id'], loadWorkflow: boolean) {
			const res = await ctx.session.request('POST', `/rest/executions/${executionId}/retry`, { loadWorkflow });
			const retriedId = res.status === 200 && res.json && res.json.data && res.json.data.id;
			const execution = retriedId ? await ctx.api.getExecution(retriedId, true) : undefined;
			return {
				httpStatus: res.status,
				answer: res.text.slice(0, 300),
				execution,
				status: execution && execution.status,
				error: execution && execution.data && execution.data.resultData.error ? String(execution.data.resultData.error.message) : undefined,
				errorDescription: execution && execution.data && execution.data.resultData.error ? String(execution.data.resultData.error.description) : undefined,
				output: (name: string, selector?: { runIndex?: number; output?: number }) => (execution && ctx.output(execution, name, selector)) || [],
			};
		},

		/** POSTs to an active workflow's webhook until n8n has registered it; the run goes on inside the server. */
		async fireWebhook(path: string, body: unknown = {}): Promise<void> {
			const start = () => fetch(`${ctx.n8n.url}/webhook/${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
			let started = await start();
			for (let tries = 0; started.status === 404 && tries < 120; tries++) {
				await sleep(500);
				started = await start();
			}
			assert.equal(started.status, 200, `the webhook ${path} was never registered (HTTP ${started.status})`);
		},

		/** The newest execution of a workflow (without data). */
		async latestExecution(workflowId: string): Promise<Execution | undefined> {
			const [latest] = await ctx.api.listExecutions({ workflowId, includeData: false, limit: 1 });
			return latest;
		},
	};
	return tools;
}

export type RerunTools = ReturnType<typeof rerunTools>;

export const outcomes = (items: Json[]) => items.map((item) => item.outcome);

/**
 * One round of the pace benchmark: `events` deliveries at a fixed concurrency to one active
 * workflow of a real n8n, timed from the first request to the end of the last execution n8n
 * finished (its `stoppedAt`).
 */

import type { Execution, PublicApi } from '../../scripts/n8n';
import { referenceKey } from '../../nodes/events/memory';
import { transactionHash, TransactionStatuses } from '../../nodes/MoneyTrigger/memory/statuses';
import type { WebhookTarget } from '../../sandbox/domain/webhooks';
import { sendAll, type StreamEvent } from '../../test/e2e/deliveries';
import { chain, moneyTriggerParams, node, webhookIdFor, type Workflow, type WorkflowNode } from '../../test/e2e/workflows';
import { PAYOUT_STATUSES } from '../../nodes/api/values';
import { MINIMAL_PACKAGE } from './minimal-trigger';

const FINISHED = new Set(['success', 'error', 'crashed', 'canceled']);

/**
 * How the workflows are built. `bench` (the figures since issue 30): a fresh workflow per round,
 * each trigger followed by a No Operation node, the Money Trigger on COMPLETED charges. `user` (as
 * a merchant runs it, issue 40): one workflow per trigger for the whole run, each ending in an HTTP
 * Request node (a GET to the sandbox's control API, in its own process), the Money Trigger on
 * every status and resource.
 */
export type Shape = 'bench' | 'user';

/** The node every workflow runs after its trigger. */
function after(shape: Shape, endUrl: string): WorkflowNode {
	if (shape === 'bench') return { name: 'After', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} };
	return { name: 'After', type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, parameters: { method: 'GET', url: endUrl, options: {} } };
}

export interface PaceWorkflow {
	workflow: Workflow;
	/** Path after the server's /webhook/. */
	path: string;
	signed: boolean;
}

/**
 * A Money Trigger memory holding `count` transactions, as the trigger stores it after that many
 * (built by its own code, nodes/MoneyTrigger/memory/statuses.ts), for the workflow's static data:
 * n8n imports it with the workflow, and the trigger takes it in on the first delivery as it does
 * a copy saved before a restart. Delivering 50,000 events instead would take most of an hour.
 */
export function rememberedMemory(nodeId: string, count: number): Record<string, unknown> {
	const statuses = new TransactionStatuses(count);
	for (let index = 0; index < count; index++) statuses.advance(transactionHash(referenceKey('charge', `CH-remembered-${index}`)), 'COMPLETED');
	return { global: { moneyTriggerMemory: { writer: 'bench-prefill:1', nodes: { [nodeId]: statuses.stored } } } };
}

/** Money Trigger → the end node; `remembered` preloads the trigger's memory. */
export function moneyWorkflow(id: string, remembered: number, shape: Shape, endUrl: string): PaceWorkflow {
	const webhookId = webhookIdFor(`bench ${id}`);
	const filters = shape === 'bench' ? { resources: ['charge'], statuses: ['COMPLETED'] } : { resources: ['charge', 'payout'], statuses: [...PAYOUT_STATUSES] };
	const workflow = chain(id, `bench ${id}`, [node.moneyTrigger('Money Trigger', moneyTriggerParams(filters), { webhookId }), after(shape, endUrl)]);
	if (remembered > 0) workflow.staticData = rememberedMemory(`${id}-n0`, remembered);
	return { workflow, path: `${webhookId}/money`, signed: true };
}

/** n8n's Webhook node (responseMode onReceived) → the end node. */
export function webhookNodeWorkflow(id: string, shape: Shape, endUrl: string): PaceWorkflow {
	const webhookId = webhookIdFor(`bench ${id}`);
	const path = `bench-${id}`;
	const workflow = chain(id, `bench ${id}`, [node.webhook('Webhook', path, webhookId), after(shape, endUrl)]);
	return { workflow, path, signed: false };
}

/** The smallest community trigger → the end node; `staticData` (the Money Trigger's, to weigh n8n's own cost of its bytes) stored with it. */
export function minimalWorkflow(id: string, shape: Shape, endUrl: string, staticData?: Record<string, unknown>): PaceWorkflow {
	const webhookId = webhookIdFor(`bench ${id}`);
	const workflow = chain(id, `bench ${id}`, [
		{ name: 'Minimal Trigger', type: `${MINIMAL_PACKAGE}.minimalTrigger`, typeVersion: 2, parameters: {}, webhookId },
		after(shape, endUrl),
	]);
	if (staticData) workflow.staticData = staticData;
	return { workflow, path: `${webhookId}/minimal`, signed: false };
}

/** Every execution of a workflow (no data), newest first. */
export async function executionsOf(api: PublicApi, workflowId: string): Promise<Execution[]> {
	return await api.listExecutions({ workflowId, includeData: false, limit: 1_000_000 });
}

/** Waits until `count` executions are finished (or nothing changed for `quietMs`); returns them. */
export async function waitFinished(api: PublicApi, workflowId: string, count: number, { quietMs = 30_000 } = {}): Promise<Execution[]> {
	let last = '';
	let since = Date.now();
	for (;;) {
		const list = await executionsOf(api, workflowId);
		const finished = list.filter((execution) => FINISHED.has(execution.status));
		if (finished.length >= count && finished.length === list.length) return list;
		const shape = `${list.length}/${finished.length}`;
		if (shape !== last) {
			last = shape;
			since = Date.now();
		}
		if (Date.now() - since > quietMs) return list;
		await new Promise((resolve) => setTimeout(resolve, 1000));
	}
}

export interface RoundResult {
	eventsPerSecond: number;
	/** Median time to the answer of an attempt that got a 2xx, ms. */
	answerMs: number;
	executions: number;
	unfinished: number;
	acknowledged: number;
	answers: Record<string, number>;
}

export async function paceRound(
	api: PublicApi,
	baseUrl: string,
	target: PaceWorkflow,
	events: StreamEvent[],
	{ concurrency, secret, maxAttempts = 1 }: { concurrency: number; secret: string; maxAttempts?: number },
): Promise<RoundResult> {
	const url = `${baseUrl}/webhook/${target.path}`;
	// Executions from before (the Webhook node runs the registration probe's POST too) are not this round's.
	const earlier = new Set((await executionsOf(api, target.workflow.id)).map((execution) => String(execution.id)));
	const started = Date.now();
	const sent = await sendAll(events, {
		target: target.signed ? ({ url, scheme: 'request-style', secret } as WebhookTarget) : { url, unsigned: true },
		concurrency,
		timeoutMs: 60_000,
		maxAttempts,
		retryDelayMs: 1000,
	});
	const list = (await waitFinished(api, target.workflow.id, earlier.size + sent.acknowledged.size)).filter((execution) => !earlier.has(String(execution.id)));
	const stopped = list.filter((execution) => execution.stoppedAt).map((execution) => Date.parse(execution.stoppedAt as string));
	const end = Math.max(started + sent.seconds * 1000, ...stopped);
	const answers: Record<string, number> = {};
	for (const attempt of sent.attempts) answers[String(attempt.status)] = (answers[String(attempt.status)] || 0) + 1;
	const answered = sent.attempts.filter((attempt) => attempt.status !== null && attempt.status < 300).map((attempt) => attempt.ms).sort((x, y) => x - y);
	return {
		eventsPerSecond: events.length / ((end - started) / 1000),
		answerMs: answered[Math.floor(answered.length / 2)] ?? Number.NaN,
		executions: list.length,
		unfinished: list.filter((execution) => !FINISHED.has(execution.status)).length,
		acknowledged: sent.acknowledged.size,
		answers,
	};
}

/**
 * The Money Trigger under the traffic a payments provider really sends, in a real n8n server
 * (docs/webhook-memory.md): a sustained stream of signed events at concurrency 8 from a sender
 * that retries every non-2xx answer and every timeout (every acknowledged event must have exactly
 * one finished execution, none left running), and a burst of distinct events at once followed by
 * an n8n restart and a redelivery of every one (no second execution; the memory holds every id).
 * Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Execution } from '../../scripts/n8n';
import type { CasePart, Check, E2eContext } from './case-setup';
import { storedEventIds } from '../harness/stored-memory';
import { chargeEvents, runTag, sendAll, type SendReport, type StreamEvent } from './deliveries';
import { chain, MONEY_TRIGGER_PATH, moneyTriggerParams, node, webhookIdFor } from './workflows';

const STREAM_EVENTS = Number(process.env.E2E_STREAM_EVENTS || 1200);
const STREAM_CONCURRENCY = 8;
const BURST_EVENTS = 150;
const FINISHED = new Set(['success', 'error', 'crashed', 'canceled']);

/** A sender that behaves like a payments provider's: retries every non-2xx and every timeout. */
const PROVIDER = { timeoutMs: 30_000, maxAttempts: 8, retryDelayMs: 1000 };

export function build(ctx: E2eContext): CasePart {
	const ids = { stream: 'e2eTriggerStream', burst: 'e2eTriggerBurst' };
	const hooks = { stream: webhookIdFor('e2e trigger stream'), burst: webhookIdFor('e2e trigger burst') };
	const workflow = (id: string, webhookId: string) =>
		chain(id, `e2e money trigger ${id}`, [
			node.moneyTrigger('Money Trigger', moneyTriggerParams({ resources: ['charge'], statuses: ['COMPLETED'] }), { webhookId }),
			node.set('Received', { received: '={{ $json.id }}' }, { includeOtherFields: true }),
		]);
	const url = (webhookId: string) => `${ctx.n8n.url}/webhook/${webhookId}/${MONEY_TRIGGER_PATH}`;
	const target = (webhookId: string) => ({ url: url(webhookId), scheme: 'request-style' as const, secret: ctx.sandbox.info.webhookSecret });

	/** Every execution of a workflow with its data (pages of 250). */
	async function executionsOf(workflowId: string): Promise<Execution[]> {
		return await ctx.api.listExecutions({ workflowId, includeData: true, limit: 100_000 });
	}

	/** Waits until `expected` executions exist and none is unfinished, or until nothing changed for `quietMs`. */
	async function settle(workflowId: string, expected: number, quietMs = 60_000): Promise<Execution[]> {
		let last = '';
		let since = Date.now();
		for (;;) {
			const list = await ctx.api.listExecutions({ workflowId, includeData: false, limit: 100_000 });
			const unfinished = list.filter((execution) => !FINISHED.has(execution.status)).length;
			if (list.length >= expected && unfinished === 0) return await executionsOf(workflowId);
			const shape = `${list.length}/${unfinished}`;
			if (shape !== last) {
				last = shape;
				since = Date.now();
			}
			if (Date.now() - since > quietMs) return await executionsOf(workflowId);
			await sleep(2000);
		}
	}

	/** Executions per event id (the trigger's output item). */
	function runsPerEvent(list: Execution[]): Map<string, number> {
		const perEvent = new Map<string, number>();
		for (const execution of list) {
			const id = String(((ctx.output(execution, 'Money Trigger') || [])[0] || {}).id);
			perEvent.set(id, (perEvent.get(id) || 0) + 1);
		}
		return perEvent;
	}

	/** The invariant: each acknowledged event ran exactly once and finished; nothing else ran. */
	function verdict(events: StreamEvent[], sent: SendReport, list: Execution[]) {
		const perEvent = runsPerEvent(list);
		const acknowledged = events.filter((event) => sent.acknowledged.has(event.id));
		const lost = acknowledged.filter((event) => !perEvent.has(event.id)).length;
		const twice = [...perEvent.values()].filter((count) => count > 1).length;
		const byStatus: Record<string, number> = {};
		for (const execution of list) byStatus[execution.status] = (byStatus[execution.status] || 0) + 1;
		const answers: Record<string, number> = {};
		for (const attempt of sent.attempts) answers[String(attempt.status)] = (answers[String(attempt.status)] || 0) + 1;
		return { events: events.length, acknowledged: acknowledged.length, executions: list.length, byStatus, lost, ranTwice: twice, answers };
	}

	const checks: Check[] = [
		{
			name: `Money Trigger: a sustained stream (${STREAM_EVENTS} events, ${STREAM_CONCURRENCY} at a time, the sender retrying): every acknowledged event has exactly one finished execution, none hangs`,
			async fn() {
				await ctx.api.activateWorkflow(ids.stream);
				await waitRegistered(url(hooks.stream));
				const events = chargeEvents(`s${runTag()}`, STREAM_EVENTS);
				const started = Date.now();
				const sent = await sendAll(events, { target: target(hooks.stream), concurrency: STREAM_CONCURRENCY, ...PROVIDER });
				const list = await settle(ids.stream, sent.acknowledged.size);
				const figures = verdict(events, sent, list);
				const saveFailures = (ctx.n8n.logs().match(/problem saving the workflow/g) || []).length;
				ctx.note(`Money Trigger stream: ${JSON.stringify({ ...figures, seconds: Math.round((Date.now() - started) / 1000), staticDataSaveFailures: saveFailures })}`);
				assert.equal(figures.lost, 0, `${figures.lost} acknowledged events never ran: ${JSON.stringify(figures)}`);
				assert.equal(figures.ranTwice, 0, `events ran twice: ${JSON.stringify(figures)}`);
				assert.deepEqual(figures.byStatus, { success: figures.executions }, `executions not all finished successfully: ${JSON.stringify(figures)}`);
				assert.equal(figures.acknowledged, figures.events, `events never acknowledged: ${JSON.stringify(figures)}`);
			},
		},
		{
			name: `Money Trigger: ${BURST_EVENTS} distinct events at once, n8n restarted, every one redelivered: no second execution, the memory holds every id`,
			async fn() {
				await ctx.api.activateWorkflow(ids.burst);
				await waitRegistered(url(hooks.burst));
				const events = chargeEvents(`b${runTag()}`, BURST_EVENTS);
				const first = await sendAll(events, { target: target(hooks.burst), concurrency: BURST_EVENTS, ...PROVIDER });
				assert.equal(first.acknowledged.size, BURST_EVENTS, `burst not all acknowledged: ${first.unacknowledged.length} left`);
				await settle(ids.burst, BURST_EVENTS, 20_000);
				const stored = storedEventIds((await ctx.api.getWorkflow(ids.burst)).staticData);
				const unsaved = events.filter((event) => !stored.has(event.id)).length;

				await ctx.restartN8n();
				await waitRegistered(url(hooks.burst));
				const again = await sendAll(events, { target: target(hooks.burst), concurrency: 16, ...PROVIDER });
				await sleep(5000);
				const list = await settle(ids.burst, BURST_EVENTS, 20_000);
				const figures = verdict(events, again, list);
				ctx.note(`Money Trigger burst: ${JSON.stringify({ ...figures, idsMissingFromMemoryBeforeRestart: unsaved })}`);
				assert.equal(unsaved, 0, `${unsaved} of ${BURST_EVENTS} accepted ids missing from the saved memory`);
				assert.equal(figures.ranTwice, 0, `${figures.ranTwice} events ran again after the restart`);
				assert.equal(figures.executions, BURST_EVENTS);
			},
		},
	];
	return { workflows: [workflow(ids.stream, hooks.stream), workflow(ids.burst, hooks.burst)], checks };
}

/** n8n registers an activated workflow's webhooks a moment after the API answers: until then, 404. */
export async function waitRegistered(url: string): Promise<void> {
	const deadline = Date.now() + 60_000;
	for (;;) {
		const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
		await res.arrayBuffer();
		if (res.status !== 404) return;
		if (Date.now() > deadline) throw new Error(`${url} still 404 after 60 s`);
		await sleep(500);
	}
}

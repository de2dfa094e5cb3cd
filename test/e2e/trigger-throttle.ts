/**
 * The Money Trigger when n8n limits how many production executions run at once
 * (N8N_CONCURRENCY_PRODUCTION_LIMIT, as on n8n Cloud), in a real n8n server
 * (docs/webhook-memory.md, "Deliveries of one event at the same time"): n8n writes a webhook's
 * execution, then waits for a free slot before it answers, so a delivery can be answered minutes
 * after its sender gave up. The sender's retries meanwhile must not start the event again. Run by
 * scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';

import type { CasePart, Check, E2eContext } from './case-setup';
import { chargeEvents, runTag, sendAll } from './deliveries';
import { waitRegistered } from './trigger-load';
import { chain, MONEY_TRIGGER_PATH, moneyTriggerParams, node, webhookIdFor } from './workflows';

/** Each execution holds n8n's one production slot this long (a Wait under 65 s waits in the process). */
const HOLD_SECONDS = 45;
const FINISHED = new Set(['success', 'error', 'crashed', 'canceled']);

export function build(ctx: E2eContext): CasePart {
	const id = 'e2eTrigThrottle';
	const webhookId = webhookIdFor('e2e trigger throttle');
	const workflows = [
		chain(id, 'e2e money trigger throttled', [
			node.moneyTrigger('Money Trigger', moneyTriggerParams({ resources: ['charge'], statuses: ['COMPLETED'] }), { webhookId }),
			{ name: 'Hold The Slot', type: 'n8n-nodes-base.wait', typeVersion: 1.1, parameters: { amount: HOLD_SECONDS, unit: 'seconds' } },
		]),
	];
	const url = () => `${ctx.n8n.url}/webhook/${webhookId}/${MONEY_TRIGGER_PATH}`;

	const checks: Check[] = [
		{
			name: `n8n assumption: n8n ends the response of a sender that went away (prefinish), however late: Money Trigger with one production slot (N8N_CONCURRENCY_PRODUCTION_LIMIT=1, each run ${HOLD_SECONDS} s): an event answered only after its sender gave up and retried for minutes runs exactly once`,
			async fn() {
				await ctx.restartN8n({ env: { N8N_CONCURRENCY_PRODUCTION_LIMIT: '1' } });
				try {
					await ctx.api.activateWorkflow(id);
					await waitRegistered(url());
					// The third event's execution waits two runs for the slot: n8n answers it about
					// 90 s after it arrived, long after the sender's 10 s timeout.
					const events = chargeEvents(`throttle-${runTag()}`, 3);
					const target = { url: url(), scheme: 'request-style' as const, secret: ctx.sandbox.info.webhookSecret };
					const report = await sendAll(events, { target, concurrency: 3, timeoutMs: 10_000, maxAttempts: 200, retryDelayMs: 5000 });
					const statuses = report.attempts.reduce<Record<string, number>>((counts, attempt) => {
						const key = String(attempt.status);
						counts[key] = (counts[key] ?? 0) + 1;
						return counts;
					}, {});
					// The public API lists no execution that is running unless asked for those alone.
					const busy = async () => {
						const running = await ctx.api.listExecutions({ workflowId: id, status: 'running', includeData: false, limit: 1000 });
						const listed = await ctx.api.listExecutions({ workflowId: id, includeData: false, limit: 1000 });
						return running.length > 0 || listed.some((execution) => !FINISHED.has(execution.status));
					};
					for (let waited = 0; (await busy()) && waited < 600; waited += 5) await sleep(5000);
					const withData = await ctx.api.listExecutions({ workflowId: id, includeData: true, limit: 1000 });
					const runs = new Map<string, number>();
					for (const execution of withData) {
						const eventId = String((ctx.output(execution, 'Money Trigger') || [])[0]?.id);
						runs.set(eventId, (runs.get(eventId) ?? 0) + 1);
					}
					ctx.note(`one slot: ${report.attempts.length} attempts (${JSON.stringify(statuses)}) in ${report.seconds.toFixed(0)} s, ${withData.length} executions, runs per event ${JSON.stringify([...runs])}`);
					assert.deepEqual(report.unacknowledged, [], 'some events were never acknowledged');
					for (const event of events) assert.equal(runs.get(event.id) ?? 0, 1, `${event.id} ran ${runs.get(event.id) ?? 0} times`);
				} finally {
					await ctx.api.deactivateWorkflow(id).catch(() => undefined);
					await ctx.restartN8n();
				}
			},
		},
	];
	return { workflows, checks };
}

/**
 * Confirm With the API in a real n8n server (docs/webhook-memory.md): the trigger holds its claim
 * on an event while it reads the transaction back, so a slow read meets the sender's retries; a
 * read that lags the webhook (404, or still PENDING) must make the sender come back later, never
 * drop the event; a read at a status of unknown order against the event's runs it as delivered. Events come from the sandbox's own sender (10 s timeout, retries with backoff)
 * or its deliver control. Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Execution } from '../../scripts/n8n';
import type { CasePart, Check, E2eContext } from './case-setup';
import { waitRegistered } from './trigger-load';
import { chain, MONEY_TRIGGER_PATH, moneyTriggerParams, node, webhookIdFor } from './workflows';

const READ_ROUTE = 'get_money_v1_charge_reference';

export function build(ctx: E2eContext): CasePart {
	const { control } = ctx.sandbox;
	const id = 'e2eTrigConfirm';
	const webhookId = webhookIdFor('e2e trigger confirm');
	const workflows = [
		chain(id, 'e2e money trigger confirm', [
			node.moneyTrigger('Money Trigger', { ...moneyTriggerParams({ resources: ['charge'], statuses: ['COMPLETED'] }), confirmWithApi: true }, { webhookId }),
			node.set('Received', { received: '={{ $json.id }}' }, { includeOtherFields: true }),
		]),
	];
	const url = () => `${ctx.n8n.url}/webhook/${webhookId}/${MONEY_TRIGGER_PATH}`;

	/** A PENDING charge that exists in the sandbox (seeded: no webhook of its own). */
	async function pendingCharge(): Promise<string> {
		const before = new Set((await control.ledger()).charges.map((charge) => charge.reference));
		await control.seed({ resource: 'charge', count: 1, status: 'PENDING', channel: 'psp-a-tg' });
		const created = (await control.ledger()).charges.find((charge) => !before.has(charge.reference));
		assert.ok(created, 'the sandbox seeded no charge');
		return String(created.reference);
	}

	async function executions(): Promise<Execution[]> {
		return await ctx.api.listExecutions({ workflowId: id, includeData: true, limit: 1000 });
	}

	/** The executions that emitted `reference`, once the sandbox has delivered or given up and n8n is quiet. */
	async function runsOf(reference: string): Promise<Execution[]> {
		await control.flushWebhooks();
		await sleep(3000);
		return (await executions()).filter((execution) => ((ctx.output(execution, 'Money Trigger') || [])[0] || {}).reference === reference);
	}

	async function prepare(): Promise<void> {
		await ctx.api.activateWorkflow(id);
		await waitRegistered(url());
		await control.setWebhook(url());
		await control.clearFaults();
	}

	const checks: Check[] = [
		{
			onN8n1: 'n8n 1.x answers a delivery before it creates the execution',
			name: 'Money Trigger, Confirm With the API: a confirmation slower than the sender\'s timeout (reads taking 20 s), the sender retrying meanwhile: the event runs exactly once',
			async fn() {
				await prepare();
				const reference = await pendingCharge();
				// Both reads of the first attempt outlast the trigger's 8 s read timeout, and the
				// sandbox's sender gives up on that attempt after 10 s and retries while it is in flight.
				await control.addFault({ route: READ_ROUTE, kind: 'delay', delayMs: 20_000, count: 2 });
				const countersBefore = await control.counters();
				await control.setStatus(reference, 'COMPLETED');
				const runs = await runsOf(reference);
				const counters = await control.counters();
				const attempts = counters.webhookAttempts - countersBefore.webhookAttempts;
				ctx.note(`slow confirmation: ${attempts} delivery attempts, ${runs.length} executions, delivered ${counters.webhooksDelivered - countersBefore.webhooksDelivered}, given up ${counters.webhooksFailed - countersBefore.webhooksFailed}`);
				assert.equal(runs.length, 1, `the completed charge ran ${runs.length} times`);
				assert.equal(runs[0].status, 'success');
			},
		},
		{
			name: 'Money Trigger, Confirm With the API: a read that answers 404 (it lags the webhook) makes the sender retry; the event then runs once',
			async fn() {
				await prepare();
				const reference = await pendingCharge();
				await control.addFault({ route: READ_ROUTE, kind: '404', count: 1 });
				await control.setStatus(reference, 'COMPLETED');
				const runs = await runsOf(reference);
				assert.equal(runs.length, 1, `the completed charge ran ${runs.length} times`);
			},
		},
		{
			name: 'Money Trigger, Confirm With the API: a COMPLETED event the API still reports PENDING is not a duplicate status: the sender is asked to retry, and the retry runs it once',
			async fn() {
				await prepare();
				const reference = await pendingCharge();
				const charge = (await control.ledger()).charges.find((entry) => entry.reference === reference) as Record<string, any>;
				const { client_id: _client, idempotency_key: _key, ...envelope } = charge;
				// The PENDING event first, as the API sends it, so the memory knows the charge PENDING.
				const pendingEvent = { id: `evt_pending_${reference}`, event: 'charge.pending', created_at: new Date().toISOString(), data: envelope };
				assert.deepEqual((await control.deliverEvent(pendingEvent)).statuses, [200]);
				// The completion's event, delivered before the API's reads show it.
				const completed = { ...envelope, status: { code: 1, label: 'COMPLETED' } };
				const completedEvent = { id: `evt_completed_${reference}`, event: 'charge.completed', created_at: new Date().toISOString(), data: completed };
				const early = (await control.deliverEvent(completedEvent)).statuses[0];
				assert.ok(early !== null && (early < 200 || early >= 300), `the event the API does not show yet was answered ${early}: the sender stops and it is lost`);
				// The API catches up (no webhook of its own: this client has none), the sender retries.
				await control.setWebhook(null);
				await control.setStatus(reference, 'COMPLETED');
				await control.setWebhook(url());
				assert.deepEqual((await control.deliverEvent(completedEvent)).statuses, [200]);
				const runs = await runsOf(reference);
				assert.equal(runs.length, 1, `the completed charge ran ${runs.length} times`);
			},
		},
		{
			onN8n1: 'n8n 1.x answers a delivery before it creates the execution',
			name: 'Money Trigger, Confirm With the API: a COMPLETED delivered after the charge became FAILED (its first delivery lost) runs once as delivered, confirmed false with the API\'s status beside it; its repeat runs nothing',
			async fn() {
				await prepare();
				const reference = await pendingCharge();
				// FAILED is delivered by the sandbox (filtered out by the workflow's Statuses, remembered).
				await control.setStatus(reference, 'FAILED');
				assert.equal((await runsOf(reference)).length, 0, 'the FAILED charge ran a workflow that listens for COMPLETED');
				const charge = (await control.ledger()).charges.find((entry) => entry.reference === reference) as Record<string, any>;
				const { client_id: _client, idempotency_key: _key, ...envelope } = charge;
				const late = { id: `evt_late_${reference}`, event: 'charge.completed', created_at: new Date().toISOString(), data: { ...envelope, status: { code: 1, label: 'COMPLETED' } } };
				assert.deepEqual((await control.deliverEvent(late)).statuses, [200], 'the late COMPLETED was not accepted: the sender retries until it gives up');
				assert.deepEqual((await control.deliverEvent(late)).statuses, [200]);
				const runs = await runsOf(reference);
				assert.equal(runs.length, 1, `the late COMPLETED ran ${runs.length} times`);
				const item = (ctx.output(runs[0], 'Money Trigger') || [])[0] || {};
				assert.deepEqual([item.status, item.api_status, item.confirmed], ['COMPLETED', 'FAILED', false]);
			},
		},
	];
	return { workflows, checks };
}

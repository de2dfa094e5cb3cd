/**
 * The Money Trigger's memory in a real n8n server (docs/webhook-memory.md): a redelivered event
 * starts no second execution, seconds later or after other events; a PENDING after COMPLETED for
 * the same reference is dropped; the memory survives a restart; and a burst in which every event
 * arrives twice at the same moment reports its duplicate count. Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { n8nVersion, type Execution } from '../../scripts/n8n';
import { storedStatuses } from '../harness/stored-memory';
import type { CasePart, Check, E2eContext } from './case-setup';
import { chain, MONEY_TRIGGER_PATH, moneyTriggerParams, node, webhookIdFor } from './workflows';

const ALL_STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED'];
const BURST_EVENTS = 50;
const BURST_PARALLEL_PAIRS = 4;

export function build(ctx: E2eContext): CasePart {
	const { control } = ctx.sandbox;
	const id = 'e2eTriggerMemory';
	const webhookId = webhookIdFor('e2e trigger memory');
	const workflows = [
		chain(id, 'e2e money trigger memory', [
			node.moneyTrigger('Money Trigger', moneyTriggerParams({ statuses: ALL_STATUSES }), { webhookId }),
			node.set('Received', { reference: '={{ $json.reference || ($json.data && $json.data.reference) }}' }, { includeOtherFields: true }),
		]),
	];
	/** A workflow whose Code node writes the workflow's static data (a run counter). */
	const codeId = 'e2eTrigMemCode';
	const codeWebhookId = webhookIdFor('e2e trigger memory code');
	workflows.push(
		chain(codeId, 'e2e money trigger memory, a Code node writing static data', [
			node.moneyTrigger('Money Trigger', moneyTriggerParams({ statuses: ALL_STATUSES }), { webhookId: codeWebhookId }),
			node.staticDataCounter(),
		]),
	);
	/** The same with the Money Trigger of version 2.1, which refuses it. */
	const codeId21 = 'e2eTrigMemCode21';
	workflows.push(
		chain(codeId21, 'e2e money trigger 2.1, a Code node writing static data', [
			{ ...node.moneyTrigger('Money Trigger', moneyTriggerParams({ statuses: ALL_STATUSES }), { webhookId: webhookIdFor('e2e trigger memory code 2.1') }), typeVersion: 2.1 },
			node.staticDataCounter(),
		]),
	);
	const url = () => `${ctx.n8n.url}/webhook/${webhookId}/${MONEY_TRIGGER_PATH}`;
	const run = crypto.randomBytes(3).toString('hex');
	let serial = 0;

	function event(reference: string, status: string, eventId = `evt_${run}_${++serial}`) {
		return {
			id: eventId,
			event: `charge.${status.toLowerCase()}`,
			created_at: new Date().toISOString(),
			data: {
				reference,
				type: 'charge',
				status: { code: ALL_STATUSES.indexOf(status), label: status },
				amount: { value: 1000 + serial, currency: 'XOF' },
				counterpart_account: { identifier: 'GM-1001', channel: 'psp-a-tg', name: null },
				created_at: new Date().toISOString(),
			},
		};
	}

	/**
	 * Sends `copies` copies of one event at the same moment, then, as a provider does, sends again
	 * each copy that was asked to retry (409: its twin was in flight). n8n registers an activated
	 * workflow's webhooks a moment after the API answers: until then, 404.
	 */
	async function deliver(body: object, copies = 1): Promise<void> {
		const deadline = Date.now() + 60_000;
		for (;;) {
			const { statuses } = await control.deliverEvent(body, copies);
			if (statuses.every((status) => status === 404) && Date.now() < deadline) {
				await sleep(500);
				continue;
			}
			const retried = statuses.filter((status) => status === 409).length;
			assert.ok(statuses.every((status) => status === 200 || status === 409), `deliveries answered ${JSON.stringify(statuses)}`);
			for (let attempt = 0; attempt < retried; attempt++) {
				await sleep(2000);
				const again = (await control.deliverEvent(body, 1)).statuses;
				assert.deepEqual(again, [200], `a retry after 409 was answered ${JSON.stringify(again)}`);
			}
			return;
		}
	}

	async function executions() {
		return await ctx.api.listExecutions({ workflowId: id, includeData: true, limit: 1000 });
	}

	/** Waits for `expected` executions, then a while longer so that a late extra one is seen too. */
	async function settle(expected: number, quietMs = 2500) {
		await ctx.api.waitForExecutions(id, (list) => list.length >= expected, { timeoutMs: 60_000 });
		await sleep(quietMs);
		return await executions();
	}

	const received = (list: Execution[]) => list.map((execution) => (ctx.output(execution, 'Received') || [])[0]).filter(Boolean);
	const first = event(`CH-${run}-1`, 'COMPLETED');
	let count = 0;

	const checks: Check[] = [
		{
			onN8n1: 'n8n 1.x saves the static data with every execution',
			name: 'Money Trigger: a redelivered event starts no second execution, seconds later or after other events',
			async fn() {
				await ctx.api.activateWorkflow(id);
				await control.setWebhook(url());
				await deliver(first);
				count = (await settle(1, 0)).length;
				assert.equal(count, 1);
				await sleep(2000);
				await deliver(first);
				await deliver(event(`CH-${run}-2`, 'COMPLETED'));
				await deliver(event(`CH-${run}-3`, 'FAILED'));
				await deliver(first);
				const list = await settle(3);
				assert.equal(list.length, 3, `executions: ${received(list).map((item) => item.reference).join(', ')}`);
				count = list.length;
				const stored = await ctx.api.getWorkflow(id);
				assert.deepEqual(storedStatuses(stored.staticData).get(first.data.reference), ['COMPLETED'], `static data not saved: ${JSON.stringify(stored.staticData).slice(0, 300)}`);
			},
		},
		{
			name: 'Money Trigger: a PENDING after COMPLETED for the same reference is dropped',
			async fn() {
				await deliver(event(first.data.reference, 'PENDING'));
				assert.equal((await settle(count)).length, count);
			},
		},
		{
			onN8n1: 'what n8n saves of the static data at activation is its own per line',
			name: 'Money Trigger: deactivated and activated again, a redelivered event still starts nothing',
			async fn() {
				await ctx.api.deactivateWorkflow(id);
				await ctx.api.activateWorkflow(id);
				await deliver(first);
				await deliver(event(first.data.reference, 'PENDING'));
				assert.equal((await settle(count)).length, count);
			},
		},
		{
			onN8n1: 'n8n 1.x saves the static data with every execution',
			name: 'Money Trigger: the memory survives an n8n restart',
			async fn() {
				await ctx.restartN8n();
				await control.setWebhook(url());
				await deliver(first);
				await deliver(event(first.data.reference, 'PENDING'));
				await deliver(event(`CH-${run}-4`, 'COMPLETED'));
				const list = await settle(count + 1);
				assert.equal(list.length, count + 1, `after restart: ${received(list).map((item) => item.reference).join(', ')}`);
				count = list.length;
			},
		},
		{
			onN8n1: "the execution's save keeps the trigger's statuses on 1.x and drops them on 2.x",
			name: 'Money Trigger with a Code node that writes the workflow\'s static data: on n8n 2.x an event redelivered after a restart runs again, on 1.x it does not (docs/webhook-memory.md, what it cannot promise)',
			async fn() {
				const codeUrl = `${ctx.n8n.url}/webhook/${codeWebhookId}/${MONEY_TRIGGER_PATH}`;
				await ctx.api.activateWorkflow(codeId);
				await control.setWebhook(codeUrl);
				const lone = event(`CH-${run}-code`, 'COMPLETED');
				try {
					await deliver(lone);
					await ctx.api.waitForExecutions(codeId, (list) => list.length >= 1 && list.every((execution) => execution.status === 'success'), { timeoutMs: 60_000 });
					await sleep(2000); // the execution's own static-data save comes after it finished
					const stored = await ctx.api.getWorkflow(codeId);
					const saved = storedStatuses(stored.staticData).get(lone.data.reference)?.includes('COMPLETED') === true;
					await ctx.restartN8n();
					await control.setWebhook(codeUrl);
					await deliver(lone);
					await sleep(3000);
					const runs = (await ctx.api.listExecutions({ workflowId: codeId, includeData: false, limit: 100 })).length;
					ctx.note(`Code node writing static data: the event's id ${saved ? 'was' : 'was not'} in the stored memory when its execution ended (runs counter ${JSON.stringify((stored.staticData as { global?: { runs?: unknown } } | undefined)?.global?.runs)}); redelivered after a restart it ran ${runs} times`);
					const overwrites = !n8nVersion().startsWith('1.');
					assert.equal(saved, !overwrites, overwrites ? 'the execution no longer overwrites the memory: update docs/webhook-memory.md' : "the execution's save now drops the event's status on 1.x: update docs/webhook-memory.md");
					assert.equal(runs, overwrites ? 2 : 1, `the event ran ${runs} times`);
				} finally {
					await ctx.api.deactivateWorkflow(codeId).catch(() => undefined);
					await control.setWebhook(url());
				}
			},
		},
		{
			onN8n1: 'n8n 1.x refuses the activation in the API call; 2.x publishes through a background outbox and shows the refusal in its publication status',
			name: 'Money Trigger 2.1 with a Code node that writes the workflow\'s static data: publishing it is refused, naming the node and what to do, and its Production URL takes no delivery',
			async fn() {
				const reason = /The node \\?"Count Runs\\?" writes the workflow's static data, which would erase the Money Trigger's memory of events: move what calls \$getWorkflowStaticData into another workflow called with Execute Workflow/;
				const answer = await ctx.api.activateWorkflow(codeId21).then(
					() => 'published',
					(error: Error) => error.message,
				);
				let shown = answer;
				if (answer === 'published') {
					// n8n 2.x: the publish is carried out in the background (its publication outbox); its failure is the workflow's publication status.
					const deadline = Date.now() + 30_000;
					while (!reason.test(shown) && Date.now() < deadline) {
						await sleep(500);
						shown = JSON.stringify((await ctx.session.request('GET', `/rest/workflows/${codeId21}/publication-status`)).json ?? null);
					}
				}
				assert.match(shown, reason);
				const delivery = await fetch(`${ctx.n8n.url}/webhook/${webhookIdFor('e2e trigger memory code 2.1')}/${MONEY_TRIGGER_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
				assert.equal(delivery.status, 404, 'the refused workflow\'s Production URL answered');
				await ctx.api.deactivateWorkflow(codeId21).catch(() => undefined);
			},
		},
		{
			onN8n1: 'n8n 1.x answers a delivery before it creates the execution',
			name: `Money Trigger: ${BURST_EVENTS} events each delivered twice at the same moment (duplicates reported, goal 0)`,
			async fn() {
				const burst = Array.from({ length: BURST_EVENTS }, (_, index) => event(`CH-${run}-burst-${index}`, 'COMPLETED'));
				// Pairs go out a few at a time: the figure is about two copies at one moment, not about
				// how many requests n8n's SQLite can take at once on a loaded test machine.
				for (let next = 0; next < burst.length; next += BURST_PARALLEL_PAIRS) {
					await Promise.all(burst.slice(next, next + BURST_PARALLEL_PAIRS).map((body) => deliver(body, 2)));
				}
				const list = await settle(count + BURST_EVENTS, 4000);
				const references = received(list).map((item) => item.reference).filter((reference) => reference.includes('-burst-'));
				const duplicates = references.length - new Set(references).size;
				ctx.note(`Money Trigger burst: ${BURST_EVENTS} events x 2 concurrent deliveries -> ${references.length} executions, ${duplicates} duplicates`);
				assert.equal(new Set(references).size, BURST_EVENTS, 'an event was lost');
				assert.equal(duplicates, 0);
			},
		},
	];
	return { workflows, checks };
}

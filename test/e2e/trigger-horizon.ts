/**
 * The Money Trigger's horizon in a real n8n server (docs/webhook-memory.md): an event redelivered
 * after 2,100 other transactions and 11 minutes starts nothing, and a stale PENDING of a charge
 * completed before them is dropped. Run by scripts/e2e.ts.
 *
 * On the n8n 1.x line the others are 500: the memory is the pack's, the same on both lines, and the
 * main line shows it past the 2,000 of the memory of before; 1.x shows the memory kept across the
 * same 11 minutes, without 2,500 more deliveries on a machine both lines share.
 *
 * The 11 minutes are real time, spent by the other checks: the first check sends the 100 events
 * and the 2,100 others; the second runs last (`runLast`) and waits only for what is left of the
 * 11 minutes (all of it when it runs alone). n8n's clock is n8n's: no test clock, no seeded state.
 */

import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';

import { n8nVersion } from '../../scripts/n8n';
import type { Check, CasePart, E2eContext } from './case-setup';
import { chargeEvents, runTag, sendAll, type StreamEvent } from './deliveries';
import { waitRegistered } from './trigger-load';
import { chain, MONEY_TRIGGER_PATH, moneyTriggerParams, node, webhookIdFor } from './workflows';

const RAN = 100;
const HORIZON_WAIT_MS = 11 * 60_000;
const PROVIDER = { timeoutMs: 30_000, maxAttempts: 8, retryDelayMs: 1000 };

/** The same event under another id (another event of the same transaction). */
function withId(id: (event: StreamEvent) => string) {
	return (event: StreamEvent): StreamEvent => {
		const body = JSON.parse(event.body) as { id: string };
		body.id = id(event);
		return { ...event, id: body.id, body: JSON.stringify(body) };
	};
}

export function build(ctx: E2eContext): CasePart {
	const OTHERS = n8nVersion().startsWith('1.') ? 500 : 2100;
	const id = 'e2eTrigHorizon'; // n8n 1.x saves static data only for ids of 16 characters at most (isWorkflowIdValid)
	const webhookId = webhookIdFor('e2e trigger horizon');
	// PENDING and COMPLETED run; the others are FAILED charges, answered without a run (filtered)
	// and remembered all the same.
	const workflow = chain(id, 'e2e money trigger horizon', [
		node.moneyTrigger('Money Trigger', moneyTriggerParams({ resources: ['charge'], statuses: ['PENDING', 'COMPLETED'] }), { webhookId }),
		node.set('Received', { received: '={{ $json.id }}' }, { includeOtherFields: true }),
	]);
	const target = () => ({ url: `${ctx.n8n.url}/webhook/${webhookId}/${MONEY_TRIGGER_PATH}`, scheme: 'request-style' as const, secret: ctx.sandbox.info.webhookSecret });
	const tag = runTag();
	const ran = chargeEvents(`h${tag}`, RAN);
	let ranAt = 0;

	async function executionCount(): Promise<number> {
		return (await ctx.api.listExecutions({ workflowId: id, includeData: false, limit: 100_000 })).length;
	}

	async function send(events: StreamEvent[]): Promise<void> {
		const sent = await sendAll(events, { target: target(), concurrency: 8, ...PROVIDER });
		assert.equal(sent.unacknowledged.length, 0, `${sent.unacknowledged.length} deliveries never acknowledged`);
	}

	const checks: Check[] = [
		{
			// 2,100 deliveries, each answered after n8n saved the trigger's memory: up to 561 s in CI runs on a loaded 2-core machine.
			limitMs: 1_200_000,
			name: `Money Trigger horizon, part 1: ${RAN} completed charges run, then ${OTHERS} other transactions arrive`,
			async fn() {
				await ctx.api.activateWorkflow(id);
				await waitRegistered(target().url);
				await send(ran);
				await ctx.api.waitForExecutions(id, (list) => list.length >= RAN, { timeoutMs: 120_000 });
				ranAt = Date.now();
				const started = Date.now();
				await send(chargeEvents(`o${tag}`, OTHERS, { status: 'FAILED' }));
				ctx.note(`Money Trigger horizon: ${OTHERS} other transactions in ${Math.round((Date.now() - started) / 1000)} s`);
				assert.equal(await executionCount(), RAN);
			},
		},
		{
			name: `Money Trigger horizon, part 2: after ${OTHERS} other transactions and 11 minutes, redelivered events and stale PENDINGs start nothing`,
			runLast: true,
			async fn() {
				assert.ok(ranAt > 0, 'part 1 did not run');
				const left = ranAt + HORIZON_WAIT_MS - Date.now();
				if (left > 0) await sleep(left);
				await waitRegistered(target().url);
				// Traffic goes on: a few new transactions, then the provider redelivers.
				await send(chargeEvents(`n${tag}`, 20, { status: 'FAILED' }));
				const before = await executionCount();
				// A stale PENDING of each charge first (it must not run), then each COMPLETED again.
				await send(chargeEvents(`h${tag}`, RAN, { status: 'PENDING' }).map(withId((event) => `${event.id}_pending`)));
				await send(ran);
				await sleep(5000);
				const after = await executionCount();
				ctx.note(`Money Trigger horizon: ${RAN} stale PENDING and ${RAN} redelivered COMPLETED after ${OTHERS} others and ${Math.round((Date.now() - ranAt) / 60_000)} min -> ${after - before} ran`);
				assert.equal(after - before, 0, `${after - before} of ${2 * RAN} redelivered or stale events ran`);
			},
		},
	];
	return { workflows: [workflow], checks };
}

/**
 * The n8n behaviours the Money Trigger relies on that no n8n document promises
 * (docs/webhook-memory.md, "What the trigger relies on in n8n"), each pinned by a check named
 * `n8n assumption: ...`, so an n8n patch that breaks one fails by name (`E2E_ONLY='n8n assumption'`).
 * This module holds the one that needs a check of its own; the others are named where a load check
 * already shows them (trigger-load.ts, trigger-throttle.ts). Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';

import type { CasePart, Check, E2eContext } from './case-setup';
import { chargeEvents, runTag, sendAll } from './deliveries';
import { storedStatuses } from '../harness/stored-memory';
import { waitRegistered } from './trigger-load';
import { chain, MONEY_TRIGGER_PATH, moneyTriggerParams, node, webhookIdFor } from './workflows';

export function build(ctx: E2eContext): CasePart {
	const id = 'e2eTrigAssume'; // n8n 1.x saves static data only for ids of 16 characters at most (isWorkflowIdValid)
	const webhookId = webhookIdFor('e2e trigger assumptions');
	const workflow = chain(id, 'e2e money trigger assumptions', [
		node.moneyTrigger('Money Trigger', moneyTriggerParams({ resources: ['charge'], statuses: ['COMPLETED'] }), { webhookId }),
		node.set('Received', { received: '={{ $json.id }}' }, { includeOtherFields: true }),
	]);
	const target = () => ({ url: `${ctx.n8n.url}/webhook/${webhookId}/${MONEY_TRIGGER_PATH}`, scheme: 'request-style' as const, secret: ctx.sandbox.info.webhookSecret });

	const checks: Check[] = [
		{
			name: 'n8n assumption: static data is written through toJSON at the save, which n8n makes for a Money Trigger event it runs (after it serialised the execution\'s items) before it answers',
			async fn() {
				await ctx.api.activateWorkflow(id);
				await waitRegistered(target().url);
				const [event] = chargeEvents(`a${runTag()}`, 1);
				const sent = await sendAll([event], { target: target(), concurrency: 1 });
				assert.equal(sent.acknowledged.size, 1, `the event was answered ${JSON.stringify(sent.attempts)}`);
				// Read at once: the save came before the answer.
				const staticData = (await ctx.api.getWorkflow(id)).staticData as { global?: { moneyTriggerMemory?: { writer?: unknown } } } | undefined;
				const stored = staticData?.global?.moneyTriggerMemory;
				assert.match(String(stored?.writer), /:\d+$/, `the memory was not written through its toJSON: ${JSON.stringify(staticData).slice(0, 200)}`);
				assert.deepEqual(storedStatuses(staticData).get(event.reference), ['COMPLETED'], 'the event\'s status was not saved before the answer');
			},
		},
	];
	return { workflows: [workflow], checks };
}

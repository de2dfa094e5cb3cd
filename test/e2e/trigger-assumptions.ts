/**
 * The n8n behaviours the Money Trigger relies on that no n8n document promises
 * (docs/webhook-memory.md, "What the trigger relies on in n8n"), each pinned by a check named
 * `n8n assumption: ...`, so an n8n patch that breaks one fails by name (`E2E_ONLY='n8n assumption'`).
 * This module holds those that need a check of their own; the others are named where a check already
 * shows them (trigger-load.ts, trigger-throttle.ts, trigger-labels-secret.ts). Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';

import { signWebhook } from '../../sandbox/domain/webhooks';
import type { CasePart, Check, E2eContext } from './case-setup';
import { chargeEvents, runTag, sendAll, type StreamEvent } from './deliveries';
import { storedStatuses } from '../harness/stored-memory';
import { waitRegistered } from './trigger-load';
import { chain, MONEY_TRIGGER_PATH, moneyTriggerParams, node, webhookIdFor } from './workflows';

const FINISHED = new Set(['success', 'error', 'crashed', 'canceled']);

export function build(ctx: E2eContext): CasePart {
	const id = 'e2eTrigAssume'; // n8n 1.x saves static data only for ids of 16 characters at most (isWorkflowIdValid)
	const webhookId = webhookIdFor('e2e trigger assumptions');
	const workflow = chain(id, 'e2e money trigger assumptions', [
		node.moneyTrigger('Money Trigger', moneyTriggerParams({ resources: ['charge'], statuses: ['COMPLETED'] }), { webhookId }),
		node.set('Received', { received: '={{ $json.id }}' }, { includeOtherFields: true }),
	]);
	const target = () => ({ url: `${ctx.n8n.url}/webhook/${webhookId}/${MONEY_TRIGGER_PATH}`, scheme: 'request-style' as const, secret: ctx.sandbox.info.webhookSecret });

	/** A workflow tried from the editor: its Code node writes the static data in a test run only. */
	const testRunId = 'e2eTrigTestRun';
	const testRunWebhookId = webhookIdFor('e2e trigger test run');
	const testRunWorkflow = chain(testRunId, 'e2e money trigger test run', [
		node.moneyTrigger('Money Trigger', moneyTriggerParams(), { webhookId: testRunWebhookId }),
		{
			name: 'Mark Test Runs',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			parameters: { jsCode: "if ($execution.mode !== 'production') $getWorkflowStaticData('global').testRunWrote = true;\nreturn $input.all();" },
		},
	]);

	/** The event posted to `url`, signed (request-style) for `signedFor`; its answer's status and the request. */
	async function post(url: string, event: StreamEvent, signedFor = url) {
		const { body } = event;
		const headers = { 'content-type': 'application/json', ...signWebhook({ url: signedFor, scheme: 'request-style', secret: ctx.sandbox.info.webhookSecret }, body, Math.floor(Date.now() / 1000)) };
		const res = await fetch(url, { method: 'POST', headers, body });
		await res.arrayBuffer();
		return { status: res.status, headers, body };
	}

	const checks: Check[] = [
		{
			onN8n1: 'an n8n assumption, pinned on each line',
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
		{
			onN8n1: 'an n8n assumption, pinned on each line (1.x has no getWebhookResourceUrl)',
			name: 'n8n assumption: a test run saves no static data, and a test webhook is given the Production URL: a Money Trigger listening for a test event refuses a production delivery replayed to the Test URL (401), runs a test event once, saves nothing of it, and the same event then runs in production',
			async fn() {
				const productionUrl = `${ctx.n8n.url}/webhook/${testRunWebhookId}/${MONEY_TRIGGER_PATH}`;
				const testUrl = `${ctx.n8n.url}/webhook-test/${testRunWebhookId}/${MONEY_TRIGGER_PATH}`;
				await ctx.api.activateWorkflow(testRunId);
				try {
					await waitRegistered(productionUrl);
					const [production, tried] = chargeEvents(`t${runTag()}`, 2);
					const captured = await post(productionUrl, production);
					assert.equal(captured.status, 200, 'the production delivery was refused');
					const before = JSON.stringify((await ctx.api.getWorkflow(testRunId)).staticData);
					// Execute workflow in the editor: n8n listens for one test event.
					const listening = await ctx.session.request('POST', `/rest/workflows/${testRunId}/run`, {
						workflowData: await ctx.api.getWorkflow(testRunId),
						triggerToStartFrom: { name: 'Money Trigger' },
					});
					assert.ok(listening.json?.data?.waitingForWebhook, `n8n is not listening for a test event: HTTP ${listening.status} ${listening.text.slice(0, 300)}`);
					const replayed = await fetch(testUrl, { method: 'POST', headers: captured.headers, body: captured.body });
					await replayed.arrayBuffer();
					const testAnswer = await post(testUrl, tried);
					const manual = async () => (await ctx.api.listExecutions({ workflowId: testRunId, includeData: false, limit: 100 })).filter((execution) => execution.mode === 'manual');
					for (let waited = 0; waited < 30_000 && !(await manual()).some((execution) => FINISHED.has(execution.status)); waited += 500) await sleep(500);
					const afterTest = JSON.stringify((await ctx.api.getWorkflow(testRunId)).staticData);
					const inProduction = await post(productionUrl, tried);
					const runs = await ctx.api.waitForExecutions(testRunId, (list) => list.filter((execution) => execution.mode !== 'manual').length >= 2, { timeoutMs: 30_000 });
					assert.deepEqual(
						{ replayed: replayed.status, test: testAnswer.status, testRuns: (await manual()).length, savedByTheTest: afterTest !== before, inProduction: inProduction.status, productionRuns: runs.filter((execution) => execution.mode !== 'manual').length },
						{ replayed: 401, test: 200, testRuns: 1, savedByTheTest: false, inProduction: 200, productionRuns: 2 },
					);
				} finally {
					await ctx.api.deactivateWorkflow(testRunId).catch(() => undefined);
				}
			},
		},
	];
	return { workflows: [workflow, testRunWorkflow], checks };
}

/**
 * A manual run from the editor ("Execute workflow", `POST /rest/workflows/:id/run` in mode
 * `manual`), run again: each run is a new execution (docs/idempotency.md, the table at its end).
 * Without a Business Reference the second run is a new payment; with one it is the same payment,
 * answered `replayed`. Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';

import type { Json } from '../../scripts/n8n';
import { BENEFICIARY, keyedWorkflows, type CasePart, type Check, type E2eContext } from './case-setup';
import { amountSource, outcomes, rerunTools, rowNodes, UNPACED_CREDENTIAL, until } from './rerun-tools';
import { money, node } from './workflows';

const PAY = 'Pay';

export function build(ctx: E2eContext): CasePart {
	const tools = rerunTools(ctx);
	const { ids, wf } = keyedWorkflows('e2eManual');
	const amount = amountSource(95_000);
	const runs = {
		NoRef: { amounts: [amount(), amount()], withReference: false },
		Ref: { amounts: [amount(), amount()], withReference: true },
	};
	const workflows = Object.entries(runs).map(([key, run]) =>
		wf(key, `e2e manual run twice (${run.withReference ? 'with' : 'without'} Business Reference)`, [
			node.manualTrigger(),
			...rowNodes(run.amounts.map((value) => ({ amount: value, ref: `manual-${value}` }))),
			node.money(PAY, money.create('payout', { amount: '={{ $json.amount }}', identifier: BENEFICIARY, ...(run.withReference ? { businessReference: '={{ $json.ref }}' } : {}), options: { maxRetries: 0 } }), { cred: UNPACED_CREDENTIAL }),
		]),
	);

	/** What the editor's "Execute workflow" sends: n8n 2.x reads the trigger to start from, 1.x also the workflow. */
	async function runManually(workflowId: string): Promise<Json[]> {
		const workflowData = await ctx.api.getWorkflow(workflowId);
		const res = await ctx.session.request('POST', `/rest/workflows/${workflowId}/run`, { workflowData, triggerToStartFrom: { name: 'Start' } });
		const executionId = res.json && res.json.data && res.json.data.executionId;
		assert.ok(executionId, `no manual execution started: HTTP ${res.status} ${res.text.slice(0, 300)}`);
		const execution = await until(`manual execution ${executionId} to finish`, async () => {
			const current = await ctx.api.getExecution(executionId, true);
			return ['success', 'error', 'crashed', 'canceled'].includes(current.status) ? current : undefined;
		});
		assert.equal(execution.status, 'success', String(JSON.stringify(execution.data && execution.data.resultData.error)).slice(0, 300));
		assert.equal(execution.mode, 'manual');
		return ctx.output(execution, PAY) || [];
	}

	const checks: Check[] = [
		{
			name: 'a manual run from the editor, run again: a new payment without a Business Reference, the same one (replayed) with it',
			async fn() {
				const report: Record<string, unknown> = {};
				await tools.withRoomyClient(async () => {
					for (const [key, run] of Object.entries(runs)) {
						const first = outcomes(await runManually(ids[key]));
						const second = outcomes(await runManually(ids[key]));
						report[key] = { first, second, paid: (await tools.ledgerRows('payout', run.amounts)).length };
					}
				});
				ctx.note(`manual runs: ${JSON.stringify(report)}`);
				assert.deepEqual(report.NoRef, { first: ['created', 'created'], second: ['created', 'created'], paid: 4 });
				assert.deepEqual(report.Ref, { first: ['created', 'created'], second: ['replayed', 'replayed'], paid: 2 });
			},
		},
	];
	return { workflows, checks, credentials: [tools.unpacedCredential] };
}

/**
 * A manual run from the editor ("Execute workflow", `POST /rest/workflows/:id/run` in mode
 * `manual`), run again: each run is a new execution (docs/idempotency.md, the table at its end).
 * Outside the editor (here `n8n execute`), a create without a Business Reference is refused before
 * any request unless the node turns Require Business Reference off (docs/decisions.md#d8).
 * Without a Business Reference the second run is a new payment; with one it is the same payment,
 * answered `replayed`. The same holds for "Execute step" on a Money node whose manual run failed
 * part-way (a partial execution: the rows before it from the earlier run's data, the node run
 * anew in a new execution). Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';

import type { Json } from '../../scripts/n8n';
import { BENEFICIARY, keyedWorkflows, type CasePart, type Check, type E2eContext } from './case-setup';
import { amountSource, outcomes, rerunTools, rowNodes, UNPACED_CREDENTIAL } from './rerun-tools';
import { money, node } from './workflows';

const PAY = 'Pay';

export function build(ctx: E2eContext): CasePart {
	const { control, info } = ctx.sandbox;
	const tools = rerunTools(ctx);
	const { ids, wf } = keyedWorkflows('e2eManual');
	const amount = amountSource(95_000);
	const runs = {
		NoRef: { amounts: [amount(), amount()], withReference: false },
		Ref: { amounts: [amount(), amount()], withReference: true },
	};
	const steps = {
		StepNoRef: { amounts: [amount(), amount(), amount(), 950_000 + amount()], withReference: false },
		StepRef: { amounts: [amount(), amount(), amount(), 950_000 + amount()], withReference: true },
	};
	const payRun = (key: string, name: string, run: { amounts: number[]; withReference: boolean }) =>
		wf(key, `${name} (${run.withReference ? 'with' : 'without'} Business Reference)`, [
			node.manualTrigger(),
			...rowNodes(run.amounts.map((value) => ({ amount: value, ref: `manual-${value}` }))),
			node.money(PAY, money.create('payout', { amount: '={{ $json.amount }}', identifier: BENEFICIARY, ...(run.withReference ? { businessReference: '={{ $json.ref }}' } : {}), options: { maxRetries: 0 } }), { cred: UNPACED_CREDENTIAL }),
		]);
	const required = { amounts: [amount(), amount()] };
	const optedOut = { amounts: [amount(), amount()] };
	const production = (key: string, name: string, amounts: number[], requireBusinessReference: boolean) =>
		wf(key, name, [
			node.manualTrigger(),
			...rowNodes(amounts.map((value) => ({ amount: value }))),
			node.money(PAY, money.create('payout', { amount: '={{ $json.amount }}', identifier: BENEFICIARY, requireBusinessReference, options: { maxRetries: 0 } }), { cred: UNPACED_CREDENTIAL }),
		]);
	const workflows = [
		production('Required', 'e2e payouts without a Business Reference, required (the default)', required.amounts, true),
		production('OptOut', 'e2e payouts without a Business Reference, not required', optedOut.amounts, false),
		...Object.entries(runs).map(([key, run]) => payRun(key, 'e2e manual run twice', run)),
		...Object.entries(steps).map(([key, run]) => payRun(key, 'e2e manual run failed at row 4, then Execute step on the Money node', run)),
	];

	/** Starts a manual execution with this body of `POST /rest/workflows/:id/run`; the execution once finished. */
	async function runInEditor(workflowId: string, body: Record<string, unknown>) {
		const res = await ctx.session.request('POST', `/rest/workflows/${workflowId}/run`, body);
		const executionId = res.json && res.json.data && res.json.data.executionId;
		assert.ok(executionId, `no manual execution started: HTTP ${res.status} ${res.text.slice(0, 300)}`);
		const execution = await ctx.api.settledExecution(executionId);
		assert.equal(execution.mode, 'manual');
		return execution;
	}

	/** What the editor's "Execute workflow" sends: n8n 2.x reads the trigger to start from, 1.x also the workflow. */
	async function runManually(workflowId: string): Promise<Json[]> {
		const workflowData = await ctx.api.getWorkflow(workflowId);
		const execution = await runInEditor(workflowId, { workflowData, triggerToStartFrom: { name: 'Start' } });
		assert.equal(execution.status, 'success', String(JSON.stringify(execution.data && execution.data.resultData.error)).slice(0, 300));
		return ctx.output(execution, PAY) || [];
	}

	async function payoutRequests(): Promise<number> {
		return (await control.counters()).requests.post_money_v1_payout || 0;
	}

	const checks: Check[] = [
		{
			onN8n1: 'the execution mode n8n 1.x gives an editor run',
			name: 'Require Business Reference (the default): payouts without one in a production execution are refused before any request; from the editor they are paid',
			async fn() {
				await tools.withRoomyClient(async () => {
					const before = await payoutRequests();
					const refused = await ctx.run(ids.Required, { expectError: true });
					assert.equal(refused.execution.status, 'error');
					assert.match(String(refused.error && refused.error.message), /Business Reference.*required in production executions.*Require Business Reference/);
					assert.equal(await payoutRequests(), before);
					assert.deepEqual(outcomes(await runManually(ids.Required)), ['created', 'created']);
				});
			},
		},
		{
			name: 'Require Business Reference turned off: the payouts are paid in production, each item saying what it was sent with',
			async fn() {
				await tools.withRoomyClient(async () => {
					const items = (await ctx.run(ids.OptOut)).output(PAY);
					assert.deepEqual(
						items.map((item) => ({
							outcome: item.outcome,
							status: item.status,
							party: item.beneficiary_identifier,
							type: item.beneficiary_identifier_type,
							amount: item.amount,
							currency: item.currency,
							channel: item.channel,
							ref: item.business_reference,
						})),
						optedOut.amounts.map((value) => ({ outcome: 'created', status: 'PENDING', party: BENEFICIARY, type: 'gm_account', amount: value, currency: 'XOF', channel: 'psp-a-tg', ref: null })),
					);
					assert.equal((await tools.ledgerRows('payout', optedOut.amounts)).length, 2);
				});
			},
		},
		{
			onN8n1: 'what the editor sends to run a workflow differs on 1.x',
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
		{
			onN8n1: 'what the editor sends for a partial run (Execute step) differs on 1.x',
			name: 'manual: Execute step on a Money node whose manual run failed at row 4 is a new execution: rows 1-3 paid again without a Business Reference (a limit), replayed with one',
			async fn() {
				const report: Record<string, unknown> = {};
				await tools.withRoomyClient(async () => {
					for (const [key, run] of Object.entries(steps)) {
						await control.updateClient(info.clientId, { balance: run.amounts[0] + run.amounts[1] + run.amounts[2] + 10_000 });
						const workflowData = await ctx.api.getWorkflow(ids[key]);
						const failed = await runInEditor(ids[key], { workflowData, triggerToStartFrom: { name: 'Start' } });
						const paidBefore = (await tools.ledgerRows('payout', run.amounts)).length;
						await control.updateClient(info.clientId, { balance: 100_000_000 });
						// What the editor sends for "Execute step" on Pay: the earlier run's data of the nodes before it.
						const { [PAY]: _failedRun, ...runData } = failed.data.resultData.runData;
						const step = await runInEditor(ids[key], { workflowData, runData, destinationNode: { nodeName: PAY, mode: 'inclusive' }, dirtyNodeNames: [] });
						report[key] = {
							failed: failed.status,
							paidBefore,
							step: step.status,
							sameExecution: String(step.id) === String(failed.id),
							outcomes: outcomes(ctx.output(step, PAY) || []),
							paidTwice: (await tools.paidTwice('payout', run.amounts)).map((value) => run.amounts.indexOf(value) + 1),
						};
					}
				});
				ctx.note(`Execute step after a failed manual run: ${JSON.stringify(report)}`);
				for (const key of Object.keys(steps)) assert.deepEqual({ ...(report[key] as object), outcomes: undefined, paidTwice: undefined }, { failed: 'error', paidBefore: 3, step: 'success', sameExecution: false, outcomes: undefined, paidTwice: undefined }, JSON.stringify(report));
				assert.deepEqual(report.StepNoRef, { ...(report.StepNoRef as object), outcomes: ['created', 'created', 'created', 'created'], paidTwice: [1, 2, 3] }, 'the limit: a new execution without a Business Reference pays again');
				assert.deepEqual(report.StepRef, { ...(report.StepRef as object), outcomes: ['replayed', 'replayed', 'replayed', 'created'], paidTwice: [] });
			},
		},
	];
	return { workflows, checks, credentials: [tools.unpacedCredential] };
}

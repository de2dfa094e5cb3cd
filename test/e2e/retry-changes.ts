/**
 * Retry "with currently saved workflow" after the workflow was changed to fix the failed row
 * (docs/idempotency.md, the table at its end): the rows paid before the failure are the same rows,
 * at the same place in the same node run, whatever the change did to their key. Each workflow pays
 * four rows, the fourth more than the wallet holds; the check changes the saved workflow as a user
 * fixing it would, tops the wallet up and retries. Run by scripts/e2e.ts after resends.ts.
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';

import type { Json } from '../../scripts/n8n';
import { amountSequence, BENEFICIARY, type CasePart, type Check, type E2eContext, keyedWorkflows, ledgerByAmount, OTHER_BENEFICIARY, retryExecution, rowNodes, uniqueAmount } from './case-setup';
import { money, node, type WorkflowNode } from './workflows';

const PAY = 'Pay';

export function build(ctx: E2eContext): CasePart {
	const { control, info } = ctx.sandbox;
	const { ids, wf } = keyedWorkflows('e2eChg');
	const amount = amountSequence(87_000);
	const runs: Record<string, number[]> = {};
	const payoutRun = (key: string, name: string) => {
		const amounts = [amount(), amount(), amount(), uniqueAmount(940_000 + crypto.randomInt(0, 1000))];
		runs[key] = amounts;
		const rows = amounts.map((value, index) => ({ amount: value, identifier: index % 2 ? OTHER_BENEFICIARY : BENEFICIARY, order: `chg-${key}-${value}` }));
		const pay = node.money(PAY, money.create('payout', { amount: '={{ $json.amount }}', identifier: '={{ $json.identifier }}', options: { maxRetries: 0 } }));
		return wf(key, name, [node.manualTrigger(), ...rowNodes(rows), pay]);
	};
	const workflows = [
		payoutRun('Replaced', 'e2e payout run, Money node replaced before the Retry'),
		payoutRun('Account', 'e2e payout run, Account Number set before the Retry'),
		payoutRun('AddRef', 'e2e payout run, Business Reference mapped before the Retry'),
		payoutRun('Twice', 'e2e payout run, the failed execution retried twice'),
	];

	/** Runs the workflow until row 4 overdraws, changes its saved Money node, tops up and retries with the saved workflow. */
	async function failChangeRetry(key: string, change: (pay: WorkflowNode) => void) {
		const amounts = runs[key];
		await control.updateClient(info.clientId, { limits: { velocityLimit: 1000, velocityWindowSeconds: 300 }, balance: amounts[0] + amounts[1] + amounts[2] + 10_000 });
		const failed = await ctx.run(ids[key], { expectError: true });
		assert.match(String(failed.error && failed.error.message), /INSUFFICIENT_FUNDS/);
		const before = await ledgerByAmount(control, 'payout', amounts);
		assert.equal(before.length, 3, `rows 1-3 paid before the Retry: ${JSON.stringify(before.map((entry) => [entry.amount.value, entry.idempotency_key]))} of ${JSON.stringify(amounts)}`);
		const saved = await ctx.api.getWorkflow(ids[key]);
		change(saved.nodes.find((n: WorkflowNode) => n.name === PAY));
		await ctx.api.call('PUT', `/workflows/${ids[key]}`, { name: saved.name, nodes: saved.nodes, connections: saved.connections, settings: saved.settings });
		await control.updateClient(info.clientId, { balance: 100_000_000 });
		const retried = await retryExecution(ctx, failed.execution.id, true);
		const items: Json[] = retried.output(PAY);
		const paid = (await ledgerByAmount(control, 'payout', amounts)).map((entry) => Math.abs(entry.amount.value));
		const report = {
			status: retried.execution.status,
			error: String((retried.execution.data && retried.execution.data.resultData.error && retried.execution.data.resultData.error.message) || '').slice(0, 300),
			outcomes: items.map((item) => item.outcome),
			paidTwice: amounts.filter((value) => paid.filter((entry) => entry === value).length > 1).map((value) => amounts.indexOf(value) + 1),
			paid: paid.length,
		};
		ctx.note(`Retry after a change (${key}): ${JSON.stringify(report)}`);
		return report;
	}

	/**
	 * E0 fails on row 1 (the wallet empty), E1 = Retry of E0 pays rows 1-3 and fails on row 4; a
	 * Business Reference is mapped and E0 (not E1) is retried again: n8n 2.41 starts that Retry from
	 * E0's data, which holds nothing of what E1 paid (docs/idempotency.md, "A run keeps its API
	 * client and Business References").
	 */
	async function retryOriginalTwice() {
		const amounts = runs.Twice;
		await control.updateClient(info.clientId, { limits: { velocityLimit: 1000, velocityWindowSeconds: 300 }, balance: 1_000 });
		const e0 = await ctx.run(ids.Twice, { expectError: true });
		assert.match(String(e0.error && e0.error.message), /INSUFFICIENT_FUNDS/);
		await control.updateClient(info.clientId, { balance: amounts[0] + amounts[1] + amounts[2] + 10_000 });
		const e1 = await retryExecution(ctx, e0.execution.id, false);
		const paidAfterE1 = (await ledgerByAmount(control, 'payout', amounts)).length;
		const saved = await ctx.api.getWorkflow(ids.Twice);
		saved.nodes.find((n: WorkflowNode) => n.name === PAY).parameters.businessReference = '={{ $json.order }}';
		await ctx.api.call('PUT', `/workflows/${ids.Twice}`, { name: saved.name, nodes: saved.nodes, connections: saved.connections, settings: saved.settings });
		await control.updateClient(info.clientId, { balance: 100_000_000 });
		const e2 = await retryExecution(ctx, e0.execution.id, true);
		const paid = (await ledgerByAmount(control, 'payout', amounts)).map((entry) => Math.abs(entry.amount.value));
		const report = {
			e1: e1.execution.status,
			paidAfterE1,
			e2: e2.execution.status,
			error: String((e2.execution.data && e2.execution.data.resultData.error && e2.execution.data.resultData.error.message) || '').slice(0, 300),
			paidTwice: amounts.filter((value) => paid.filter((entry) => entry === value).length > 1).map((value) => amounts.indexOf(value) + 1),
			paid: paid.length,
		};
		ctx.note(`the failed execution retried twice: ${JSON.stringify(report)}`);
		return report;
	}

	const checks: Check[] = [
		{
			name: 'changed: Retry with the currently saved workflow after the Money node was replaced (deleted, added again under its name) pays rows 1-3 once',
			async fn() {
				const report = await failChangeRetry('Replaced', (pay) => {
					pay.id = crypto.randomUUID();
				});
				assert.deepEqual(report.paidTwice, [], JSON.stringify(report));
				assert.equal(report.status, 'success', JSON.stringify(report));
				assert.deepEqual(report.outcomes, ['replayed', 'replayed', 'replayed', 'created']);
			},
		},
		{
			name: 'changed: Retry with the currently saved workflow after Account Number was set for every row (the wallet rows 1-3 were paid from) pays no row twice and says why',
			async fn() {
				const report = await failChangeRetry('Account', (pay) => {
					pay.parameters.additionalFields = { ...pay.parameters.additionalFields, accountNumber: info.merchantAccountNumber };
				});
				assert.deepEqual(report.paidTwice, [], JSON.stringify(report));
				assert.equal(report.paid, 3, JSON.stringify(report));
				assert.match(report.error, /account_number/, JSON.stringify(report));
			},
		},
		{
			name: 'changed: Retry with the currently saved workflow after a Business Reference was mapped pays no row twice and says why',
			async fn() {
				const report = await failChangeRetry('AddRef', (pay) => {
					pay.parameters.businessReference = '={{ $json.order }}';
				});
				assert.deepEqual(report.paidTwice, [], JSON.stringify(report));
				assert.equal(report.paid, 3, JSON.stringify(report));
				assert.match(report.error, /Business Reference/, JSON.stringify(report));
			},
		},
		{
			onN8n1: "a second Retry starts from the original's data: n8n's own per line",
			name: 'changed: a second Retry of the original failed execution (POST /rest/executions/<id>/retry), after its first Retry paid rows and a Business Reference was mapped, pays no row twice and says why',
			async fn() {
				const report = await retryOriginalTwice();
				assert.equal(report.e1, 'error', JSON.stringify(report));
				assert.equal(report.paidAfterE1, 3, JSON.stringify(report));
				assert.equal(report.e2, 'error', JSON.stringify(report));
				assert.deepEqual(report.paidTwice, [], JSON.stringify(report));
				assert.equal(report.paid, 3, JSON.stringify(report));
				assert.match(report.error, /item 1's Business Reference is now ".*", was none/, JSON.stringify(report));
			},
		},
	];
	return { workflows, checks };
}

/**
 * A Money node inside a sub-workflow (issue 22, item 2): parent → Execute Workflow → child paying 6
 * rows, row 4 refused (INSUFFICIENT_FUNDS), balance topped up, then n8n's Retry of the parent in
 * both variants. A Retry of the parent re-runs its Execute Workflow node, which starts a NEW child
 * execution (mode `integrated`) with an empty node context (docs/idempotency.md, "Sub-workflows").
 * Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';

import { BENEFICIARY, keyedWorkflows, OTHER_BENEFICIARY, type CasePart, type Check, type E2eContext } from './case-setup';
import { amountSource, outcomes, rerunTools, rowNodes, UNPACED_CREDENTIAL } from './rerun-tools';
import { money, node, type WorkflowNode } from './workflows';

const PAY = 'Pay';

function executeWorkflowNode(childId: string): WorkflowNode {
	return {
		name: 'Run child',
		type: 'n8n-nodes-base.executeWorkflow',
		typeVersion: 1.2,
		parameters: { source: 'database', workflowId: { __rl: true, mode: 'id', value: childId }, mode: 'once', options: {} },
	};
}

const childTrigger: WorkflowNode = {
	name: 'When called',
	type: 'n8n-nodes-base.executeWorkflowTrigger',
	typeVersion: 1.1,
	parameters: { inputSource: 'passthrough' },
};

export function build(ctx: E2eContext): CasePart {
	const { control, info } = ctx.sandbox;
	const tools = rerunTools(ctx);
	const { ids, wf } = keyedWorkflows('e2eSub');
	const amount = amountSource(71_000);
	const HUGE = 900_000;
	/** Six rows of which the fourth is more than the balance the check leaves. */
	const sixRows = (key: string) =>
		[amount(), amount(), amount(), HUGE + amount(), amount(), amount()].map((value, index) => ({
			identifier: index % 2 ? OTHER_BENEFICIARY : BENEFICIARY,
			amount: value,
			ref: `sub-${key}-${value}`,
		}));
	const pay = (withReference: boolean) =>
		node.money(PAY, money.create('payout', { amount: '={{ $json.amount }}', identifier: '={{ $json.identifier }}', ...(withReference ? { businessReference: '={{ $json.ref }}' } : {}), options: { maxRetries: 0 } }), { cred: UNPACED_CREDENTIAL });

	const children = {
		ChildNoRef: wf('ChildNoRef', 'e2e child paying its rows without Business Reference', [childTrigger, pay(false)]),
		ChildRef: wf('ChildRef', 'e2e child paying its rows with a Business Reference', [childTrigger, pay(true)]),
	};
	const parents = [
		{ key: 'NoRef', child: 'ChildNoRef', rows: sixRows('noref'), loadWorkflow: false },
		{ key: 'RefOriginal', child: 'ChildRef', rows: sixRows('orig'), loadWorkflow: false },
		{ key: 'RefSaved', child: 'ChildRef', rows: sixRows('saved'), loadWorkflow: true },
	];
	const workflows = [
		...Object.values(children),
		...parents.map((parent) => wf(parent.key, `e2e parent calling ${parent.child}`, [node.manualTrigger(), ...rowNodes(parent.rows), executeWorkflowNode(`e2eSub${parent.child}`)])),
	];

	/** n8n 2.x runs only a published sub-workflow outside manual runs; 1.x has nothing to publish for an Execute Workflow Trigger. */
	async function publishChildren(): Promise<void> {
		for (const key of Object.keys(children)) {
			await ctx.api.activateWorkflow(ids[key]).catch((error: Error) => {
				if (!/trigger|poller|webhook/i.test(error.message)) throw error;
			});
		}
	}

	const checks: Check[] = [
		{
			onN8n1: 'n8n 1.x runs a sub-workflow without publishing it, and with its own mode',
			name: 'sub-workflow: Retry of the parent after the child paid 3 of 6 rows pays no row twice (both Retry variants)',
			async fn() {
				await publishChildren();
				const report: Record<string, unknown> = {};
				await tools.withRoomyClient(async () => {
					for (const parent of parents) {
						const amounts = parent.rows.map((row) => row.amount);
						await control.updateClient(info.clientId, { balance: 400_000 });
						const failed = await ctx.run(ids[parent.key], { expectError: true });
						const entry: Record<string, unknown> = { firstRun: failed.execution.status, firstError: String(failed.error && failed.error.message).slice(0, 120) };
						entry.paidByFirstRun = (await tools.ledgerRows('payout', amounts)).length;
						await control.updateClient(info.clientId, { balance: 100_000_000 });
						const retried = await tools.retry(failed.execution.id, parent.loadWorkflow);
						Object.assign(entry, { retry: retried.status, retryError: retried.error && retried.error.slice(0, 160), retryOutcomes: outcomes(retried.output('Run child')) });
						entry.paidAfterRetry = (await tools.ledgerRows('payout', amounts)).length;
						entry.paidTwice = await tools.paidTwice('payout', amounts);
						report[parent.key] = entry;
					}
				});
				ctx.note(`sub-workflow Retry: ${JSON.stringify(report)}`);
				for (const [key, entry] of Object.entries(report) as Array<[string, any]>) {
					assert.deepEqual(entry.paidTwice, [], `${key}: rows paid twice: ${JSON.stringify(report)}`);
				}
				const noRef = report.NoRef as any;
				assert.equal(noRef.paidAfterRetry, 0, 'a child without Business Reference must send nothing');
				assert.match(String(noRef.firstError), /sub-workflow/i);
				for (const key of ['RefOriginal', 'RefSaved']) {
					const entry = report[key] as any;
					assert.equal(entry.paidByFirstRun, 3, `${key}: ${JSON.stringify(entry)}`);
					assert.equal(entry.retry, 'success', `${key}: ${JSON.stringify(entry)}`);
					assert.equal(entry.paidAfterRetry, 6, `${key}: ${JSON.stringify(entry)}`);
					assert.deepEqual(entry.retryOutcomes, ['replayed', 'replayed', 'replayed', 'created', 'created', 'created']);
				}
			},
		},
	];
	return { workflows, checks, credentials: [tools.unpacedCredential] };
}

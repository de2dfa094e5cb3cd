/**
 * Default keys belong to one run, not to ids that repeat across n8n instances (docs/idempotency.md,
 * "How the key is made"): two n8n instances with fresh databases run the same imported workflow
 * with the same credential, once each. Execution ids start at 1 in each database and node ids come
 * with the import, so a key made of them is the same in both, and the second payout would come back
 * as a replay of the first: a payment reported that never happened. Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';

import { moneyCredentialFor } from '../../sandbox/control/credential';
import type { CasePart, Check, E2eContext } from './case-setup';
import { BENEFICIARY, keyedWorkflows } from './case-setup';
import { amountSource, rerunTools } from './rerun-tools';
import { CREDENTIAL, CREDENTIAL_TYPE, money, node } from './workflows';

const PAY = 'Pay';

export function build(ctx: E2eContext): CasePart {
	const { control, info } = ctx.sandbox;
	const { wf } = keyedWorkflows('e2eInst');
	const amount = amountSource(97_000);
	const tools = rerunTools(ctx);

	const checks: Check[] = [
		{
			name: 'two fresh n8n instances run the same imported workflow without a Business Reference, once each: two payouts, both created',
			async fn() {
				const value = amount();
				const workflow = wf('Pay', 'e2e the same workflow on two instances', [
					node.manualTrigger(),
					node.money(PAY, money.create('payout', { amount: value, identifier: BENEFICIARY, requireBusinessReference: false, options: { maxRetries: 0 } })),
				]);
				const credential = { id: CREDENTIAL.id, name: CREDENTIAL.name, type: CREDENTIAL_TYPE, data: moneyCredentialFor(info, { velocityLimit: 1000 }) };
				const runs: Array<Array<{ outcome: unknown; key: unknown }>> = [];
				await tools.withRoomyClient(async () => {
					for (const instance of [ctx.freshN8n(), ctx.freshN8n()]) {
						await instance.import('import:credentials', [credential]);
						await instance.import('import:workflow', [workflow]);
						const run = await instance.cli(['execute', `--id=${workflow.id}`, '--rawOutput']);
						const items = (run.json && run.json.data && run.json.data.resultData.runData[PAY][0].data.main[0]) || [];
						runs.push(items.map((item: { json: Record<string, unknown> }) => ({ outcome: item.json.outcome, key: item.json.idempotency_key })));
					}
				});
				const paid = (await control.ledger()).payouts.filter((entry) => Math.abs(entry.amount.value) === value).length;
				ctx.note(`two instances: ${JSON.stringify({ runs, paid })}`);
				assert.deepEqual(runs.map((items) => items.map((item) => item.outcome)), [['created'], ['created']], JSON.stringify(runs));
				assert.equal(paid, 2);
			},
		},
	];
	return { workflows: [], checks };
}

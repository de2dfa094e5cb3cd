/**
 * Money node version 2 in a real n8n server (issue 22, item 10; docs/decisions.md#d8): the version
 * the editor adds; a create in a production execution (here `n8n execute`) without a Business
 * Reference is refused before any request unless the node turns the requirement off; its create
 * items say what they were sent with (issue 24, item 6); and a Retry of a run with Business
 * References whose Message is evaluated again pays every row once. Run by scripts/e2e.ts after
 * resends.ts.
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';

import { amountSequence, BENEFICIARY, type CasePart, type Check, type E2eContext, keyedWorkflows, ledgerByAmount, OTHER_BENEFICIARY, retryExecution, rowNodes, uniqueAmount } from './case-setup';
import { money, node, PACK, type WorkflowNode } from './workflows';

const PAY = 'Pay';
const V2 = { version: 2 as const };

export function build(ctx: E2eContext): CasePart {
	const { control, info } = ctx.sandbox;
	const { ids, wf } = keyedWorkflows('e2eV2');
	const amount = amountSequence(87_000);
	const noReference = [amount(), amount()];
	const optedOut = [amount(), amount()];
	const referenced = Array.from({ length: 6 }, () => amount());
	referenced[3] = uniqueAmount(940_000 + crypto.randomInt(0, 1000));
	const run = crypto.randomBytes(3).toString('hex');

	const rows = (amounts: number[]) =>
		amounts.map((value, index) => ({ amount: value, identifier: index % 2 ? OTHER_BENEFICIARY : BENEFICIARY, order: `v2-${run}-${value}` }));
	const pay = (fields: Record<string, unknown>) =>
		node.money(PAY, money.create('payout', { amount: '={{ $json.amount }}', identifier: '={{ $json.identifier }}', options: { maxRetries: 0 }, ...fields }), V2);
	const flow = (amounts: number[], fields: Record<string, unknown>): WorkflowNode[] => [node.manualTrigger(), ...rowNodes(rows(amounts)), pay(fields)];
	const workflows = [
		wf('NoRef', 'e2e v2 payouts without a Business Reference', flow(noReference, {})),
		wf('OptOut', 'e2e v2 payouts, Business Reference not required', flow(optedOut, { requireBusinessReference: false })),
		wf('RefNow', 'e2e v2 payout run with Business References, Message {{ $now }}', flow(referenced, { businessReference: '={{ $json.order }}', additionalFields: { message: '=Paid at {{ $now.toISO() }}' } })),
	];

	async function payoutRequests(): Promise<number> {
		return (await control.counters()).requests.post_money_v1_payout || 0;
	}

	const checks: Check[] = [
		{
			name: 'v2: n8n serves the Money node as versions 1 and 2 and adds version 2',
			async fn() {
				const res = await ctx.session.request('GET', '/types/nodes.json');
				assert.equal(res.status, 200, `GET /types/nodes.json answered ${res.status}`);
				const moneyTypes = (res.json as Array<{ name: string; version: unknown; defaultVersion?: number }>).filter((type) => type.name === `${PACK}.money`);
				assert.ok(moneyTypes.length > 0, 'the Money node is not served');
				assert.deepEqual(moneyTypes[0].version, [1, 2]);
				assert.equal(moneyTypes[0].defaultVersion, 2);
			},
		},
		{
			name: 'v2: payouts without a Business Reference in a production execution are refused before any request',
			async fn() {
				await control.updateClient(info.clientId, { limits: { velocityLimit: 1000, velocityWindowSeconds: 300 }, balance: 100_000_000 });
				const before = await payoutRequests();
				const refused = await ctx.run(ids.NoRef, { expectError: true });
				assert.equal(refused.execution.status, 'error');
				assert.match(String(refused.error && refused.error.message), /Business Reference.*required in production executions.*Require Business Reference/);
				assert.equal(await payoutRequests(), before);
				assert.deepEqual(await ledgerByAmount(control, 'payout', noReference), []);
			},
		},
		{
			name: 'v2: with the requirement turned off they are paid, each item saying what it was sent with',
			async fn() {
				const r = await ctx.run(ids.OptOut);
				const items = r.output(PAY);
				assert.deepEqual(
					items.map((item) => ({ amount: item.amount, currency: item.currency, party: item.beneficiary_identifier, channel: item.channel, ref: item.business_reference, outcome: item.outcome })),
					optedOut.map((value, index) => ({
						amount: value,
						currency: 'XOF',
						party: { identifier: index % 2 ? OTHER_BENEFICIARY : BENEFICIARY, type: 'gm_account' },
						channel: 'psp-a-tg',
						ref: null,
						outcome: 'created',
					})),
				);
				assert.equal((await ledgerByAmount(control, 'payout', optedOut)).length, 2);
			},
		},
		{
			name: 'v2: Retry of a payout run with Business References whose Message is {{ $now }} (row 4 overdrew) pays rows 1-3 once, no conflict',
			async fn() {
				await control.updateClient(info.clientId, { balance: referenced[0] + referenced[1] + referenced[2] + 10_000 });
				const failed = await ctx.run(ids.RefNow, { expectError: true });
				assert.match(String(failed.error && failed.error.message), /INSUFFICIENT_FUNDS/);
				await control.updateClient(info.clientId, { balance: 100_000_000 });
				const retried = await retryExecution(ctx, failed.execution.id, false);
				const items = retried.output(PAY);
				assert.equal(retried.execution.status, 'success', String(JSON.stringify(retried.execution.data && retried.execution.data.resultData.error)).slice(0, 400));
				assert.deepEqual(items.map((item) => item.outcome), ['replayed', 'replayed', 'replayed', 'created', 'created', 'created']);
				assert.deepEqual(items.map((item) => item.business_reference), rows(referenced).map((row) => row.order));
				const paid = (await ledgerByAmount(control, 'payout', referenced)).map((entry) => Math.abs(entry.amount.value));
				assert.deepEqual([...paid].sort(), [...referenced].sort());
			},
		},
	];
	return { workflows, checks };
}

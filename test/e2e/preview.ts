/**
 * Preview Only (issue 31 item 8) in a real n8n server: a preview of a payout sheet sends no create,
 * and its verdicts are what the real run of the same sheet then does. Used by cases.ts (its checks
 * run after the token check there: this file's credential fetches a token of its own).
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';

import { moneyCredentialFor } from '../../sandbox/control/credential';
import type { Json } from '../../scripts/n8n';
import { BENEFICIARY, type Check, type E2eContext, type KeyedWorkflows } from './case-setup';
import { amountSource, rerunTools, rowNodes } from './rerun-tools';
import { CREDENTIAL_TYPE, money, node, type CredentialRef } from './workflows';

/** Two payouts per minute: the third payout of a run would wait past a Maximum Total Wait of half a minute. */
const SLOW_CREDENTIAL: CredentialRef = { id: 'e2eMoneyCredPreview', name: 'Money sandbox, 2 payouts per minute (e2e preview)' };
const PAY = 'Pay sheet';

export function build(ctx: E2eContext, { ids, wf }: KeyedWorkflows) {
	const tools = rerunTools(ctx);
	const amount = amountSource(57_000);
	const run = crypto.randomBytes(3).toString('hex');
	// Good, a bad amount, good, then two rows past the run's Maximum Total Wait.
	const sheet = [amount(), 'abc', amount(), amount(), amount()].map((value, index) => ({ ref: `e2e-preview-${run}-${index + 1}`, amount: value }));
	const amounts = sheet.map((row) => row.amount).filter((value): value is number => typeof value === 'number');
	const pay = (preview: boolean) =>
		node.money(
			PAY,
			{
				...money.create('payout', { amount: '={{ $json.amount }}', identifier: BENEFICIARY, businessReference: '={{ $json.ref }}', options: { maxRetries: 0, maxTotalWaitMinutes: 0.5 } }),
				preview,
			},
			{ cred: SLOW_CREDENTIAL, continueOnFail: true },
		);
	const workflows = [
		wf('Preview', 'e2e payout sheet, Preview Only', [node.manualTrigger(), ...rowNodes(sheet), pay(true)]),
		wf('PreviewReal', 'e2e payout sheet, run for real', [node.manualTrigger(), ...rowNodes(sheet), pay(false)]),
	];

	const payoutPosts = async () => (await ctx.sandbox.control.counters()).requests.post_money_v1_payout || 0;

	const checks: Check[] = [
		{
			name: 'preview: a Preview Only run of a payout sheet sends no create, and the real run does what its verdicts said',
			async fn() {
				await tools.withRoomyClient(async () => {
					const before = await payoutPosts();
					const preview = await ctx.run(ids.Preview);
					const verdicts = preview.output(PAY);
					assert.deepEqual(
						verdicts.map((item: Json) => item.verdict),
						['would send', 'would refuse', 'would send', 'would refuse', 'would refuse'],
						JSON.stringify(verdicts).slice(0, 600),
					);
					assert.equal(await payoutPosts(), before, 'the preview sent a payout');
					assert.deepEqual(await tools.ledgerRows('payout', amounts), [], 'the ledger holds a payout of the preview');
					const hints = JSON.stringify(preview.execution.data?.resultData?.runData?.[PAY]?.[0]?.hints ?? []);
					assert.ok(hints.includes('nothing was sent: 2 of 5 rows would be sent'), `hints: ${hints.slice(0, 400)}`);

					const real = (await ctx.run(ids.PreviewReal)).output(PAY);
					const did = real.map((item: Json) => (item.outcome === 'failed' ? { verdict: 'would refuse', reason: item.error } : { verdict: 'would send', reason: null }));
					assert.deepEqual(did, verdicts.map((item: Json) => ({ verdict: item.verdict, reason: item.reason })));
					const paid = (await tools.ledgerRows('payout', amounts)).map((row) => Math.abs(row.amount.value)).sort();
					assert.deepEqual(paid, [amounts[0], amounts[1]].sort());
				});
			},
		},
	];
	const credentials = [{ id: SLOW_CREDENTIAL.id, name: SLOW_CREDENTIAL.name, type: CREDENTIAL_TYPE, data: moneyCredentialFor(ctx.sandbox.info, { velocityLimit: 2, velocityWindowSeconds: 60 }) }];
	return { workflows, checks, credentials };
}

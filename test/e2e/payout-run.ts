/**
 * Payout runs at scale (issue 15) in a real n8n server: the sandbox's velocity set small (5
 * payouts per rolling 2 s) and a second Money credential that says so. Used by cases.ts.
 */

import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';

import { moneyCredentialFor } from '../../sandbox/control/credential';
import { accepted } from '../harness/outcome';
import { BENEFICIARY, type Check, type E2eContext, type KeyedWorkflows } from './case-setup';
import { CREDENTIAL_TYPE, money, node, webhookIdFor, type CredentialRef } from './workflows';

const VELOCITY = { velocityLimit: 5, velocityWindowSeconds: 2 };
const PACED_CREDENTIAL: CredentialRef = { id: 'e2eMoneyCredPaced01', name: 'Money sandbox, 5 payouts per 2 s (e2e)' };
const HIGH_CAPS = { dailyCap: 500_000_000, monthlyCap: 5_000_000_000 };
const MONEY = 'Send payouts';

function rows(count: number, amount = 1000) {
	return { rows: Array.from({ length: count }, (_, index) => ({ index, amount })) };
}

function payoutRun(options = {}) {
	return money.create('payout', { amount: '={{ $json.amount }}', identifier: BENEFICIARY, channel: 'psp-a-tg', options });
}

/** The payout-run workflows, registered with the builder of cases.ts (its secret scan reads their executions too). */
export function build(ctx: E2eContext, { ids, wf }: KeyedWorkflows) {
	const { control, info } = ctx.sandbox;
	const paced = { cred: PACED_CREDENTIAL, continueOnFail: true };
	const runOf = (count: number, options?: Record<string, unknown>, amount?: number) => [
		node.rawJson('Rows', rows(count, amount)),
		node.splitOut('One item per row', 'rows'),
		node.money(MONEY, payoutRun(options), paced),
	];
	const hooks = { a: webhookIdFor('e2e payout run a'), b: webhookIdFor('e2e payout run b') };
	const workflows = [
		wf('PayRunA', 'e2e payout run A (webhook)', [node.webhook('Webhook', 'e2e-payrun-a', hooks.a), ...runOf(12)]),
		wf('PayRunB', 'e2e payout run B (webhook)', [node.webhook('Webhook', 'e2e-payrun-b', hooks.b), ...runOf(12)]),
		wf('PayRunCap', 'e2e payout run meets the daily cap', [node.manualTrigger(), ...runOf(30)]),
		wf('PayRunBalance', 'e2e payout run, balance checked first', [node.manualTrigger(), ...runOf(30, { checkBalanceFirst: true })]),
	];

	/** The sandbox client's limits for a paced run; earlier payouts leave the rolling window first. */
	async function paceSandbox(limits: Record<string, number> = {}): Promise<void> {
		await control.updateClient(info.clientId, { limits: { ...VELOCITY, ...HIGH_CAPS, ...limits } });
		await sleep(VELOCITY.velocityWindowSeconds * 1000 + 100);
	}

	async function countersDelta<T>(run: () => Promise<T>) {
		const before = await control.counters();
		const result = await run();
		const after = await control.counters();
		const requests = (slug: string) => (after.requests[slug] || 0) - (before.requests[slug] || 0);
		return { result, after, payouts: requests('post_money_v1_payout'), accountReads: requests('get_money_v1_account'), rejected: after.rejected - before.rejected };
	}

	const succeeded = (items: any[]) => items.filter((item) => accepted(item) && typeof item.reference === 'string');

	const checks: Check[] = [
		{
			name: 'payout run: another workflow paying at the same time is waited out',
			async fn() {
				await ctx.api.activateWorkflow(ids.PayRunA);
				await ctx.api.activateWorkflow(ids.PayRunB);
				try {
					await paceSandbox();
					const { after, payouts, rejected } = await countersDelta(async () => {
						const known = new Set((await ctx.api.listExecutions({ includeData: false })).map((e) => String(e.id)));
						const answers = await Promise.all(['e2e-payrun-a', 'e2e-payrun-b'].map((path) => fetch(`${ctx.n8n.url}/webhook/${path}`, { method: 'POST' })));
						assert.deepEqual(answers.map((answer) => answer.status), [200, 200]);
						for (const id of [ids.PayRunA, ids.PayRunB]) {
							await ctx.api.waitForExecutions(id, (ex) => ex.some((e) => !known.has(String(e.id))), { timeoutMs: 120_000 });
						}
					});
					const items: any[] = [];
					for (const id of [ids.PayRunA, ids.PayRunB]) {
						const [execution] = await ctx.api.listExecutions({ workflowId: id, limit: 1 });
						assert.equal(execution.status, 'success');
						items.push(...(ctx.output(execution, MONEY) as any[]));
					}
					assert.equal(succeeded(items).length, 24, JSON.stringify(items.find((item) => !accepted(item)) || {}).slice(0, 400));
					assert.ok(rejected > 0, 'the two runs never competed for the window');
					assert.equal(payouts, 24 + rejected, 'a refused create was not resent exactly once per refusal');
					for (const item of items) assert.equal(after.createsByIdempotencyKey[item.idempotency_key], 1);
				} finally {
					await ctx.api.deactivateWorkflow(ids.PayRunA);
					await ctx.api.deactivateWorkflow(ids.PayRunB);
				}
			},
		},
		{
			name: 'payout run: a daily cap reached at item 12 fails items 12-30, 13-30 without a request',
			async fn() {
				const ledger = await control.ledger();
				const usedToday = ledger.payouts
					.filter((p) => p.amount.currency === 'XOF' && !['FAILED', 'CANCELLED', 'REVERSED'].includes(p.status.label))
					.reduce((sum, p) => sum - p.amount.value, 0);
				await paceSandbox({ velocityLimit: 1000, dailyCap: usedToday + 11 * 1000 });
				const { result, payouts } = await countersDelta(() => ctx.run(ids.PayRunCap));
				const items = result.output(MONEY);
				assert.equal(succeeded(items.slice(0, 11)).length, 11);
				assert.equal(items[11].error_code, 'LIMIT_EXCEEDED');
				assert.equal(items[11].outcome, 'failed');
				for (const item of items.slice(12)) {
					assert.equal(item.attempted, false, JSON.stringify(item).slice(0, 300));
					assert.match(item.error, /daily payout cap of \d+ XOF was reached at item 12/);
					assert.match(item.idempotency_key, /^[0-9a-f-]{36}$/);
				}
				assert.equal(payouts, 12, `${payouts} payout requests`);
			},
		},
		{
			name: 'payout run: Check Balance First refuses a run that would overdraw and moves nothing',
			async fn() {
				await paceSandbox();
				const { balance } = await control.ledger();
				await control.updateClient(info.clientId, { balance: 10_000 });
				try {
					const { result, payouts, accountReads } = await countersDelta(() => ctx.run(ids.PayRunBalance));
					const items = result.output(MONEY);
					assert.equal(items.length, 30);
					assert.ok(items.every((item) => item.error_code === 'RUN_EXCEEDS_BALANCE' && item.attempted === false));
					assert.match(items[0].error, /30 payouts total 30000 XOF, the wallet \S+ has 10000 XOF available, short by 20000 XOF/);
					assert.equal(payouts, 0);
					assert.equal(accountReads, 1);
					assert.equal((await control.ledger()).balance.value, 10_000);
				} finally {
					await control.updateClient(info.clientId, { balance: balance.value });
				}
			},
		},
	];
	const credentials = [{ id: PACED_CREDENTIAL.id, name: PACED_CREDENTIAL.name, type: CREDENTIAL_TYPE, data: moneyCredentialFor(info, VELOCITY) }];
	return { workflows, checks, credentials, paceSandbox, PACED_CREDENTIAL };
}

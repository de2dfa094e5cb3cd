/**
 * A resend is the same request (issue 22, items 1 and 7; docs/idempotency.md): in a real n8n
 * server, a Retry of a failed execution sends the creates it repeats under the same idempotency
 * keys and with the same bytes, although the Message and Metadata are expressions that n8n
 * evaluates again (`{{ $execution.id }}`, `{{ $now }}`), and although n8n was restarted between the
 * two sends (the RSA-encrypted PIN is no longer in any process's memory). The sandbox compares a
 * repeated key's body byte for byte, as a strict API does, and answers IDEMPOTENCY_CONFLICT to any
 * other body. Run by scripts/e2e.ts after reruns.ts.
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';

import type { Json } from '../../scripts/n8n';
import { amountSequence, BENEFICIARY, type CasePart, type Check, type E2eContext, keyedWorkflows, ledgerByAmount, OTHER_BENEFICIARY, retryExecution, rowNodes, uniqueAmount } from './case-setup';
import { money, node, type WorkflowNode } from './workflows';

const UNKNOWN_BENEFICIARY = 'GM-0404';
const NO_RETRIES = { maxRetries: 0 };
const PAY = 'Pay';

/** Payout parameters mapped from each row, with the given Message and Metadata (free text the key must not depend on). */
function payout(additionalFields: Record<string, unknown>) {
	return money.create('payout', { amount: '={{ $json.amount }}', identifier: '={{ $json.identifier }}', additionalFields, options: NO_RETRIES });
}

const EXECUTION_MESSAGE = { message: '=Payout run {{ $execution.id }}' };
const TIME_MESSAGE = {
	message: "=Paid at {{ $now.toISO() }}",
	metadata: { entries: [{ key: 'sent_at', value: '={{ $now.toMillis() }}' }, { key: 'row', value: '={{ $json.row }}' }] },
};

export function build(ctx: E2eContext): CasePart {
	const { control, info } = ctx.sandbox;
	const { ids, wf } = keyedWorkflows('e2eRs');
	const amount = amountSequence(83_000);
	const sixRows = () => Array.from({ length: 6 }, () => amount());
	const E = sixRows();
	const N = sixRows();
	const B = sixRows();
	const R = amount();
	const OVERDRAWING = uniqueAmount(930_000 + crypto.randomInt(0, 1000));
	E[3] = OVERDRAWING;
	B[3] = uniqueAmount(940_000 + crypto.randomInt(0, 1000));
	const run = crypto.randomBytes(3).toString('hex');

	const rows = (amounts: number[], identifierOf: (index: number) => string) =>
		amounts.map((value, index) => ({ row: index + 1, amount: value, identifier: identifierOf(index) }));
	const payoutRun = (rowList: unknown[], fields: Record<string, unknown>): WorkflowNode[] => [node.manualTrigger(), ...rowNodes(rowList), node.money(PAY, payout(fields))];
	const workflows = [
		wf('ExecId', 'e2e payout run, Message {{ $execution.id }}', payoutRun(rows(E, (i) => (i % 2 ? OTHER_BENEFICIARY : BENEFICIARY)), EXECUTION_MESSAGE)),
		wf('Now', 'e2e payout run, Message and Metadata {{ $now }}', payoutRun(rows(N, (i) => (i === 3 ? UNKNOWN_BENEFICIARY : BENEFICIARY)), TIME_MESSAGE)),
		wf('RefNow', 'e2e payout run with Business References, Message {{ $now }}', [
			node.manualTrigger(),
			...rowNodes(rows(B, (i) => (i % 2 ? OTHER_BENEFICIARY : BENEFICIARY)).map((row) => ({ ...row, order: `rs-${run}-${row.amount}` }))),
			node.money(PAY, money.create('payout', { amount: '={{ $json.amount }}', identifier: '={{ $json.identifier }}', businessReference: '={{ $json.order }}', additionalFields: TIME_MESSAGE, options: NO_RETRIES })),
		]),
		wf('Restart', 'e2e payout whose answer is lost, resent after an n8n restart', payoutRun(rows([R], () => BENEFICIARY), { message: 'Same text every time' })),
	];

	/** Raises the sandbox client's velocity limit (payout-run.ts leaves it at 5 per 2 s) and gives its wallet room. */
	async function roomToPay(): Promise<void> {
		await control.updateClient(info.clientId, { limits: { velocityLimit: 1000, velocityWindowSeconds: 300 }, balance: 100_000_000 });
		assert.equal((await control.health()).idempotencyFingerprint, 'raw', 'the sandbox must compare repeated bodies byte for byte');
	}

	/** Each of `amounts` paid exactly once, each key committed once; the items' outcomes as listed. */
	async function assertPaidOnce(amounts: number[], items: Json[], outcomes: string[]): Promise<void> {
		const conflicts = items.filter((item) => item.error_code === 'IDEMPOTENCY_CONFLICT');
		assert.deepEqual(conflicts, [], 'a resend was refused as another body under the same key');
		const paid = (await ledgerByAmount(control, 'payout', amounts)).map((entry) => Math.abs(entry.amount.value));
		const twice = amounts.filter((value) => paid.filter((entry) => entry === value).length > 1);
		assert.deepEqual(twice, [], `paid twice: ${JSON.stringify(twice)} (outcomes ${JSON.stringify(items.map((item) => item.outcome))})`);
		assert.deepEqual([...paid].sort(), [...amounts].sort(), 'not every row was paid');
		assert.deepEqual(
			items.map((item) => item.outcome),
			outcomes,
		);
		const counters = await control.counters();
		for (const item of items) assert.equal(counters.createsByIdempotencyKey[item.idempotency_key], 1, `key ${item.idempotency_key}`);
	}

	const checks: Check[] = [
		{
			name: 'resend: Retry of a payout run whose Message is {{ $execution.id }} (row 4 overdrew, wallet topped up) pays rows 1-3 once',
			async fn() {
				await roomToPay();
				await control.updateClient(info.clientId, { balance: E[0] + E[1] + E[2] + 10_000 });
				const failed = await ctx.run(ids.ExecId, { expectError: true });
				assert.match(String(failed.error && failed.error.message), /INSUFFICIENT_FUNDS/);
				assert.equal((await ledgerByAmount(control, 'payout', E)).length, 3);
				await control.updateClient(info.clientId, { balance: 100_000_000 });
				const retried = await retryExecution(ctx, failed.execution.id, false);
				assert.equal(retried.execution.status, 'success', JSON.stringify(retried.execution.data && retried.execution.data.resultData.error));
				await assertPaidOnce(E, retried.output(PAY), ['replayed', 'replayed', 'replayed', 'created', 'created', 'created']);
			},
		},
		{
			name: 'resend: Retry with the currently saved workflow of a payout run whose Message and Metadata are {{ $now }} (row 4 fixed) pays rows 1-3 once',
			async fn() {
				await roomToPay();
				const failed = await ctx.run(ids.Now, { expectError: true });
				assert.match(String(failed.error && failed.error.message), /BENEFICIARY_NOT_FOUND/);
				assert.equal((await ledgerByAmount(control, 'payout', N)).length, 3);
				const saved = await ctx.api.getWorkflow(ids.Now);
				const pay = saved.nodes.find((n: WorkflowNode) => n.name === PAY);
				pay.parameters.beneficiaryIdentifier = `={{ $json.identifier === '${UNKNOWN_BENEFICIARY}' ? '${OTHER_BENEFICIARY}' : $json.identifier }}`;
				await ctx.api.call('PUT', `/workflows/${ids.Now}`, { name: saved.name, nodes: saved.nodes, connections: saved.connections, settings: saved.settings });
				const retried = await retryExecution(ctx, failed.execution.id, true);
				assert.equal(retried.execution.status, 'success', JSON.stringify(retried.execution.data && retried.execution.data.resultData.error));
				await assertPaidOnce(N, retried.output(PAY), ['replayed', 'replayed', 'replayed', 'created', 'created', 'created']);
			},
		},
		{
			name: 'resend: Retry of a payout run with Business References whose Message is {{ $now }} (row 4 overdrew) pays rows 1-3 once, no conflict',
			async fn() {
				await roomToPay();
				await control.updateClient(info.clientId, { balance: B[0] + B[1] + B[2] + 10_000 });
				const failed = await ctx.run(ids.RefNow, { expectError: true });
				assert.match(String(failed.error && failed.error.message), /INSUFFICIENT_FUNDS/);
				await control.updateClient(info.clientId, { balance: 100_000_000 });
				const retried = await retryExecution(ctx, failed.execution.id, false);
				assert.equal(retried.execution.status, 'success', JSON.stringify(retried.execution.data && retried.execution.data.resultData.error));
				const items = retried.output(PAY);
				await assertPaidOnce(B, items, ['replayed', 'replayed', 'replayed', 'created', 'created', 'created']);
				assert.deepEqual(items.map((item) => item.business_reference), B.map((value) => `rs-${run}-${value}`));
			},
		},
		{
			name: 'resend: after an n8n restart, a Retry resends the same bytes (PIN RSA-encrypted, raw bodies compared): the lost payout is paid once',
			async fn() {
				await roomToPay();
				await control.addFault({ route: 'post_money_v1_payout', kind: 'drop-after-commit', count: 1 });
				let failedId: string | number;
				try {
					const failed = await ctx.run(ids.Restart, { expectError: true });
					failedId = failed.execution.id;
					assert.equal((await ledgerByAmount(control, 'payout', [R])).length, 1, 'the API committed the payout');
				} finally {
					await control.clearFaults();
				}
				assert.ok(info.rsaPublicKeyPem, 'the e2e credential sends the PIN encrypted');
				await ctx.restartN8n();
				const retried = await retryExecution(ctx, failedId, false);
				const items = retried.output(PAY);
				const conflict = items.find((item) => item.error_code === 'IDEMPOTENCY_CONFLICT');
				const error = retried.execution.data && retried.execution.data.resultData.error;
				if (conflict || /IDEMPOTENCY_CONFLICT/.test(String(error && error.message))) {
					assert.fail(`the resend was another body: ${JSON.stringify(error || conflict).slice(0, 400)}`);
				}
				await assertPaidOnce([R], items, ['created']);
			},
		},
	];
	return { workflows, checks };
}

/**
 * Payout scenarios in queue mode: a faulty 1,000-item run over both workers (scenario 1), a worker
 * killed mid-run and n8n's Retry (scenario 2), and payouts per minute with two workers vs one.
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';

import type { Execution } from '../n8n';
import type { QueueContext, ScenarioReport } from './context';
import * as h from './helpers';

export const PAYOUT_ROUTE = 'post_money_v1_payout';

/** POST each batch of rows to a payout workflow's webhook, all at once. */
export async function startBatches(ctx: QueueContext, path: string, batches: unknown[][]): Promise<void> {
	const url = `${ctx.topology.webhookUrl}/webhook/${path}`;
	const answers = await Promise.all(batches.map((rows) => h.postJson(url, { rows })));
	const refused = answers.filter((a) => a.status !== 200);
	assert.equal(refused.length, 0, `the webhook process refused ${refused.length} batches: ${refused.map((a) => `${a.status} ${a.text.slice(0, 200)}`).join('; ')}`);
}

/** Items each Pay node returned, over the given executions (read with their data). */
export async function paidItems(ctx: QueueContext, executions: Execution[]): Promise<any[]> {
	const items: any[] = [];
	for (const e of executions) {
		const full = await ctx.api.getExecution(e.id, true);
		items.push(...(ctx.output(full, 'Pay') || []));
	}
	return items;
}

/**
 * Scenario 1: `total` payouts in `batches` executions on both workers, with 10% of creates dropped
 * after commit, 5% answered 503, and every token revoked after each 100 calls.
 */
export async function faultyRun(ctx: QueueContext, { withReference, total = 1000, batches = 10 }: { withReference: boolean; total?: number; batches?: number }): Promise<ScenarioReport> {
	const { control, api } = ctx;
	const workflowId = withReference ? ctx.ids.payoutsRef : ctx.ids.payoutsDefault;
	const path = withReference ? ctx.paths.payoutsRef : ctx.paths.payoutsDefault;
	const tag = crypto.randomBytes(3).toString('hex');
	const rows = h.rows(`q1-${tag}`, total);
	const known = new Set((await h.executionsOf(api, workflowId)).map((e) => String(e.id)));
	const ledgerBefore = await control.ledger();
	const countersBefore = await control.counters();

	await control.clearFaults();
	await control.addFault({ route: PAYOUT_ROUTE, kind: 'drop-after-commit', rate: 0.1 });
	await control.addFault({ route: PAYOUT_ROUTE, kind: '503', rate: 0.05 });
	await control.call('PUT', '/revoke-every', { every: 100 });
	const t0 = Date.now();
	try {
		await startBatches(ctx, path, h.chunk(rows, Math.ceil(total / batches)));
		await h.waitSettled(api, workflowId, { count: known.size + batches, timeoutMs: 600_000 });
	} finally {
		await control.clearFaults();
		await control.call('PUT', '/revoke-every', { every: null });
	}
	const seconds = (Date.now() - t0) / 1000;
	const executions = (await h.executionsOf(api, workflowId)).filter((e) => !known.has(String(e.id)));
	assert.equal(executions.length, batches, `expected ${batches} executions, got ${executions.length}`);
	const failedRuns = executions.filter((e) => e.status !== 'success');
	assert.equal(failedRuns.length, 0, `executions not successful: ${failedRuns.map((e) => `${e.id} ${e.status}`).join(', ')}`);

	// Both workers ran executions of this run, and at the same time.
	const workerOf = h.workerOfExecutions(ctx.topology);
	const byWorker = h.tally(executions.map((e) => workerOf.get(String(e.id)) || 'unknown'));
	const onTwo = executions.filter((e) => workerOf.get(String(e.id)));
	const concurrent = onTwo.some((a) => onTwo.some((b) => workerOf.get(String(a.id)) !== workerOf.get(String(b.id)) && h.overlaps(a, b)));
	assert.ok(byWorker.size >= 2 && !byWorker.has('unknown'), `executions per worker: ${JSON.stringify(Object.fromEntries(byWorker))}`);
	assert.ok(concurrent, 'no two executions on different workers overlapped in time');

	// The ledger: exactly `total` new payouts, each idempotency key committed once.
	const ledgerAfter = await control.ledger();
	const countersAfter = await control.counters();
	const created = h.newPayouts(ledgerBefore, ledgerAfter);
	const keys = h.tally(created.map((p) => p.idempotency_key as string));
	assert.equal(created.length, total, `${created.length} payouts in the ledger for ${total} rows`);
	assert.equal(keys.size, total, `${total - keys.size} keys were paid more than once`);
	for (const key of keys.keys()) assert.equal(countersAfter.createsByIdempotencyKey[key], 1, `key ${key} committed ${countersAfter.createsByIdempotencyKey[key]} times`);
	if (withReference) {
		const expected = new Set(rows.map((r) => h.keyForReference(r.ref)));
		assert.ok([...keys.keys()].every((k) => expected.has(k)), 'a payout carries a key not derived from its Business Reference');
	}
	const items = await paidItems(ctx, executions);
	assert.equal(items.length, total, `the Pay nodes returned ${items.length} items`);
	assert.deepEqual(new Set(items.map((i) => i.idempotency_key)), new Set(keys.keys()), 'node outputs and ledger disagree on the keys');

	const calls = h.totalRequests(countersAfter) - h.totalRequests(countersBefore);
	const tokens = countersAfter.tokenRequests - countersBefore.tokenRequests;
	const revocations = Math.floor(calls / 100);
	const inFlightMax = ctx.topology.workers.length * ctx.concurrency;
	// No refresh storm: after a revocation at most every execution in flight fetches one token.
	assert.ok(tokens <= (revocations + 1) * inFlightMax, `${tokens} token requests for ${revocations} revocations`);
	return {
		items: total,
		executions: batches,
		executionsPerWorker: Object.fromEntries(byWorker),
		seconds,
		payoutsPerMinute: Math.round((total / seconds) * 60),
		apiCalls: calls,
		faultsInjected: countersAfter.faultsInjected - countersBefore.faultsInjected,
		idempotentReplays: countersAfter.idempotentReplays - countersBefore.idempotentReplays,
		rejected401: countersAfter.rejected401 - countersBefore.rejected401,
		revocations,
		tokenRequests: tokens,
	};
}

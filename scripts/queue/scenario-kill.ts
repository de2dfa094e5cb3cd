/**
 * Scenario 2: a worker is killed (SIGKILL) in the middle of a payout run. Reported: every status
 * n8n shows for that execution and when (2.41 sets Bull's maxStalledCount to 0: the job is not
 * handed to another worker; the stalled job fails and the leader's queue recovery marks dangling
 * executions crashed). Then n8n's Retry (POST /rest/executions/:id/retry, as the Executions list
 * does it), and a re-send of the same rows, the one recovery left to a user when the Retry has
 * nothing to resume. Asserted: the Retry pays no key twice; with a Business Reference the
 * re-send completes the run with each row paid exactly once. Without one (default key) the
 * re-send is a new execution, hence new keys: the rows paid twice are a reported figure.
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';

import type { Execution } from '../n8n';
import type { QueueContext, ScenarioReport } from './context';
import * as h from './helpers';
import { PAYOUT_ROUTE, startBatches } from './scenario-payouts';

/** Poll until fn() returns a truthy value. */
export async function until<T>(what: string, fn: () => Promise<T>, { timeoutMs, intervalMs = 250 }: { timeoutMs: number; intervalMs?: number }): Promise<NonNullable<T>> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await fn();
		if (value) return value as NonNullable<T>;
		if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		await h.sleep(intervalMs);
	}
}

export async function killDuringRun(ctx: QueueContext, { withReference, total = 300, killAfter = 60 }: { withReference: boolean; total?: number; killAfter?: number }): Promise<ScenarioReport> {
	const { control, api, topology } = ctx;
	const workflowId = withReference ? ctx.ids.payoutsRef : ctx.ids.payoutsDefault;
	const path = withReference ? ctx.paths.payoutsRef : ctx.paths.payoutsDefault;
	const rows = h.rows(`q2-${crypto.randomBytes(3).toString('hex')}`, total);
	const known = new Set((await h.executionsOf(api, workflowId)).map((e) => String(e.id)));
	const ledgerBefore = await control.ledger();
	const report: ScenarioReport = { items: total, withReference };

	// Slow the API down so the run is still going when the worker dies.
	await control.clearFaults();
	await control.addFault({ route: PAYOUT_ROUTE, kind: 'delay', delayMs: 40, rate: 1 });
	await startBatches(ctx, path, [rows]);
	const paidSoFar = async () => h.newPayouts(ledgerBefore, await control.ledger()).length;
	await until(`${killAfter} payouts`, async () => (await paidSoFar()) >= killAfter, { timeoutMs: 120_000 });
	const execution = (await h.executionsOf(api, workflowId)).find((e) => !known.has(String(e.id)));
	assert.ok(execution, 'no execution for the batch');
	const workerName = await until('the worker of the run', async () => h.workerOfExecutions(topology).get(String(execution.id)), { timeoutMs: 10_000 });
	const victim = topology.workers.find((w) => w.name === workerName);
	if (!victim) throw new Error(`no worker ${workerName}`);
	process.kill(victim.process.pid as number, 'SIGKILL');
	const killedAt = Date.now();
	report.paidBeforeKill = await paidSoFar();
	report.killedWorker = workerName;
	await victim.stop(); // reaps its task runner (same process group)
	topology.workers = topology.workers.filter((w) => w !== victim);
	await control.clearFaults();
	await h.sleep(1000);
	report.paidAfterKill = await paidSoFar();

	// A replacement worker, so the topology has two again.
	const replacement = topology.startWorker();
	replacement.catch(() => {}); // awaited below

	// What n8n does with the execution of the dead worker: every status it shows, with when.
	const seen: Array<{ status: string; afterSeconds: number }> = [];
	const settled = await until(
		'the execution to leave "running"',
		async () => {
			const e = await api.getExecution(execution.id, true);
			if (!seen.length || seen[seen.length - 1].status !== e.status) seen.push({ status: e.status, afterSeconds: Math.round((Date.now() - killedAt) / 1000) });
			return h.UNFINISHED.has(e.status) ? null : (e as Execution);
		},
		{ timeoutMs: 240_000, intervalMs: 1000 },
	);
	await h.sleep(10_000); // two stalled-job checks: does the status change again?
	const final = await api.getExecution(execution.id, true);
	if (final.status !== settled.status) seen.push({ status: final.status, afterSeconds: Math.round((Date.now() - killedAt) / 1000) });
	report.statusesAfterKill = seen;
	report.errorAfterKill = ((ctx.error(final) || {}).message || '').slice(0, 200);
	const others = (await h.executionsOf(api, workflowId)).filter((e) => !known.has(String(e.id)) && String(e.id) !== String(execution.id));
	report.executionsStartedByN8nItself = others.length;
	await replacement;

	// n8n's Retry, as the Executions list does it (with the original workflow).
	const paidBeforeRetry = await paidSoFar();
	const retry = await h.restCall(ctx.session, 'POST', `/rest/executions/${execution.id}/retry`, { loadWorkflow: false });
	report.retryHttpStatus = retry.status;
	const retried = (retry.json && retry.json.data) || {};
	report.retryStatus = retried.status;
	if (retry.status !== 200) report.retryRefused = retry.text.slice(0, 300);
	await h.sleep(1000);
	report.paidByRetry = (await paidSoFar()) - paidBeforeRetry;
	const afterRetry = h.newPayouts(ledgerBefore, await control.ledger());
	assert.ok(afterRetry.length <= total, `${afterRetry.length} payouts for ${total} rows after the Retry`);
	assert.equal(new Set(afterRetry.map((p) => p.idempotency_key)).size, afterRetry.length, 'the Retry paid a key twice');

	// What is left to a user: send the same rows again (a new execution).
	const resendKnown = new Set((await h.executionsOf(api, workflowId)).map((e) => String(e.id)));
	await startBatches(ctx, path, [rows]);
	const [resent] = (await h.waitSettled(api, workflowId, { count: resendKnown.size + 1, timeoutMs: 300_000 })).filter((e) => !resendKnown.has(String(e.id)));
	report.resendStatus = resent.status;
	const created = h.newPayouts(ledgerBefore, await control.ledger());
	report.payoutsAfterResend = created.length;
	// Rows are distinct payments: any payout beyond one per row paid a row twice.
	report.rowsPaidTwiceAfterResend = Math.max(0, created.length - total);
	if (withReference) {
		const expected = new Set(rows.map((r) => h.keyForReference(r.ref)));
		const unexpected = created.filter((p) => !expected.has(p.idempotency_key as string));
		assert.equal(unexpected.length, 0, `${unexpected.length} payouts carry a key no row's Business Reference gives`);
		assert.equal(resent.status, 'success', `the re-sent batch ended ${resent.status}`);
		assert.equal(created.length, total, `${created.length} payouts for ${total} rows after the kill, the Retry and a re-send`);
		assert.equal(new Set(created.map((p) => p.idempotency_key)).size, total, 'a row was paid twice');
	}
	return report;
}

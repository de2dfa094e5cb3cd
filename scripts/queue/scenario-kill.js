'use strict';
/**
 * Scenario 2: a worker is killed (SIGKILL) in the middle of a payout run. What n8n does with the
 * execution (Bull's maxStalledCount is 0 in n8n 2.41: the job is not handed to another worker; the
 * leader's queue recovery marks the execution crashed), then n8n's own recovery, the Retry of
 * the Executions list (POST /rest/executions/:id/retry), and that no item is paid twice.
 */

const assert = require('node:assert/strict');
const crypto = require('node:crypto');

const h = require('./helpers');
const { startBatches, PAYOUT_ROUTE } = require('./scenario-payouts');

/** Poll until fn() returns a truthy value. */
async function until(what, fn, { timeoutMs, intervalMs = 250 }) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await fn();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		await h.sleep(intervalMs);
	}
}

async function killDuringRun(ctx, { withReference, total = 300, killAfter = 60 }) {
	const { control, api, topology } = ctx;
	const workflowId = withReference ? ctx.ids.payoutsRef : ctx.ids.payoutsDefault;
	const path = withReference ? ctx.paths.payoutsRef : ctx.paths.payoutsDefault;
	const rows = h.rows(`q2-${crypto.randomBytes(3).toString('hex')}`, total);
	const known = new Set((await h.executionsOf(api, workflowId)).map((e) => String(e.id)));
	const ledgerBefore = await control.ledger();
	const report = { items: total, withReference };

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
	process.kill(victim.process.pid, 'SIGKILL');
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

	// What n8n does with the execution of the dead worker.
	const settled = await until(
		'the execution to leave "running"',
		async () => {
			const e = await api.getExecution(execution.id, false);
			return h.UNFINISHED.has(e.status) ? null : e;
		},
		{ timeoutMs: 240_000, intervalMs: 1000 },
	);
	report.statusAfterKill = settled.status;
	report.secondsUntilMarked = Math.round((Date.now() - killedAt) / 1000);
	const others = (await h.executionsOf(api, workflowId)).filter((e) => !known.has(String(e.id)) && String(e.id) !== String(execution.id));
	report.executionsStartedByN8nItself = others.length;
	await replacement;

	// n8n's Retry (as the Executions list does it, with the original workflow).
	const retry = await h.restCall(ctx.session, 'POST', `/rest/executions/${execution.id}/retry`, { loadWorkflow: false });
	report.retryHttpStatus = retry.status;
	if (retry.status === 200) {
		const data = (retry.json && retry.json.data) || {};
		report.retryExecutionId = data.id;
		report.retryStatus = data.status;
		report.retryMode = data.mode;
	} else {
		report.retryRefused = retry.text.slice(0, 300);
	}
	await h.sleep(1000);
	const created = h.newPayouts(ledgerBefore, await control.ledger());
	report.payoutsInLedger = created.length;
	// Rows are distinct payments: any payout beyond one per row paid a row twice.
	report.itemsPaidTwice = Math.max(0, created.length - total);
	if (withReference) {
		const perKey = h.tally(created.map((p) => p.idempotency_key));
		const expected = new Set(rows.map((r) => h.keyForReference(r.ref)));
		const unexpected = created.filter((p) => !expected.has(p.idempotency_key));
		assert.equal(unexpected.length, 0, `${unexpected.length} payouts carry a key no row's Business Reference gives`);
		assert.ok([...perKey.values()].every((n) => n === 1), 'a Business Reference key was paid twice');
	}
	assert.equal(report.retryHttpStatus, 200, `n8n refused the Retry: ${report.retryRefused}`);
	assert.equal(report.retryStatus, 'success', `the retried execution ended ${report.retryStatus}`);
	assert.equal(created.length, total, `${created.length} payouts for ${total} rows after the kill and the Retry (${report.itemsPaidTwice} paid twice)`);
	return report;
}

module.exports = { killDuringRun, until };

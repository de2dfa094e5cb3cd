/**
 * Money moves once on every path on which a real n8n server runs a create again
 * (docs/idempotency.md): Retry of a failed execution with the original and with the currently
 * saved workflow, a lost answer then Retry, Retry On Fail, a loop that pays identical rows in two
 * batches, and a kill -9 of n8n mid-run followed by a restart and whatever n8n offers then.
 * Each check reads the sandbox's ledger before and after. Run by scripts/e2e.ts (see cases.ts).
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';

import type { Execution } from '../../scripts/n8n';
import { amountSequence, BENEFICIARY, keyedWorkflows, OTHER_BENEFICIARY, PAYER, type CasePart, type Check, type E2eContext, uniqueAmount } from './case-setup';
import { outcomes, rerunTools, rowNodes } from './rerun-tools';
import { money, node, type WorkflowNode } from './workflows';

const OTHER_PAYER = 'GM-1003';
const UNKNOWN_PAYER = 'GM-0404';
const NO_RETRIES = { maxRetries: 0 };

function mapped(resource: string, extra = {}) {
	return money.create(resource, { amount: '={{ $json.amount }}', identifier: '={{ $json.identifier }}', options: NO_RETRIES, ...extra });
}

export function build(ctx: E2eContext): CasePart {
	const { control } = ctx.sandbox;
	const { ids, wf } = keyedWorkflows('e2eRe');
	// Amounts identify each check's rows in the shared ledger.
	const amount = amountSequence(61_000, 7);
	const A = [amount(), amount(), uniqueAmount(900_000)];
	const B = [amount(), amount(), amount()];
	const C = amount();
	const D = amount();
	const E = amount();
	/** A create answered 200 with a web page: nothing committed, then committed before the page. */
	const [P0, P1] = [amount(), amount()];
	const K = [amount(), amount(), amount(), amount(), amount(), amount()];
	const K2 = [amount(), amount(), amount(), amount(), amount(), amount()];

	const loopWorkflow = (() => {
		const w = wf('Loop', 'e2e loop pays identical rows of two batches', [
			node.manualTrigger(),
			...rowNodes([
				{ identifier: OTHER_BENEFICIARY, amount: E },
				{ identifier: OTHER_BENEFICIARY, amount: E },
			]),
			{ name: 'Loop Over Items', type: 'n8n-nodes-base.splitInBatches', typeVersion: 3, parameters: { batchSize: 1, options: {} } },
			node.money('Pay', mapped('payout')),
		]);
		w.connections['Loop Over Items'] = { main: [[], [{ node: 'Pay', type: 'main', index: 0 }]] };
		w.connections.Pay = { main: [[{ node: 'Loop Over Items', type: 'main', index: 0 }]] };
		return w;
	})();

	/** A payout run started by a webhook, so that it runs inside the server that gets killed. */
	const killRun = (key: string, amounts: number[], withReference: boolean) => {
		const path = `e2e-kill-${key.toLowerCase()}-${crypto.randomBytes(3).toString('hex')}`;
		const rows = amounts.map((value, index) => ({ identifier: index % 2 ? OTHER_BENEFICIARY : BENEFICIARY, amount: value, ref: `kill-${path}-${index}` }));
		const extra = withReference ? { businessReference: '={{ $json.ref }}' } : {};
		const workflow = wf(key, `e2e payout run killed mid-run (${withReference ? 'with' : 'without'} Business Reference)`, [
			{
				name: 'Start run',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				webhookId: crypto.randomUUID(),
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
			},
			...rowNodes(rows),
			node.money('Pay', mapped('payout', extra)),
		]);
		return { key, path, amounts, workflow };
	};
	const killRuns = [killRun('Kill', K, false), killRun('KillRef', K2, true)];

	const workflows = [
		wf('Later', 'e2e payout run, later row fails', [node.manualTrigger(), ...rowNodes(A.map((value, index) => ({ identifier: index === 1 ? OTHER_BENEFICIARY : BENEFICIARY, amount: value }))), node.money('Pay', mapped('payout'))]),
		wf('Saved', 'e2e charge run, mapping fixed', [
			node.manualTrigger(),
			...rowNodes([
				{ identifier: PAYER, amount: B[0] },
				{ identifier: OTHER_PAYER, amount: B[1] },
				{ identifier: UNKNOWN_PAYER, amount: B[2] },
			]),
			node.money('Charge', mapped('charge')),
		]),
		// Its Message is evaluated again by the Retry: the resend must still be the same bytes (resends.ts).
		wf('Lost', 'e2e payout whose answer is lost, Message {{ $execution.id }}', [
			node.manualTrigger(),
			...rowNodes([{ identifier: BENEFICIARY, amount: C }]),
			node.money('Pay', mapped('payout', { additionalFields: { message: '=Payout run {{ $execution.id }}' } })),
		]),
		wf('PageNot', 'e2e payout answered by a maintenance page, not committed', [node.manualTrigger(), ...rowNodes([{ identifier: BENEFICIARY, amount: P0 }]), node.money('Pay', mapped('payout'))]),
		wf('PageCommitted', 'e2e payout answered by a maintenance page after the API committed it', [node.manualTrigger(), ...rowNodes([{ identifier: BENEFICIARY, amount: P1 }]), node.money('Pay', mapped('payout'))]),
		wf('OnFail', 'e2e payout with Retry On Fail', [
			node.manualTrigger(),
			...rowNodes([{ identifier: BENEFICIARY, amount: D }]),
			{ ...node.money('Pay', mapped('payout')), retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
		]),
		loopWorkflow,
		...killRuns.map((run) => run.workflow),
	];

	const { ledgerRows } = rerunTools(ctx);

	async function assertEachKeyOnce(rows: Array<{ idempotency_key: string | null }>): Promise<void> {
		const counters = await control.counters();
		for (const row of rows) {
			const key = row.idempotency_key as string;
			assert.equal(counters.createsByIdempotencyKey[key], 1, `key ${key} created ${counters.createsByIdempotencyKey[key]} times`);
		}
	}

	/** REST retry as the Executions list does it; resolves with the new execution (data included). */
	async function retry(executionId: Execution['id'], loadWorkflow: boolean) {
		const res = await ctx.session.request('POST', `/rest/executions/${executionId}/retry`, { loadWorkflow });
		assert.equal(res.status, 200, `retry answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
		const retriedId = res.json && res.json.data && res.json.data.id;
		assert.ok(retriedId, `retry gave no execution id: ${res.text.slice(0, 300)}`);
		assert.notEqual(String(retriedId), String(executionId), 'a retry is a new execution');
		const execution = await ctx.api.getExecution(retriedId, true);
		return { execution, output: (name: string) => ctx.output(execution, name) || [] };
	}

	const checks: Check[] = [
		{
			onN8n1: "n8n's Retry hands the node its context back from the execution: n8n's own code per line",
			name: 'Retry of a payout run whose later row failed (balance topped up) pays the earlier rows once',
			async fn() {
				await control.updateClient(ctx.sandbox.info.clientId, { balance: 400_000 });
				const failed = await ctx.run(ids.Later, { expectError: true });
				assert.match(String(failed.error && failed.error.message), /INSUFFICIENT_FUNDS/);
				assert.equal((await ledgerRows('payout', A)).length, 2);
				await control.updateClient(ctx.sandbox.info.clientId, { balance: 100_000_000 });
				const retried = await retry(failed.execution.id, false);
				assert.equal(retried.execution.status, 'success', JSON.stringify(retried.execution.data && retried.execution.data.resultData.error));
				assert.deepEqual(outcomes(retried.output('Pay')), ['replayed', 'replayed', 'created']);
				const rows = await ledgerRows('payout', A);
				assert.deepEqual(rows.map((row) => Math.abs(row.amount.value)).sort(), [...A].sort());
				await assertEachKeyOnce(rows);
			},
		},
		{
			onN8n1: 'which workflow n8n loads for a Retry with the saved workflow is its own per line',
			name: 'Retry with the currently saved workflow (mapping of the failed charge fixed) charges the earlier rows once',
			async fn() {
				const failed = await ctx.run(ids.Saved, { expectError: true });
				assert.match(String(failed.error && failed.error.message), /PAYER_NOT_FOUND/);
				assert.equal((await ledgerRows('charge', B)).length, 2);
				const saved = await ctx.api.getWorkflow(ids.Saved);
				const charge = saved.nodes.find((n: WorkflowNode) => n.name === 'Charge');
				charge.parameters.payerIdentifier = `={{ $json.identifier === '${UNKNOWN_PAYER}' ? '${PAYER}' : $json.identifier }}`;
				await ctx.api.call('PUT', `/workflows/${ids.Saved}`, { name: saved.name, nodes: saved.nodes, connections: saved.connections, settings: saved.settings });
				const retried = await retry(failed.execution.id, true);
				assert.equal(retried.execution.status, 'success');
				assert.deepEqual(outcomes(retried.output('Charge')), ['replayed', 'replayed', 'created']);
				const rows = await ledgerRows('charge', B);
				assert.equal(rows.length, 3);
				await assertEachKeyOnce(rows);
			},
		},
		{
			name: 'Retry of a payout whose answer was lost after the API committed it, Message {{ $execution.id }}, creates it once and says created (naming the unanswered attempt)',
			async fn() {
				await control.addFault({ route: 'post_money_v1_payout', kind: 'drop-after-commit', count: 1 });
				const failed = await ctx.run(ids.Lost, { expectError: true });
				assert.equal(failed.execution.status, 'error');
				assert.equal((await ledgerRows('payout', [C])).length, 1, 'the API committed the payout');
				await control.clearFaults();
				const retried = await retry(failed.execution.id, false);
				// The failed run's unanswered send made it: the Retry is the execution that says so, naming that attempt.
				assert.deepEqual(outcomes(retried.output('Pay')), ['created']);
				assert.equal(retried.output('Pay')[0].earlier_attempt, `no answer in execution ${failed.execution.id}`);
				await assertEachKeyOnce(await ledgerRows('payout', [C]));
				assert.equal((await ledgerRows('payout', [C])).length, 1);
			},
		},
		{
			name: 'a payout answered 200 with a web page is not taken for a payment: the run fails saying the money may have moved, its Retry pays it once and says created (page before the API committed, and after)',
			async fn() {
				for (const [key, kind, value, held] of [['PageNot', 'page-200', P0, 0], ['PageCommitted', 'page-200-after-commit', P1, 1]] as const) {
					await control.addFault({ route: 'post_money_v1_payout', kind, count: 1 });
					const failed = await ctx.run(ids[key], { expectError: true });
					await control.clearFaults();
					const error = failed.execution.data?.resultData.error;
					assert.equal(failed.execution.status, 'error', key);
					assert.match(String(error?.message), /HTTP 200 with text\/html/, key);
					assert.match(String(error?.description), /The money may have moved/, key);
					assert.equal((await ledgerRows('payout', [value])).length, held, `${key}: what the API holds before the Retry`);
					const retried = await retry(failed.execution.id, false);
					assert.deepEqual(outcomes(retried.output('Pay')), ['created'], key);
					assert.equal(retried.output('Pay')[0].earlier_attempt, `HTTP 200 in execution ${failed.execution.id}`, key);
					const rows = await ledgerRows('payout', [value]);
					assert.equal(rows.length, 1, key);
					await assertEachKeyOnce(rows);
				}
			},
		},
		{
			onN8n1: "Retry On Fail runs the node again within n8n's own execution loop",
			name: 'Retry On Fail after a lost answer pays once',
			async fn() {
				await control.addFault({ route: 'post_money_v1_payout', kind: 'drop-after-commit', count: 1 });
				const run = await ctx.run(ids.OnFail);
				await control.clearFaults();
				assert.deepEqual(outcomes(run.output('Pay')), ['created']);
				const rows = await ledgerRows('payout', [D]);
				assert.equal(rows.length, 1);
				await assertEachKeyOnce(rows);
			},
		},
		{
			name: 'a payout node inside Loop Over Items pays identical rows of two batches twice, under two keys',
			async fn() {
				const run = await ctx.run(ids.Loop);
				const keys = [0, 1].map((runIndex) => (ctx.output(run.execution, 'Pay', { runIndex }) || [])[0]).map((item) => item && item.idempotency_key);
				assert.equal(new Set(keys).size, 2, `keys ${JSON.stringify(keys)}`);
				assert.equal((await ledgerRows('payout', [E])).length, 2);
			},
		},
		{
			onN8n1: 'how n8n marks and retries an execution it lost in a crash is its own per line',
			name: 'kill -9 of n8n during payout runs, restart, Retry: nothing paid twice, with or without a Business Reference',
			async fn() {
				// Slow enough that both runs, ready at 2 of 6 paid, are still paying at the kill (at 1.5 s a row one once reached 4).
				await control.addFault({ route: 'post_money_v1_payout', kind: 'delay', delayMs: 5000 });
				for (const run of killRuns) {
					await ctx.api.activateWorkflow(ids[run.key]);
					const start = () => fetch(`${ctx.n8n.url}/webhook/${run.path}`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
					let started = await start();
					for (let tries = 0; started.status === 404 && tries < 120; tries++) {
						await new Promise((r) => setTimeout(r, 500));
						started = await start();
					}
					assert.equal(started.status, 200, 'the webhook was never registered');
				}
				const deadline = Date.now() + 90_000;
				for (const run of killRuns) {
					while ((await ledgerRows('payout', run.amounts)).length < 2) {
						assert.ok(Date.now() < deadline, 'the runs did not start paying');
						await new Promise((r) => setTimeout(r, 200));
					}
				}
				await ctx.restartN8n({ kill: true });
				await control.clearFaults();
				const report: Record<string, any> = {};
				for (const run of killRuns) {
					const entry: Record<string, any> = { paidBeforeRetry: (await ledgerRows('payout', run.amounts)).length };
					const [crashed] = await ctx.api.listExecutions({ workflowId: ids[run.key], includeData: false });
					entry.status = crashed && crashed.status;
					const res = await ctx.session.request('POST', `/rest/executions/${crashed.id}/retry`, { loadWorkflow: false });
					entry.retry = res.status === 200 ? 'allowed' : `refused: HTTP ${res.status}`;
					const retriedId = res.status === 200 && res.json.data && res.json.data.id;
					const retried = retriedId ? await ctx.api.getExecution(retriedId, true) : undefined;
					entry.retryStatus = retried && retried.status;
					entry.retryError = retried && retried.data && retried.data.resultData.error ? String(retried.data.resultData.error.message).slice(0, 80) : undefined;
					entry.retryOutcomes = retried ? outcomes(ctx.output(retried, 'Pay') || []) : [];
					const rows = await ledgerRows('payout', run.amounts);
					entry.paidAfter = rows.length;
					report[run.key] = entry;
					const amounts = rows.map((row) => Math.abs(row.amount.value));
					assert.equal(new Set(amounts).size, amounts.length, `a row was paid twice: ${JSON.stringify(report)}`);
				}
				ctx.note(`kill -9 mid-run: ${JSON.stringify(report)}`);
				assert.equal(report.Kill.retryStatus, 'error', 'without a Business Reference the retry must refuse');
				assert.match(String(report.Kill.retryError), /lost in a crash/);
				assert.equal(report.KillRef.retryStatus, 'success');
				assert.equal(report.KillRef.paidAfter, K2.length, 'with a Business Reference the retry completes the run');
			},
		},
	];
	return { workflows, checks };
}

/**
 * Cancelling an execution stops the money (issue 22, item 6): a payout run with On Error =
 * Continue is stopped (POST /rest/executions/:id/stop, as the editor and the Executions list do)
 * while the Money node waits: for the velocity limit, for a final status, before resending after a
 * 503. Nothing more may be sent, and the node says so. n8n 1.x cannot interrupt the node's waits
 * (its `sleep` ignores the signal): there the node must check at the end of each wait, so each
 * check waits past the end of the interrupted wait before reading the ledger. Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';

import { moneyCredentialFor } from '../../sandbox/control/credential';
import { BENEFICIARY, keyedWorkflows, type CasePart, type Check, type E2eContext } from './case-setup';
import { amountSource, rerunTools, rowNodes, UNPACED_CREDENTIAL, until, webhookStart } from './rerun-tools';
import { CREDENTIAL_TYPE, money, node, type CredentialRef, type Workflow } from './workflows';

const PAY = 'Pay';
const PAYOUT_ROUTE = 'post_money_v1_payout';
/** Two payouts per 10 s, paced by the node (the sandbox itself is left roomy). */
const SLOW_VELOCITY = { velocityLimit: 2, velocityWindowSeconds: 10 };
const SLOW_CREDENTIAL: CredentialRef = { id: 'e2eMoneyCredSlow001', name: 'Money sandbox, 2 payouts per 10 s (e2e)' };

export function build(ctx: E2eContext): CasePart {
	const { control, info } = ctx.sandbox;
	const tools = rerunTools(ctx);
	const { ids, wf } = keyedWorkflows('e2eCancel');
	const amount = amountSource(91_000);
	const runs: Record<string, { path: string; amounts: number[] }> = {};

	function cancellable(key: string, count: number, options: Record<string, unknown>, cred: CredentialRef): Workflow {
		const amounts = Array.from({ length: count }, () => amount());
		const start = webhookStart(key);
		runs[key] = { path: start.path, amounts };
		const pay = node.money(PAY, money.create('payout', { amount: '={{ $json.amount }}', identifier: BENEFICIARY, options }), { cred, continueOnFail: true });
		return wf(key, `e2e payout run cancelled (${key})`, [start.node, ...rowNodes(amounts.map((value) => ({ amount: value }))), pay]);
	}

	const workflows = [
		cancellable('Velocity', 6, { maxRetries: 0 }, SLOW_CREDENTIAL),
		cancellable('Final', 3, { maxRetries: 0, waitForFinalStatus: true, pollIntervalMs: 500, waitTimeoutSeconds: 60 }, UNPACED_CREDENTIAL),
		cancellable('Backoff', 3, { maxRetries: 3, retryBaseDelayMs: 8000 }, UNPACED_CREDENTIAL),
	];

	/**
	 * Starts the run, stops its execution once `waiting()` says the node waits, then waits `settleMs`
	 * (past the end of the interrupted wait) and reports what the API received and what n8n shows.
	 */
	async function cancelWhile(key: string, waiting: () => Promise<boolean>, settleMs: number) {
		const { path, amounts } = runs[key];
		const logFrom = ctx.n8n.logs().length;
		const payoutsBefore = (await control.counters()).requests[PAYOUT_ROUTE] || 0;
		await ctx.api.activateWorkflow(ids[key]);
		try {
			await tools.fireWebhook(path);
			// n8n's public API lists running executions only when asked for them.
			const [execution] = await until(`a running execution of ${key}`, async () => {
				const running = await ctx.api.listExecutions({ workflowId: ids[key], status: 'running', includeData: false });
				return running.length > 0 ? running : undefined;
			});
			await until(`${key} to wait`, waiting);
			const requestsAtStop = (await control.counters()).requests[PAYOUT_ROUTE] || 0;
			const stop = await ctx.session.request('POST', `/rest/executions/${execution.id}/stop`, {});
			assert.equal(stop.status, 200, `stop answered HTTP ${stop.status}: ${stop.text.slice(0, 200)}`);
			await sleep(settleMs);
			const requestsAfter = (await control.counters()).requests[PAYOUT_ROUTE] || 0;
			const final = await ctx.api.getExecution(execution.id, false);
			return {
				status: final.status,
				paid: (await tools.ledgerRows('payout', amounts)).length,
				requestsBeforeStop: requestsAtStop - payoutsBefore,
				requestsAfterStop: requestsAfter - requestsAtStop,
				log: ctx.n8n.logs().slice(logFrom).split('\n').filter((line) => /Money payout run/.test(line) && /cancel/i.test(line)),
			};
		} finally {
			await ctx.api.deactivateWorkflow(ids[key]);
		}
	}

	const paidAtLeast = (key: string, count: number) => async () => (await tools.ledgerRows('payout', runs[key].amounts)).length >= count;
	const settleAfter = async (ms: number) => {
		await sleep(ms);
		return true;
	};

	function assertStopped(report: Awaited<ReturnType<typeof cancelWhile>>, sentBeforeStop: number): void {
		assert.equal(report.requestsAfterStop, 0, `payout requests after the stop: ${JSON.stringify(report)}`);
		assert.equal(report.paid, sentBeforeStop, JSON.stringify(report));
		assert.equal(report.status, 'canceled', JSON.stringify(report));
		assert.ok(report.log.some((line) => /not sent/.test(line)), `no log line says the run was cancelled and what was not sent: ${JSON.stringify(report)}`);
	}

	const checks: Check[] = [
		{
			onN8n1: "n8n 1.x cannot interrupt the node's waits: the stop takes effect when the wait ends",
			name: 'cancel during a velocity wait (On Error = Continue): nothing more is sent, the node says what was not sent',
			async fn() {
				const report = await tools.withRoomyClient(() => cancelWhile('Velocity', async () => (await paidAtLeast('Velocity', 2)()) && (await settleAfter(1000)), SLOW_VELOCITY.velocityWindowSeconds * 1000 + 4000));
				ctx.note(`cancel during a velocity wait: ${JSON.stringify(report)}`);
				assertStopped(report, 2);
			},
		},
		{
			onN8n1: "n8n 1.x cannot interrupt the node's waits: the stop takes effect when the wait ends",
			name: 'cancel during the wait for a final status: nothing more is sent, no item is turned into a success',
			async fn() {
				const report = await tools.withRoomyClient(() => cancelWhile('Final', async () => (await paidAtLeast('Final', 1)()) && (await settleAfter(1200)), 4000));
				ctx.note(`cancel during a final-status wait: ${JSON.stringify(report)}`);
				assertStopped(report, 1);
			},
		},
		{
			onN8n1: "n8n 1.x cannot interrupt the node's waits: the stop takes effect when the wait ends",
			name: 'cancel during the backoff before a resend: the create is not resent, the next is not sent',
			async fn() {
				const report = await tools.withRoomyClient(async () => {
					await control.addFault({ route: PAYOUT_ROUTE, kind: '503', count: 1 });
					try {
						const faultsBefore = (await control.counters()).faultsInjected;
						const refused = async () => (await control.counters()).faultsInjected > faultsBefore;
						return await cancelWhile('Backoff', async () => (await refused()) && (await settleAfter(500)), 9000);
					} finally {
						await control.clearFaults();
					}
				});
				ctx.note(`cancel during a backoff: ${JSON.stringify(report)}`);
				assert.equal(report.requestsBeforeStop, 1, JSON.stringify(report));
				assertStopped(report, 0);
			},
		},
	];
	const credentials = [tools.unpacedCredential, { id: SLOW_CREDENTIAL.id, name: SLOW_CREDENTIAL.name, type: CREDENTIAL_TYPE, data: moneyCredentialFor(info, SLOW_VELOCITY) }];
	return { workflows, checks, credentials };
}

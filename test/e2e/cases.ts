/**
 * End-to-end checks against a real n8n 2.41 server and the sandbox, run by scripts/e2e.ts.
 *
 * build(ctx) returns { workflows, checks, credentials }: the credentials beyond the main one and the
 * workflows are imported together before the
 * checks run; checks run in order (the token check follows every execution: it counts every token request of
 * the run). ctx: E2eContext of case-setup.ts.
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Execution, Json } from '../../scripts/n8n';
import { moneyCredentialFor } from '../../sandbox/control/credential';
import { seedDailyReconciliation } from '../fixtures/daily-reconciliation';
import { BENEFICIARY, INELIGIBLE, keyedWorkflows, PAYER, referenceOf, statusOf, type CasePart, type Check, type E2eContext } from './case-setup';
import * as payoutRunCases from './payout-run';
import * as previewCases from './preview';
import { CREDENTIAL, CREDENTIAL_TYPE, MONEY_TRIGGER_PATH, money, moneyTriggerParams, node, webhookIdFor, type CredentialRef, type Workflow } from './workflows';

/** An example of examples/ as a user imports it, with its Money credential pointed at the e2e one. */
function exampleWorkflow(repo: string, file: string, id: string, credential: CredentialRef = CREDENTIAL): Workflow {
	const workflow = JSON.parse(fs.readFileSync(path.join(repo, 'examples', file), 'utf8'));
	for (const n of workflow.nodes) {
		if (n.credentials && n.credentials[CREDENTIAL_TYPE]) n.credentials[CREDENTIAL_TYPE] = { id: credential.id, name: credential.name };
	}
	return { ...workflow, id, active: false };
}

export function build(ctx: E2eContext): CasePart {
	const { info } = ctx.sandbox;
	const keyed = keyedWorkflows('e2e');
	const { ids, wf } = keyed;
	const unique = (p: string) => `${p}-${crypto.randomBytes(4).toString('hex')}`;
	const payoutRun = payoutRunCases.build(ctx, keyed);
	const preview = previewCases.build(ctx, keyed);

	const triggerWebhookId = webhookIdFor('e2e money trigger');
	/** Used first by a Get of 16 items at the default Concurrency: n8n has no token for it yet. */
	const firstUsedByManyReads: CredentialRef = { id: 'e2eMoneyCredReads16', name: 'Money sandbox, first used by 16 reads (e2e)' };
	const readsPerRun = 16;
	const workflows = [
		wf('CreateCharge', 'e2e create charge', [
			node.manualTrigger(),
			node.money('Create Charge', money.create('charge', { amount: 1500, identifier: PAYER, channel: 'psp-a-tg', businessReference: unique('e2e-charge') })),
		]),
		wf('CreatePayout', 'e2e create payout', [
			node.manualTrigger(),
			node.money('Create Payout', money.create('payout', { amount: 700, identifier: BENEFICIARY, channel: 'psp-a-tg', businessReference: unique('e2e-payout') })),
		]),
		wf('GetCharge', 'e2e create then get charge', [
			node.manualTrigger(),
			node.money('Create Charge', money.create('charge', { amount: 2500, identifier: PAYER, channel: 'psp-b-tg', businessReference: unique('e2e-get') })),
			node.money('Get Charge', money.get('charge', '={{ $json.reference }}')),
		]),
		wf('Details', 'e2e transaction details', [
			node.manualTrigger(),
			node.money('Create Payout', money.create('payout', { amount: 900, identifier: BENEFICIARY, channel: 'psp-a-tg', businessReference: unique('e2e-details') })),
			node.money('Transaction Details', money.transactionGet('={{ $json.reference }}')),
		]),
		wf('Account', 'e2e account', [node.manualTrigger(), node.money('Account', money.accountGet())]),
		wf('ReadsFreshToken', 'e2e get 16 charges on a credential with no token yet', [
			node.manualTrigger(),
			node.money('Get Many Charges', money.getAll('charge', { limit: readsPerRun })),
			node.money('Get Charge', money.get('charge', '={{ $json.reference }}'), { cred: firstUsedByManyReads }),
		]),
		wf('Refused', 'e2e refused payout', [
			node.manualTrigger(),
			node.money('Create Payout', money.create('payout', { amount: 500, identifier: INELIGIBLE, channel: 'psp-a-tg', businessReference: unique('e2e-refused') })),
		]),
		wf('HttpRequest', 'e2e HTTP Request with Money API credential', [
			node.manualTrigger(),
			node.httpRequestMoney('HTTP Request', { url: `${info.baseUrl}/money/v1/charge`, query: { limit: 5, status: 'PENDING' } }),
		]),
		wf('Trigger', 'e2e money trigger', [
			node.moneyTrigger('Money Trigger', moneyTriggerParams({ statuses: ['COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED'] }), { webhookId: triggerWebhookId }),
			node.set('Received', { received: true, reference: '={{ $json.reference || ($json.data && $json.data.reference) }}' }, { includeOtherFields: true }),
		]),
		exampleWorkflow(ctx.repo, 'pay-beneficiaries.json', 'e2eExamplePayouts', payoutRun.PACED_CREDENTIAL),
		...payoutRun.workflows,
		...preview.workflows,
	];
	ids.ExamplePayouts = 'e2eExamplePayouts';
	workflows.push(exampleWorkflow(ctx.repo, 'daily-reconciliation.json', 'e2eExampleReconcile'));
	ids.ExampleReconcile = 'e2eExampleReconcile';
	const triggerUrl = `${ctx.n8n.url}/webhook/${triggerWebhookId}/${MONEY_TRIGGER_PATH}`;

	const state: { chargeRef?: string; triggerExecutions?: number } = {};
	const newPendingCharge = async (): Promise<string> => {
		const known = new Set((await ctx.sandbox.control.ledger()).charges.map((charge) => charge.reference));
		await ctx.sandbox.control.seed({ resource: 'charge', count: 1, status: 'PENDING' });
		const seeded = (await ctx.sandbox.control.ledger()).charges.find((charge) => !known.has(charge.reference));
		assert.ok(seeded, 'the sandbox seeded no charge');
		return String(seeded.reference);
	};
	const checks: Check[] = [
		{
			name: 'create charge',
			async fn() {
				const r = await ctx.run(ids.CreateCharge);
				const [item] = r.output('Create Charge');
				const ref = referenceOf(item);
				assert.ok(ref, `no reference in ${JSON.stringify(item).slice(0, 300)}`);
				assert.equal(item.outcome, 'created', JSON.stringify(item).slice(0, 500));
				assert.equal(item.status, 'PENDING', JSON.stringify(item).slice(0, 500));
				assert.match(item.idempotency_key, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
				const ledger = await ctx.sandbox.control.ledger();
				assert.ok(ledger.charges.some((c) => c.reference === ref), 'charge not in the sandbox ledger');
				state.chargeRef = ref;
			},
		},
		{
			onN8n1: "n8n-core's request helper sends the signed body, and n8n-core is another on 1.x",
			name: 'create payout',
			async fn() {
				const r = await ctx.run(ids.CreatePayout);
				const [item] = r.output('Create Payout');
				const ref = referenceOf(item);
				assert.ok(ref, `no reference in ${JSON.stringify(item).slice(0, 300)}`);
				const ledger = await ctx.sandbox.control.ledger();
				assert.ok(ledger.payouts.some((c) => c.reference === ref), 'payout not in the sandbox ledger');
			},
		},
		{
			name: 'get charge by reference',
			async fn() {
				const r = await ctx.run(ids.GetCharge);
				const created = referenceOf(r.output('Create Charge')[0]);
				const [got] = r.output('Get Charge');
				assert.equal(referenceOf(got), created);
				// Simplify is on by default: the status label and the amount as plain values.
				assert.equal(got.status, 'PENDING', JSON.stringify(got).slice(0, 300));
				assert.equal(typeof got.amount, 'number', JSON.stringify(got).slice(0, 300));
			},
		},
		{
			name: 'transaction details of a new payout',
			async fn() {
				const r = await ctx.run(ids.Details);
				const ref = referenceOf(r.output('Create Payout')[0]);
				const [details] = r.output('Transaction Details');
				assert.ok(details, 'no output');
				assert.ok(JSON.stringify(details).includes(ref as string), `details do not mention ${ref}: ${JSON.stringify(details).slice(0, 300)}`);
			},
		},
		{
			name: 'account',
			async fn() {
				const r = await ctx.run(ids.Account);
				const [acct] = r.output('Account');
				assert.ok(acct && Object.keys(acct).length > 0, 'empty account output');
				assert.equal(acct.account_number, info.merchantAccountNumber, JSON.stringify(acct).slice(0, 300));
			},
		},
		{
			onN8n1: "how n8n records a node's error in the execution differs on 1.x",
			name: 'a refused payout fails the execution with the API error',
			async fn() {
				const r = await ctx.run(ids.Refused, { expectError: true });
				assert.equal(r.execution.status, 'error');
				assert.ok(r.error, 'no error in the execution');
				assert.match(r.error.message, /BENEFICIARY_NOT_ELIGIBLE/);
			},
		},
		{
			onN8n1: "n8n's HTTP Request node applies the credential, and it is another on 1.x",
			name: 'HTTP Request node with the Money API credential calls a route with a query string',
			async fn() {
				const before = await ctx.sandbox.control.counters();
				const r = await ctx.run(ids.HttpRequest);
				const [body] = r.output('HTTP Request');
				assert.equal(body.success, true, JSON.stringify(body).slice(0, 300));
				assert.ok(Array.isArray(body.data) && body.data.length <= 5, 'limit not applied');
				assert.ok(body.data.every((t: unknown) => statusOf(t) === 'PENDING'), 'status filter not applied');
				const after = await ctx.sandbox.control.counters();
				assert.equal(after.rejected401, before.rejected401, 'the sandbox refused a request (401)');
			},
		},
		{
			onN8n1: 'the raw body and headers n8n 1.x hands a webhook node are its own',
			name: 'webhook trigger (activated) receives a signed sandbox event',
			async fn() {
				await ctx.api.activateWorkflow(ids.Trigger);
				await ctx.sandbox.control.setWebhook(triggerUrl);
				// The charge of "create charge", or (on n8n 1.x, which skips that check) one of its own.
				const chargeRef = state.chargeRef ?? (await newPendingCharge());
				await ctx.sandbox.control.setStatus(chargeRef, 'COMPLETED');
				await ctx.sandbox.control.flushWebhooks();
				const execs = await ctx.api.waitForExecutions(ids.Trigger, (ex) => ex.some((e) => JSON.stringify(e.data || {}).includes(chargeRef)), {
					timeoutMs: 30_000,
				});
				const ex = execs.find((e) => JSON.stringify(e.data || {}).includes(chargeRef)) as Execution;
				assert.equal(ex.status, 'success');
				const [received] = ctx.output(ex, 'Received') as Json[];
				assert.equal(received.received, true);
				assert.equal(received.reference, chargeRef);
				const counters = await ctx.sandbox.control.counters();
				assert.equal(counters.webhooksFailed, 0, 'a webhook delivery failed');
				state.triggerExecutions = execs.length;
			},
		},
		{
			onN8n1: 'what n8n 1.x saves of a request the trigger refuses is its own',
			name: 'a forged webhook is refused and leaves no execution',
			async fn() {
				assert.ok(state.triggerExecutions, 'needs the previous check');
				const body = JSON.stringify({ id: 'evt_forged', type: 'charge.completed', data: { reference: 'FORGED-1', status: { code: 1, label: 'COMPLETED' } } });
				const res = await fetch(triggerUrl, {
					method: 'POST',
					headers: {
						'content-type': 'application/json',
						'x-timestamp': String(Math.floor(Date.now() / 1000)),
						'x-hmac-signature': crypto.createHmac('sha256', 'not-the-secret').update(body).digest('hex'),
						'x-webhook-signature': crypto.createHmac('sha256', 'not-the-secret').update(body).digest('hex'),
					},
					body,
				});
				assert.equal(res.status, 401, `forged webhook answered ${res.status}`);
				await new Promise((r) => setTimeout(r, 2000));
				const execs = await ctx.api.listExecutions({ workflowId: ids.Trigger });
				assert.equal(execs.length, state.triggerExecutions, 'the forged webhook started an execution');
				assert.ok(!execs.some((e) => JSON.stringify(e.data || {}).includes('FORGED-1')));
			},
		},
		{
			onN8n1: "the example's failed rows leave by the error output, which n8n 1.x builds differently",
			name: 'the pay-beneficiaries example pays its 60 rows once, paced to 5 per 2 s (60 requests, none refused, no LIMIT_EXCEEDED), also when run again',
			async fn() {
				await payoutRun.paceSandbox();
				const before = await ctx.sandbox.control.counters();
				const first = await ctx.run(ids.ExamplePayouts);
				const after = await ctx.sandbox.control.counters();
				const paid = first.output('Send payout');
				assert.equal(paid.length, 60, JSON.stringify(paid).slice(0, 300));
				assert.ok(paid.every((item) => item.outcome === 'created' && referenceOf(item)), JSON.stringify(paid.find((item) => item.outcome !== 'created') || {}).slice(0, 400));
				const requests = (after.requests.post_money_v1_payout || 0) - (before.requests.post_money_v1_payout || 0);
				assert.equal(requests, 60, `${requests} payout requests`);
				assert.equal(after.rejected - before.rejected, 0, `${after.rejected - before.rejected} requests refused`);
				const again = await ctx.run(ids.ExamplePayouts);
				assert.deepEqual(again.output('Send payout').map(referenceOf), paid.map(referenceOf));
				const ledger = await ctx.sandbox.control.ledger();
				for (const item of paid) {
					assert.equal(ledger.payouts.filter((p) => p.reference === referenceOf(item)).length, 1);
				}
			},
		},
		...payoutRun.checks,
		{
			onN8n1: "the example's outputs and notification run on n8n 1.x's own nodes and error output",
			name: 'the daily-reconciliation example sends each order and charge to its output, problems to the notification',
			async fn() {
				const seeded = await seedDailyReconciliation(ctx.sandbox.control);
				const r = await ctx.run(ids.ExampleReconcile);
				// The example reconciles yesterday (UTC) as of its run. When this tier runs across
				// midnight, the charges earlier checks created before midnight are yesterday's too:
				// each is one more unexpected transaction.
				const today = new Date(String(r.execution.startedAt)).setUTCHours(0, 0, 0, 0);
				const ofYesterday = (await ctx.sandbox.control.ledger()).charges.filter((c) => {
					const at = Date.parse(String(c.created_at));
					return at >= today - 24 * 3600 * 1000 && at < today;
				}).length;
				const seededCount = seeded.matched + seeded.mismatched + seeded.unexpected;
				const expected = { ...seeded, unexpected: seeded.unexpected + Math.max(0, ofYesterday - seededCount) };
				const reconcile = "Reconcile yesterday's charges";
				const counts = [0, 1, 2, 3].map((output) => r.output(reconcile, { output }).length);
				assert.deepEqual(counts, [expected.matched, expected.mismatched, expected.missing, expected.unexpected]);
				const statuses = [0, 1, 2, 3].map((output) => [...new Set(r.output(reconcile, { output }).map((item) => item.reconciliation.status))]);
				assert.deepEqual(statuses, [['matched'], ['mismatched'], ['missing'], ['unexpected']]);
				const notifyRuns = r.execution.data.resultData.runData['Notify accounting (stands for Slack or email)'] || [];
				const texts = notifyRuns.flatMap((run: any) => run.data.main[0].map((item: any) => item.json.text));
				assert.equal(texts.length, expected.mismatched + expected.missing + expected.unexpected, JSON.stringify(texts));
				assert.ok(texts.includes('MISSING: order ORD-1004, charge (none in the API)'), JSON.stringify(texts));
				const [report] = r.output('Daily report CSV (attach to an email or upload)');
				assert.deepEqual(report && report.counts, expected);
				const binary = r.execution.data.resultData.runData[reconcile][0].data.main[4][0].binary;
				assert.equal(binary && binary.data && binary.data.mimeType, 'text/csv');
			},
		},
		{
			onN8n1: 'when n8n-core fetches and saves a preAuthentication token (concurrent reads) is its own per line',
			name: `one token for a Get of ${readsPerRun} items at the default Concurrency (8 at a time) on a credential n8n has no token for yet`,
			async fn() {
				await ctx.sandbox.control.seed({ resource: 'charge', count: readsPerRun, status: 'COMPLETED' });
				await ctx.run(ids.Account); // the main credential has its token before the count starts
				const before = (await ctx.sandbox.control.counters()).tokenRequests;
				const r = await ctx.run(ids.ReadsFreshToken);
				const listed = r.output('Get Many Charges').map(referenceOf);
				assert.equal(listed.length, readsPerRun);
				assert.deepEqual(r.output('Get Charge').map(referenceOf), listed, 'the reads came out in another order than their items');
				assert.equal((await ctx.sandbox.control.counters()).tokenRequests - before, 1, 'token requests for the reads');
			},
		},
		{
			onN8n1: 'n8n-core saves a preAuthentication token with the credential, its own per line',
			name: 'the token is fetched once per credential across executions',
			async fn() {
				const counters = await ctx.sandbox.control.counters();
				const credentials = 1 + payoutRun.credentials.length + 1; // the main one, the paced one, firstUsedByManyReads
				assert.equal(counters.tokenRequests, credentials, `token requested ${counters.tokenRequests} times for ${credentials} credentials`);
			},
		},
		// After the token check: n8n fetches a fresh token for every credential test. Last of all
		// checks (runLast): n8n 1.x stores what a test of a preAuthentication credential returns, so
		// the test with a wrong HMAC secret leaves the stored credential with that secret.
		{
			runLast: true,
			onN8n1: 'n8n 1.x stores what a credential Test returns',
			name: "the credential's Test passes, and fails with a wrong HMAC secret",
			async fn() {
				const test = async (data: Record<string, unknown>) => {
					const res = await ctx.session.request('POST', '/rest/credentials/test', {
						credentials: { id: CREDENTIAL.id, name: CREDENTIAL.name, type: CREDENTIAL_TYPE, data },
					});
					assert.ok(res.status === 200, `credential test answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
					return res.json.data;
				};
				const good = await test(moneyCredentialFor(info));
				assert.equal(good.status, 'OK', JSON.stringify(good));
				const wrongHmac = await test(moneyCredentialFor(info, { hmacSecret: 'not-the-hmac-secret' }));
				assert.equal(wrongHmac.status, 'Error', JSON.stringify(wrongHmac));
				assert.ok(!JSON.stringify(wrongHmac).includes(info.clientSecret), 'the test result shows the client secret');
			},
		},
		// After the token check: this credential fetches a token of its own.
		...preview.checks,
	];
	const readsCredential = { id: firstUsedByManyReads.id, name: firstUsedByManyReads.name, type: CREDENTIAL_TYPE, data: moneyCredentialFor(info) };
	return { workflows, checks, credentials: [...payoutRun.credentials, ...preview.credentials, readsCredential] };
}

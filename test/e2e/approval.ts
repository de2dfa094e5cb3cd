/**
 * Approved Plan in a real n8n server (issue 39, docs/idempotency.md "Approved Plan"): a payout
 * sheet is read and previewed, the execution waits on n8n's Wait node for a person, who resumes it
 * by its resume URL; the sheet is read again and paid with Approved Plan set to the preview's plan
 * id. Between the approval and the run the check edits, extends or shortens the sheet, or points
 * the credential at another API client: the run pays exactly the approved plan, or nothing. A Retry
 * of an approved run that failed part-way pays the rest once. The sheet is served by this process
 * on loopback (it stands for a spreadsheet read again after the approval). Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Execution, Json } from '../../scripts/n8n';
import { moneyCredentialFor } from '../../sandbox/control/credential';
import { BENEFICIARY, keyedWorkflows, OTHER_BENEFICIARY, type CasePart, type Check, type E2eContext } from './case-setup';
import { amountSource, outcomes, rerunTools, UNPACED_CREDENTIAL, until, webhookStart } from './rerun-tools';
import { CREDENTIAL_TYPE, money, node, TYPES, type CredentialRef, type WorkflowNode } from './workflows';

const PREVIEW = 'Preview payouts';
const REQUEST = 'Approval request';
const PAY = 'Pay the approved plan';
const PAYOUT_ROUTE = 'post_money_v1_payout';
const UNPACED = { velocityLimit: 10_000, velocityWindowSeconds: 1 };

interface Row {
	ref: string;
	amount: number;
	identifier: string;
}

/** The sheet the workflow reads: served on loopback, each check its own, changed between approval and run. */
function sheetServer() {
	const sheets = new Map<string, Row[]>();
	let base: Promise<string> | undefined;
	const start = () =>
		(base ??= new Promise((resolve) => {
			const server = http.createServer((req, res) => {
				const rows = sheets.get(String(req.url).split('/').pop() ?? '');
				res.writeHead(rows ? 200 : 404, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ rows: rows ?? [] }));
			});
			server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/sheet`));
			server.unref();
		}));
	return {
		/** A new sheet holding `rows`; its URL. */
		async open(rows: Row[]): Promise<{ url: string; set(next: Row[]): void }> {
			const key = crypto.randomBytes(6).toString('hex');
			sheets.set(key, rows);
			return { url: `${await start()}/${key}`, set: (next) => sheets.set(key, next) };
		},
	};
}

const httpGet = (name: string, url: string): WorkflowNode => ({ name, type: TYPES.httpRequest, typeVersion: 4.2, parameters: { url, options: {} } });
const splitOut = (name: string): WorkflowNode => ({ name, type: TYPES.splitOut, typeVersion: 1, parameters: { fieldToSplitOut: 'rows', options: {} } });

export function build(ctx: E2eContext): CasePart {
	const { control, info } = ctx.sandbox;
	const second = info.otherClients[0];
	const tools = rerunTools(ctx);
	const sheets = sheetServer();
	const { ids, wf } = keyedWorkflows('e2eApprove');
	const amount = amountSource(63_000);
	const run = crypto.randomBytes(3).toString('hex');
	const switchable: CredentialRef = { id: 'e2eApproveSwitched', name: 'Money sandbox, switched after approval (e2e)' };
	const starts: Record<string, string> = {};

	/** Start (webhook: the sheet's URL) → read → preview → approval request → Wait → read again → pay with Approved Plan. */
	function approvalWorkflow(key: string, cred: CredentialRef) {
		const start = webhookStart(`approve-${key}`);
		starts[key] = start.path;
		const create = (options: Record<string, unknown>) =>
			money.create('payout', { amount: '={{ $json.amount }}', identifier: '={{ $json.identifier }}', businessReference: '={{ $json.ref }}', options: { maxRetries: 0, ...options } });
		const nodes: WorkflowNode[] = [
			start.node,
			httpGet('Read the sheet', '={{ $json.body.sheet }}'),
			splitOut('One item per row'),
			node.money(PREVIEW, { ...create({}), preview: true }, { cred }),
			{ ...node.set(REQUEST, { plan_id: `={{ $('${PREVIEW}').first().json.plan_id }}`, approve_url: '={{ $execution.resumeUrl }}' }), executeOnce: true },
			{ name: 'Wait for approval', type: 'n8n-nodes-base.wait', typeVersion: 1.1, parameters: { resume: 'webhook', options: {} }, webhookId: crypto.randomUUID() },
			httpGet('Read the sheet again', "={{ $('Start run').first().json.body.sheet }}"),
			splitOut('One item per row, again'),
			node.money(PAY, { ...create({ approvedPlan: `={{ $('${PREVIEW}').first().json.plan_id }}` }), preview: false }, { cred }),
		];
		return wf(key, `e2e payout sheet approved on a Wait node, then paid with Approved Plan (${key})`, nodes);
	}
	const workflows = [approvalWorkflow('Sheet', UNPACED_CREDENTIAL), approvalWorkflow('Switch', switchable)];
	const active = new Set<string>();

	const payoutPosts = async () => (await control.counters()).requests[PAYOUT_ROUTE] || 0;
	const rowsOf = (...amounts: number[]): Row[] => amounts.map((value, index) => ({ ref: `approve-${run}-${value}`, amount: value, identifier: index % 2 === 0 ? BENEFICIARY : OTHER_BENEFICIARY }));
	/** How many payouts of each amount the API holds, on either client. */
	async function paidTimes(amounts: number[]): Promise<number[]> {
		const [first, other] = await Promise.all([control.ledger(), control.ledger(second.clientId)]);
		const all = [...first.payouts, ...other.payouts].map((entry) => Math.abs(entry.amount.value));
		return amounts.map((value) => all.filter((each) => each === value).length);
	}

	/**
	 * One approval: the sheet is previewed, `beforeResume` runs while the execution waits for the
	 * person (it may change the sheet or the credential), then the execution is resumed by its
	 * resume URL, as the approver's click does; resolves with the finished execution.
	 */
	async function approve(key: string, rows: Row[], beforeResume: (sheet: { set(next: Row[]): void }) => Promise<void> = async () => {}): Promise<Execution> {
		if (!active.has(key)) {
			await ctx.api.activateWorkflow(ids[key]);
			active.add(key);
		}
		const sheet = await sheets.open(rows);
		await tools.fireWebhook(starts[key], { sheet: sheet.url });
		const waiting = await until(`the approval of ${key} to wait for its person`, async () => {
			const executions = await ctx.api.listExecutions({ workflowId: ids[key], status: 'waiting' });
			return executions.find((execution) => ctx.output(execution, 'Start run')?.[0]?.body?.sheet === sheet.url && (ctx.output(execution, REQUEST) || []).length > 0);
		});
		const [request] = ctx.output(waiting, REQUEST) as Json[];
		assert.match(String(request.plan_id), /^plan-[0-9a-f]{40}$/);
		await beforeResume(sheet);
		const resume = new URL(String(request.approve_url));
		const answer = await fetch(`${ctx.n8n.url}${resume.pathname}${resume.search}`);
		assert.equal(answer.status, 200, `the resume URL answered HTTP ${answer.status}: ${(await answer.text()).slice(0, 200)}`);
		return await ctx.api.settledExecution(waiting.id, { timeoutMs: 60_000 });
	}

	const errorOf = (execution: Execution) => String(execution.data?.resultData?.error?.message ?? '');

	const checks: Check[] = [
		{
			name: 'approval: a payout sheet approved on a Wait node (resumed by its URL) is paid once, exactly: every row, no other',
			async fn() {
				await tools.withRoomyClient(async () => {
					const rows = rowsOf(amount(), amount(), amount());
					const before = await payoutPosts();
					const done = await approve('Sheet', rows);
					assert.equal(done.status, 'success', errorOf(done));
					const paid = ctx.output(done, PAY) || [];
					assert.deepEqual(outcomes(paid), ['created', 'created', 'created']);
					assert.deepEqual(await paidTimes(rows.map((row) => row.amount)), [1, 1, 1]);
					assert.equal(await payoutPosts(), before + 3, 'payouts sent beside the approved rows');
				});
			},
		},
		{
			name: 'approval: a row edited, a row added or a row removed between approval and run refuses the whole run; the API holds nothing new',
			async fn() {
				await tools.withRoomyClient(async () => {
					const before = await payoutPosts();
					const [edited, added, removed] = [rowsOf(amount(), amount()), rowsOf(amount(), amount()), rowsOf(amount(), amount())];
					const extra = rowsOf(amount())[0];
					const bigger = amount();
					const runs = await Promise.all([
						approve('Sheet', edited, async (sheet) => sheet.set([edited[0], { ...edited[1], amount: bigger }])),
						approve('Sheet', added, async (sheet) => sheet.set([...added, extra])),
						approve('Sheet', removed, async (sheet) => sheet.set(removed.slice(0, 1))),
					]);
					const said = runs.map(errorOf);
					for (const [index, execution] of runs.entries()) {
						assert.equal(execution.status, 'error', `run ${index + 1} was not refused`);
						assert.match(said[index], /^Payout run refused, nothing was sent: the rows are not the approved plan plan-[0-9a-f]{40} \(Approved Plan\)/);
					}
					assert.ok(said[0].includes(`1 changed: ${edited[1].ref} (amount ${edited[1].amount} → ${bigger})`), said[0]);
					assert.ok(said[1].includes(`1 row added since the approval: ${extra.ref} (${extra.amount} XOF to ${extra.identifier})`), said[1]);
					assert.ok(said[2].includes(`1 removed: ${removed[1].ref} (${removed[1].amount} XOF to ${removed[1].identifier})`), said[2]);
					assert.equal(await payoutPosts(), before, 'a refused run sent a payout');
					const all = [...edited, ...added, ...removed, extra].map((row) => row.amount);
					assert.deepEqual(await paidTimes([...all, bigger]), [...all, bigger].map(() => 0));
				});
			},
		},
		{
			name: 'approval: the credential switched to another API client between approval and run refuses the whole run; neither client holds a payout',
			async fn() {
				await tools.withRoomyClient(async () => {
					const rows = rowsOf(amount(), amount());
					const done = await approve('Switch', rows, async () => {
						const res = await ctx.session.request('PATCH', `/rest/credentials/${switchable.id}`, { name: switchable.name, type: CREDENTIAL_TYPE, data: moneyCredentialFor({ ...info, ...second }, UNPACED) });
						assert.equal(res.status, 200, `editing the credential answered ${res.status}: ${res.text.slice(0, 300)}`);
					});
					assert.equal(done.status, 'error');
					assert.ok(errorOf(done).includes(`the credential now goes to the Money API client ${second.clientId} at `), errorOf(done));
					assert.deepEqual(await paidTimes(rows.map((row) => row.amount)), [0, 0]);
				});
			},
		},
		{
			name: 'approval: a Retry of an approved run that failed part-way (the wallet ran dry) pays the rest, nothing twice',
			async fn() {
				await tools.withRoomyClient(async () => {
					const rows = rowsOf(amount(), amount(), amount(), amount());
					const amounts = rows.map((row) => row.amount);
					const failed = await approve('Sheet', rows, async () => {
						await control.updateClient(info.clientId, { balance: amounts[0] + amounts[1] + 100 });
					});
					assert.equal(failed.status, 'error');
					assert.match(errorOf(failed), /INSUFFICIENT_FUNDS/);
					assert.deepEqual(await paidTimes(amounts), [1, 1, 0, 0]);

					await control.updateClient(info.clientId, { balance: 100_000_000 });
					const retried = await tools.retry(failed.id, false);
					assert.equal(retried.status, 'success', `${retried.error ?? ''} ${retried.errorDescription ?? ''}`);
					assert.deepEqual(outcomes(retried.output(PAY)), ['replayed', 'replayed', 'created', 'created']);
					assert.deepEqual(await paidTimes(amounts), [1, 1, 1, 1]);
				});
			},
		},
	];
	const credentials = [tools.unpacedCredential, { id: switchable.id, name: switchable.name, type: CREDENTIAL_TYPE, data: moneyCredentialFor(info, UNPACED) }];
	return { workflows, checks, credentials };
}

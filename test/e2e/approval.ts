/**
 * Approved Plan in a real n8n server (issue 39, docs/idempotency.md "Approved Plan"), run on the
 * example examples/approve-payout-run.json as shipped, its manual trigger a webhook and its two
 * reads of the sheet reads of a sheet this process serves on loopback: the sheet is previewed, the
 * execution waits on n8n's Wait node for a person, who resumes it by its resume URL; the sheet is
 * read again and paid with Approved Plan set to the preview's plan id. Between the approval and the
 * run the check edits, extends or shortens the sheet, or points the credential at another API
 * client: the run pays exactly the approved plan, or nothing. A Retry of an approved run that
 * failed part-way pays the rest once (the example with On Error at Stop Workflow, so the execution
 * fails). Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

import type { Execution, Json } from '../../scripts/n8n';
import { moneyCredentialFor } from '../../sandbox/control/credential';
import { BENEFICIARY, keyedWorkflows, OTHER_BENEFICIARY, type CasePart, type Check, type E2eContext } from './case-setup';
import { amountSource, outcomes, rerunTools, UNPACED_CREDENTIAL, until, webhookStart } from './rerun-tools';
import { CREDENTIAL_TYPE, credentialRef, TYPES, type CredentialRef, type WorkflowNode } from './workflows';

const EXAMPLE = 'approve-payout-run.json';
const START = 'Start payout run';
const SHEET = 'Payouts (replace with your sheet)';
const SHEET_AGAIN = 'Payouts read again (replace with your sheet)';
const REQUEST = 'Approval request';
const PAY = 'Pay the approved plan';
const FAILED = 'Failed payouts (check them, fix, run again)';
const PAYOUT_ROUTE = 'post_money_v1_payout';
const UNPACED = { velocityLimit: 10_000, velocityWindowSeconds: 1 };

/** A row of the sheet, in the example's columns. */
interface Row {
	order_id: string;
	beneficiary: string;
	identifier_type: 'gm_account';
	account_type: '';
	amount: number;
	note: string;
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
	const example = JSON.parse(fs.readFileSync(path.join(ctx.repo, 'examples', EXAMPLE), 'utf8')) as { nodes: WorkflowNode[]; connections: Json };

	/**
	 * The example, started by a webhook given the sheet's URL, both sheet reads reading it; `stops`:
	 * the paying node's On Error at Stop Workflow (the example sends failed rows to its error output).
	 */
	function approvalWorkflow(key: string, cred: CredentialRef, stops: boolean) {
		const start = webhookStart(`approve-${key}`);
		starts[key] = start.path;
		const replaced: Record<string, WorkflowNode> = {
			[START]: { ...start.node, name: START },
			[SHEET]: httpGet(SHEET, '={{ $json.body.sheet }}'),
			[SHEET_AGAIN]: httpGet(SHEET_AGAIN, `={{ $('${START}').first().json.body.sheet }}`),
		};
		const nodes = example.nodes.map((each): WorkflowNode => {
			if (replaced[each.name]) return { ...replaced[each.name], position: each.position } as WorkflowNode;
			const copy: WorkflowNode = { ...each, ...(each.credentials ? { credentials: credentialRef(cred) } : {}) };
			if (each.type === 'n8n-nodes-base.wait') copy.webhookId = crypto.randomUUID();
			if (each.name === PAY && stops) delete copy.onError;
			return copy;
		});
		return { ...wf(key, `e2e ${EXAMPLE} (${key}): approved on its Wait node, then paid with Approved Plan`, nodes), connections: example.connections };
	}
	const workflows = [approvalWorkflow('Example', UNPACED_CREDENTIAL, false), approvalWorkflow('Stops', switchable, true)];
	const active = new Set<string>();

	const payoutPosts = async () => (await control.counters()).requests[PAYOUT_ROUTE] || 0;
	const rowsOf = (...amounts: number[]): Row[] =>
		amounts.map((value, index) => ({ order_id: `approve-${run}-${value}`, beneficiary: index % 2 === 0 ? BENEFICIARY : OTHER_BENEFICIARY, identifier_type: 'gm_account', account_type: '', amount: value, note: 'approved' }));
	/** How many payouts of each amount the API holds, on either client. */
	async function paidTimes(amounts: number[]): Promise<number[]> {
		const [first, other] = await Promise.all([control.ledger(), control.ledger(second.clientId)]);
		const all = [...first.payouts, ...other.payouts].map((entry) => Math.abs(entry.amount.value));
		return amounts.map((value) => all.filter((each) => each === value).length);
	}

	/**
	 * The ids of the workflow's waiting executions, from the editor's API: n8n 1.x keeps a waiting
	 * execution among its active ones, which its public API leaves out of every list.
	 */
	async function waitingIds(workflowId: string): Promise<string[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId, status: ['waiting'] }));
		const res = await ctx.session.request('GET', `/rest/executions?filter=${filter}&limit=50`);
		assert.equal(res.status, 200, `listing waiting executions answered ${res.status}: ${res.text.slice(0, 300)}`);
		return (JSON.parse(res.text).data.results as Json[]).map((execution) => String(execution.id));
	}

	/**
	 * One approval: the sheet is previewed, `beforeResume` runs while the execution waits for the
	 * person (it may change the sheet or the credential), then the execution is resumed by its
	 * resume URL, as the approver's click does; resolves with the approval request and the finished execution.
	 */
	async function approve(key: string, rows: Row[], beforeResume: (sheet: { set(next: Row[]): void }) => Promise<void> = async () => {}): Promise<{ request: Json; done: Execution }> {
		if (!active.has(key)) {
			await ctx.api.activateWorkflow(ids[key]);
			active.add(key);
		}
		const sheet = await sheets.open(rows);
		await tools.fireWebhook(starts[key], { sheet: sheet.url });
		const waiting = await until(`the approval of ${key} to wait for its person`, async () => {
			for (const id of await waitingIds(ids[key])) {
				const execution = await ctx.api.getExecution(id);
				if (ctx.output(execution, START)?.[0]?.body?.sheet === sheet.url && (ctx.output(execution, REQUEST) || []).length > 0) return execution;
			}
			return undefined;
		});
		const [request] = ctx.output(waiting, REQUEST) as Json[];
		assert.match(String(request.plan_id), /^plan-[0-9a-f]{40}$/);
		await beforeResume(sheet);
		const resume = new URL(String(request.approve_url));
		const answer = await fetch(`${ctx.n8n.url}${resume.pathname}${resume.search}`);
		assert.equal(answer.status, 200, `the resume URL answered HTTP ${answer.status}: ${(await answer.text()).slice(0, 200)}`);
		// Right after the resume n8n may still show the execution as it was before the Wait node: wait for the paying node's run.
		const done = await until(`the approval of ${key} to reach ${PAY}`, async () => {
			const execution = await ctx.api.settledExecution(waiting.id, { timeoutMs: 60_000 });
			return execution.data?.resultData?.runData?.[PAY] ? execution : undefined;
		});
		return { request, done };
	}

	const errorOf = (execution: Execution) => String(execution.data?.resultData?.error?.message ?? '');
	/** The errors of the rows the example's paying node sent to Failed payouts. */
	const failedOf = (execution: Execution) => (ctx.output(execution, FAILED) || []).map((item: Json) => String((item.error as Json | undefined)?.message));

	const setCredential = async (client: typeof info) => {
		const res = await ctx.session.request('PATCH', `/rest/credentials/${switchable.id}`, { name: switchable.name, type: CREDENTIAL_TYPE, data: moneyCredentialFor(client, UNPACED) });
		assert.equal(res.status, 200, `editing the credential answered ${res.status}: ${res.text.slice(0, 300)}`);
	};

	const checks: Check[] = [
		{
			onN8n1: 'n8n 1.x resumes a Wait node by its URL with its own code, and shows the resumed execution differently',
			name: 'approval: the example approved on its Wait node (resumed by its URL) asks with the counts, the total against the balance and the length, and pays once, exactly: every row, no other',
			async fn() {
				await tools.withRoomyClient(async () => {
					const rows = rowsOf(amount(), amount(), amount());
					const before = await payoutPosts();
					const { request, done } = await approve('Example', rows);
					const total = rows.reduce((sum, row) => sum + row.amount, 0);
					assert.deepEqual([request.rows_to_pay, request.rows_refused, request.total, request.currency, request.balance, request.minutes], [3, 0, total, 'XOF', 100_000_000, 0]);
					assert.equal(done.status, 'success', errorOf(done));
					assert.deepEqual(outcomes(ctx.output(done, PAY) || []), ['created', 'created', 'created']);
					assert.deepEqual(failedOf(done), []);
					assert.deepEqual(await paidTimes(rows.map((row) => row.amount)), [1, 1, 1]);
					assert.equal(await payoutPosts(), before + 3, 'payouts sent beside the approved rows');
				});
			},
		},
		{
			onN8n1: "the refused rows leave by the example's error output, which n8n 1.x builds differently",
			name: 'approval: a row edited, a row added or a row removed between approval and run refuses the whole run (every row on the example\'s error output); the API holds nothing new',
			async fn() {
				await tools.withRoomyClient(async () => {
					const before = await payoutPosts();
					const [edited, added, removed] = [rowsOf(amount(), amount()), rowsOf(amount(), amount()), rowsOf(amount(), amount())];
					const extra = rowsOf(amount())[0];
					const bigger = amount();
					const runs = await Promise.all([
						approve('Example', edited, async (sheet) => sheet.set([edited[0], { ...edited[1], amount: bigger }])),
						approve('Example', added, async (sheet) => sheet.set([...added, extra])),
						approve('Example', removed, async (sheet) => sheet.set(removed.slice(0, 1))),
					]);
					const said = runs.map(({ done }) => failedOf(done));
					for (const [index, { done }] of runs.entries()) {
						assert.equal(done.status, 'success', errorOf(done));
						assert.deepEqual(ctx.output(done, PAY) || [], [], `run ${index + 1} paid a row`);
						assert.equal(said[index].length, [2, 3, 1][index], `run ${index + 1}: every row of the run on the error output`);
						assert.equal(new Set(said[index]).size, 1, `run ${index + 1}: one refusal for the whole run`);
						assert.match(said[index][0], /^Payout run refused, nothing was sent: the rows are not the approved plan plan-[0-9a-f]{40} \(Approved Plan\)/);
					}
					assert.ok(said[0][0].includes(`1 changed: ${edited[1].order_id} (amount ${edited[1].amount} → ${bigger})`), said[0][0]);
					assert.ok(said[1][0].includes(`1 row added since the approval: ${extra.order_id} (${extra.amount} XOF to ${extra.beneficiary})`), said[1][0]);
					assert.ok(said[2][0].includes(`1 removed: ${removed[1].order_id} (${removed[1].amount} XOF to ${removed[1].beneficiary})`), said[2][0]);
					assert.equal(await payoutPosts(), before, 'a refused run sent a payout');
					const all = [...edited, ...added, ...removed, extra].map((row) => row.amount);
					assert.deepEqual(await paidTimes([...all, bigger]), [...all, bigger].map(() => 0));
				});
			},
		},
		{
			onN8n1: 'the credential is read in an execution n8n 1.x resumed from a Wait node',
			name: 'approval: the credential switched to another API client between approval and run refuses the whole run; neither client holds a payout',
			async fn() {
				await tools.withRoomyClient(async () => {
					const rows = rowsOf(amount(), amount());
					try {
						const { done } = await approve('Stops', rows, () => setCredential({ ...info, ...second }));
						assert.equal(done.status, 'error');
						assert.ok(errorOf(done).includes(`the credential now goes to the Money API client ${second.clientId} at `), errorOf(done));
						assert.deepEqual(await paidTimes(rows.map((row) => row.amount)), [0, 0]);
					} finally {
						await setCredential(info);
					}
				});
			},
		},
		{
			name: 'approval: a Retry of an approved run that failed part-way (the wallet ran dry) pays the rest, nothing twice',
			async fn() {
				await tools.withRoomyClient(async () => {
					const rows = rowsOf(amount(), amount(), amount(), amount());
					const amounts = rows.map((row) => row.amount);
					const { done: failed } = await approve('Stops', rows, async () => {
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

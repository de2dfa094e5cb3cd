/**
 * kill -9 of n8n in workflows shaped as users build them (issue 22, item 3), then a restart and
 * n8n's Retry of each crashed execution: a Money node on the loop output of Loop Over Items (60
 * rows in batches of 10, killed during batch 3), on an IF's false branch, with a sibling branch
 * that crashed before the Money node ever ran, and with "Save execution progress" on. The
 * crash-recovery guard must catch every replay of rows it cannot recognise and refuse nothing else
 * (docs/idempotency.md, "After a crash"). Run by scripts/e2e.ts after reruns.ts.
 */

import { strict as assert } from 'node:assert';

import { BENEFICIARY, keyedWorkflows, OTHER_BENEFICIARY, type CasePart, type Check, type E2eContext } from './case-setup';
import { amountSource, rerunTools, rowNodes, UNPACED_CREDENTIAL, until, webhookStart } from './rerun-tools';
import { money, node, type Workflow, type WorkflowNode } from './workflows';

const PAY = 'Pay';
const PAYOUT_ROUTE = 'post_money_v1_payout';
const ACCOUNT_ROUTE = 'get_money_v1_account';

/** An IF node whose condition no row meets: every row leaves on its false branch (output 1). */
const noRowIsNegative: WorkflowNode = {
	name: 'Negative?',
	type: 'n8n-nodes-base.if',
	typeVersion: 2,
	parameters: {
		conditions: {
			options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' },
			conditions: [{ id: 'c1', leftValue: '={{ $json.amount }}', rightValue: 0, operator: { type: 'number', operation: 'lt' } }],
			combinator: 'and',
		},
		options: {},
	},
};

/** An IF node sending the rows paid to BENEFICIARY to its true branch, the others to its false branch. */
const toBeneficiary: WorkflowNode = {
	name: 'To the first beneficiary?',
	type: 'n8n-nodes-base.if',
	typeVersion: 2,
	parameters: {
		conditions: {
			options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' },
			conditions: [{ id: 'c1', leftValue: '={{ $json.identifier }}', rightValue: BENEFICIARY, operator: { type: 'string', operation: 'equals' } }],
			combinator: 'and',
		},
		options: {},
	},
};

const connect = (to: string, index = 0) => ({ node: to, type: 'main', index });

interface CrashRun {
	key: string;
	path: string;
	amounts: number[];
	/** The run has gone far enough to be killed. */
	ready(): Promise<boolean>;
}

export function build(ctx: E2eContext): CasePart {
	const { control } = ctx.sandbox;
	const tools = rerunTools(ctx);
	const { ids, wf } = keyedWorkflows('e2eCrash');
	const amount = amountSource(81_000);
	const rowsOf = (key: string, count: number) =>
		Array.from({ length: count }, (_, index) => {
			const value = amount();
			return { identifier: index % 2 ? OTHER_BENEFICIARY : BENEFICIARY, amount: value, ref: `crash-${key}-${value}` };
		});
	const pay = (withReference: boolean, continueOnFail = false) =>
		node.money(
			PAY,
			money.create('payout', { amount: '={{ $json.amount }}', identifier: '={{ $json.identifier }}', ...(withReference ? { businessReference: '={{ $json.ref }}' } : {}), options: { maxRetries: 0 } }),
			{ cred: UNPACED_CREDENTIAL, continueOnFail },
		);
	const paidCount = async (amounts: number[]) => (await tools.ledgerRows('payout', amounts)).length;
	const workflows: Workflow[] = [];

	/** A webhook-started run, so that it runs inside the server that gets killed. */
	function crashRun(key: string, count: number, shape: (rows: unknown[], start: WorkflowNode) => Workflow, ready?: (amounts: number[]) => Promise<boolean>): CrashRun {
		const rows = rowsOf(key, count);
		const start = webhookStart(key);
		workflows.push(shape(rows, start.node));
		const amounts = rows.map((row) => row.amount);
		return { key, path: start.path, amounts, ready: ready ? () => ready(amounts) : async () => (await paidCount(amounts)) >= 2 };
	}

	const loopShape = (key: string, withReference: boolean, continueOnFail: boolean, saveProgress = false) => (rows: unknown[], start: WorkflowNode) => {
		const w = wf(key, `e2e 60 rows in batches of 10, killed during batch 3 (${withReference ? 'with' : 'without'} Business Reference${saveProgress ? ', progress saved' : ''})`, [
			start,
			...rowNodes(rows),
			{ name: 'Loop Over Items', type: 'n8n-nodes-base.splitInBatches', typeVersion: 3, parameters: { batchSize: 10, options: {} } },
			pay(withReference, continueOnFail),
		]);
		w.connections['Loop Over Items'] = { main: [[], [connect(PAY)]] };
		w.connections[PAY] = { main: [[connect('Loop Over Items')]] };
		if (saveProgress) w.settings = { ...w.settings, saveExecutionProgress: true };
		return w;
	};
	const inBatch3 = async (amounts: number[]) => (await paidCount(amounts)) >= 22;
	const loopRuns = [
		crashRun('LoopNoRef', 60, loopShape('LoopNoRef', false, true), inBatch3),
		crashRun('LoopRef', 60, loopShape('LoopRef', true, false), inBatch3),
		crashRun('LoopProgress', 60, loopShape('LoopProgress', false, false, true), inBatch3),
	];

	const ifFalseShape = (key: string) => (rows: unknown[], start: WorkflowNode) => {
		const w = wf(key, 'e2e payouts on an IF false branch (with Business Reference)', [start, ...rowNodes(rows), noRowIsNegative, pay(true)]);
		w.connections[noRowIsNegative.name] = { main: [[], [connect(PAY)]] };
		return w;
	};
	/**
	 * An IF sends half the rows to a branch that reads the account (held by the sandbox until the
	 * kill, placed above so that n8n runs it first) and half to the Money node, which never runs
	 * before the crash. `payOn` is the IF output the Money node hangs on (0 true, 1 false).
	 */
	const siblingShape = (key: string, payOn: 0 | 1) => (rows: unknown[], start: WorkflowNode) => {
		const reader = { ...node.money('Read account', money.accountGet({ maxRetries: 0 }), { cred: UNPACED_CREDENTIAL }), position: [880, -300], executeOnce: true };
		const payer = { ...pay(false), position: [880, 0] };
		const w = wf(key, `e2e sibling branch crashes before the Money node (IF output ${payOn}) runs`, [start, ...rowNodes(rows), toBeneficiary, reader, payer]);
		w.connections[toBeneficiary.name] = { main: payOn === 0 ? [[connect(PAY)], [connect(reader.name)]] : [[connect(reader.name)], [connect(PAY)]] };
		w.connections[reader.name] = { main: [[]] };
		return w;
	};
	const progressShape = (key: string) => (rows: unknown[], start: WorkflowNode) => {
		const w = wf(key, 'e2e payouts with Save execution progress on (without Business Reference)', [start, ...rowNodes(rows), pay(false)]);
		w.settings = { ...w.settings, saveExecutionProgress: true };
		return w;
	};
	let accountReadsBefore = 0;
	const siblingReadsHeld = async () => ((await control.counters()).requests[ACCOUNT_ROUTE] || 0) >= accountReadsBefore + 2;
	const shapeRuns = [
		crashRun('IfRef', 6, ifFalseShape('IfRef')),
		crashRun('SiblingFalse', 6, siblingShape('SiblingFalse', 1), siblingReadsHeld),
		crashRun('SiblingTrue', 6, siblingShape('SiblingTrue', 0), siblingReadsHeld),
		crashRun('Progress', 6, progressShape('Progress')),
	];

	// Paid without a Business Reference until the kill; one is mapped afterwards (a check of its own).
	const addedReferenceRun = crashRun('AddedRef', 6, (rows, start) => wf('AddedRef', 'e2e payouts without Business Reference, one mapped after the crash', [start, ...rowNodes(rows), pay(false)]));

	/** Starts the runs, kills n8n once each is ready, restarts it and retries each crashed execution. */
	async function crashAndRetry(runs: CrashRun[]) {
		const report: Record<string, any> = {};
		for (const run of runs) await ctx.api.activateWorkflow(ids[run.key]);
		for (const run of runs) await tools.fireWebhook(run.path);
		for (const run of runs) await until(`${run.key} to reach the point of the kill`, run.ready);
		await ctx.restartN8n({ kill: true });
		await control.clearFaults();
		for (const run of runs) {
			const entry: Record<string, any> = { paidBeforeRetry: await paidCount(run.amounts) };
			const crashed = await tools.latestExecution(ids[run.key]);
			entry.crashed = crashed && crashed.status;
			const retried = await tools.retry((crashed as { id: string }).id, false);
			Object.assign(entry, { retry: retried.status || `HTTP ${retried.httpStatus}`, retryError: retried.error && retried.error.slice(0, 120), retryDescription: retried.errorDescription });
			entry.refusedItems = retried.execution ? countRefused(retried) : 0;
			entry.paidAfter = await paidCount(run.amounts);
			entry.paidTwice = await tools.paidTwice('payout', run.amounts);
			report[run.key] = entry;
		}
		return report;
	}

	/** Error items the Money node gave in every run of the retried execution. */
	function countRefused(retried: Awaited<ReturnType<typeof tools.retry>>): number {
		const runs = (retried.execution && retried.execution.data.resultData.runData[PAY]) || [];
		return runs.reduce((sum: number, _run: unknown, runIndex: number) => sum + retried.output(PAY, { runIndex }).filter((item) => /lost in a crash/.test(String(item.error))).length, 0);
	}

	const checks: Check[] = [
		{
			onN8n1: 'how n8n rebuilds a loop it lost in a crash is its own per line',
			name: 'kill -9 during batch 3 of Loop Over Items (60 rows in batches of 10), restart, Retry: no row paid twice; with a Business Reference or saved progress all 60 paid',
			async fn() {
				const report = await tools.withRoomyClient(async () => {
					await control.addFault({ route: PAYOUT_ROUTE, kind: 'delay', delayMs: 400 });
					return await crashAndRetry(loopRuns);
				});
				ctx.note(`kill -9 in Loop Over Items: ${JSON.stringify(report)}`);
				for (const [key, entry] of Object.entries(report)) assert.deepEqual(entry.paidTwice, [], `${key} paid rows twice: ${JSON.stringify(report)}`);
				assert.equal(report.LoopNoRef.paidAfter, report.LoopNoRef.paidBeforeRetry, 'without a Business Reference the Retry must send nothing');
				assert.equal(report.LoopNoRef.refusedItems, 60, 'every row of every batch is refused, naming the crash');
				assert.equal(report.LoopRef.retry, 'success', JSON.stringify(report.LoopRef));
				assert.equal(report.LoopRef.paidAfter, 60);
				// With "Save execution progress" on, n8n resumes batch 3 with the node's memory of batches 1-2: the same keys.
				assert.equal(report.LoopProgress.retry, 'success', JSON.stringify(report.LoopProgress));
				assert.equal(report.LoopProgress.paidAfter, 60);
			},
		},
		{
			onN8n1: 'the order in which n8n runs branches, and what it saves of them, is its own per line',
			name: 'kill -9 with a Money node on an IF false branch, after a sibling branch crashed first, with Save execution progress on: Retry pays each row once or refuses',
			async fn() {
				accountReadsBefore = (await control.counters()).requests[ACCOUNT_ROUTE] || 0;
				const report = await tools.withRoomyClient(async () => {
					await control.addFault({ route: ACCOUNT_ROUTE, kind: 'delay', delayMs: 120_000, count: 2 });
					// Slow enough that IfRef, ready at 2 of 6 paid, is still paying when the last run is ready (at 1.5 s a row it once reached 5).
					await control.addFault({ route: PAYOUT_ROUTE, kind: 'delay', delayMs: 5000 });
					return await crashAndRetry(shapeRuns);
				});
				ctx.note(`kill -9 in other shapes: ${JSON.stringify(report)}`);
				for (const [key, entry] of Object.entries(report)) assert.deepEqual(entry.paidTwice, [], `${key} paid rows twice: ${JSON.stringify(report)}`);
				assert.equal(report.IfRef.retry, 'success', `IF false branch with Business Reference: ${JSON.stringify(report.IfRef)}`);
				assert.equal(report.IfRef.paidAfter, 6);
				for (const key of ['SiblingFalse', 'SiblingTrue']) {
					assert.equal(report[key].paidBeforeRetry, 0, `${key}: the Money node ran before the crash`);
					assert.equal(report[key].retry, 'success', `${key}, a Money node that never ran before the crash: ${JSON.stringify(report[key])}`);
					assert.equal(report[key].paidAfter, 3);
				}
				assert.equal(report.Progress.retry, 'error', `Save execution progress, no Business Reference: ${JSON.stringify(report.Progress)}`);
				assert.match(String(report.Progress.retryError), /lost in a crash/);
				assert.equal(report.Progress.paidAfter, report.Progress.paidBeforeRetry);
			},
		},
		{
			name: 'kill -9 without a Business Reference, one mapped afterwards, Retry with the currently saved workflow: the refusal does not suggest it, and it pays the rows paid before the crash again (a limit)',
			async fn() {
				const report = await tools.withRoomyClient(async () => {
					await control.addFault({ route: PAYOUT_ROUTE, kind: 'delay', delayMs: 1500 });
					const { AddedRef: crashed } = await crashAndRetry([addedReferenceRun]);
					const saved = await ctx.api.getWorkflow(ids.AddedRef);
					saved.nodes.find((n: WorkflowNode) => n.name === PAY).parameters.businessReference = '={{ $json.ref }}';
					await ctx.api.deactivateWorkflow(ids.AddedRef);
					await ctx.api.call('PUT', `/workflows/${ids.AddedRef}`, { name: saved.name, nodes: saved.nodes, connections: saved.connections, settings: saved.settings });
					const [lost] = (await ctx.api.listExecutions({ workflowId: ids.AddedRef, includeData: false })).filter((execution) => execution.status === 'crashed');
					const withReference = await tools.retry(lost.id, true);
					return { crashed, withReference: { retry: withReference.status, paidAfter: await paidCount(addedReferenceRun.amounts), paidTwice: await tools.paidTwice('payout', addedReferenceRun.amounts) } };
				});
				ctx.note(`kill -9, Business Reference mapped after it: ${JSON.stringify(report)}`);
				assert.equal(report.crashed.retry, 'error', JSON.stringify(report));
				assert.match(String(report.crashed.retryError), /lost in a crash/);
				assert.match(String(report.crashed.retryDescription), /Do not map a Business Reference and retry/, 'the refusal must warn against the Retry that pays again, not suggest it');
				assert.equal(report.withReference.paidTwice.length, report.crashed.paidBeforeRetry, `the limit: the rows paid before the crash are paid again: ${JSON.stringify(report)}`);
			},
		},
	];
	return { workflows, checks, credentials: [tools.unpacedCredential] };
}

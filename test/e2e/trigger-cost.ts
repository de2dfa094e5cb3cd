/**
 * What one Money Trigger event costs n8n's database with the memory full (docs/webhook-memory.md,
 * what it costs): the bytes n8n stores for the event's execution (its `execution_data` row), read
 * from n8n's SQLite database. Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as path from 'node:path';

import { n8nVersion } from '../../scripts/n8n';
import { REMEMBERED_TRANSACTIONS, REMEMBERED_TRANSACTIONS_ON_N8N_1 } from '../../nodes/MoneyTrigger/memory/statuses';
import { storedStatuses } from '../harness/stored-memory';
import type { CasePart, Check, E2eContext } from './case-setup';
import { chargeEvents, runTag, sendAll } from './deliveries';
import { chain, MONEY_TRIGGER_PATH, moneyTriggerParams, node, webhookIdFor } from './workflows';
import { waitRegistered } from './trigger-load';

const MOST_BYTES_PER_EVENT = 64 * 1024;
/** A memory saved full on n8n 2.x (or by the pack before it kept less on 1.x). */
const FULL = 51_000;

export function build(ctx: E2eContext): CasePart {
	const id = 'e2eTriggerCost';
	const webhookId = webhookIdFor('e2e trigger cost');
	const workflow = chain(id, 'e2e money trigger, memory full', [
		node.moneyTrigger('Money Trigger', moneyTriggerParams({ resources: ['charge'], statuses: ['COMPLETED'] }), { webhookId }),
		node.set('Received', { received: '={{ $json.id }}' }, { includeOtherFields: true }),
	]);
	// The trigger's memory and that of a trigger node since deleted from the workflow, each saved full.
	const triggerNode = `${id}-n0`;
	workflow.staticData = { global: { moneyTriggerMemory: { writer: 'e2e-full:1', nodes: { [triggerNode]: fullMemory(FULL), deletedNode: fullMemory(FULL) } } } };
	const url = () => `${ctx.n8n.url}/webhook/${webhookId}/${MONEY_TRIGGER_PATH}`;

	const checks: Check[] = [
		{
			onN8n1: 'n8n 1.x stores the static data with every execution',
			name: `n8n assumption: n8n 1.x stores a workflow's static data with every execution, 2.x does not: Money Trigger, what one event costs n8n's database, from the memories of the trigger and of a deleted trigger node saved with ${FULL.toLocaleString('en')} transactions each: each event's stored execution stays under ${MOST_BYTES_PER_EVENT / 1024} KB, the memories sharing ${REMEMBERED_TRANSACTIONS_ON_N8N_1.toLocaleString('en')} transactions on 1.x, each keeping ${REMEMBERED_TRANSACTIONS.toLocaleString('en')} on 2.x`,
			async fn() {
				await ctx.api.activateWorkflow(id);
				await waitRegistered(url());
				const events = chargeEvents(`cost${runTag()}`, 3);
				const sent = await sendAll(events, { target: { url: url(), scheme: 'request-style', secret: ctx.sandbox.info.webhookSecret }, concurrency: 1, maxAttempts: 3 });
				assert.equal(sent.acknowledged.size, events.length, 'events not acknowledged');
				const list = await ctx.api.waitForExecutions(id, (executions) => executions.length >= events.length && executions.every((execution) => execution.finished || execution.status === 'success'), { timeoutMs: 60_000 });
				const stored = (await ctx.api.getWorkflow(id)).staticData;
				const remembered = { trigger: nodeSize(stored, triggerNode), deletedNode: nodeSize(stored, 'deletedNode') };
				const rows = storedBytes(ctx, list.map((execution) => String(execution.id)));
				ctx.note(`Money Trigger, one event's stored execution on n8n ${n8nVersion()}, transactions remembered per node ${JSON.stringify(remembered)}: ${JSON.stringify(rows)}`);
				const capacity = n8nVersion().startsWith('1.') ? REMEMBERED_TRANSACTIONS_ON_N8N_1 / 2 : REMEMBERED_TRANSACTIONS;
				for (const size of Object.values(remembered)) assert.ok(size >= capacity && size <= capacity * 1.02, `a node's memory holds ${size} transactions, not ${capacity}: ${JSON.stringify(remembered)}`);
				for (const row of rows) assert.ok(row.total < MOST_BYTES_PER_EVENT, `execution ${row.id} stored ${row.total} bytes (workflowData ${row.workflowData}, data ${row.data})`);
			},
		},
	];
	return { workflows: [workflow], checks };
}

/**
 * A memory's stored form holding `count` transactions, each COMPLETED, after seven labels: two
 * characters a set, the widest an account of the specification's five labels and two more writes
 * (nodes/MoneyTrigger/memory/statuses.ts).
 */
function fullMemory(count: number): { labels: string[]; records: string } {
	const records: string[] = [];
	for (let index = 0; index < count; index++) records.push(crypto.createHash('sha256').update(`full-${index}`).digest('base64url').slice(0, 10) + 'CA');
	return { labels: ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED', 'PROCESSING', 'REFUNDED'], records: records.join('') };
}

/** How many transactions one node's memory holds in the workflow's static data (statuses.ts: 10 characters of hash, then the label set). */
function nodeSize(staticData: any, nodeId: string): number {
	const stored = staticData?.global?.moneyTriggerMemory?.nodes?.[nodeId];
	if (!stored) return 0;
	return storedStatuses({ global: { moneyTriggerMemory: { nodes: { [nodeId]: stored } } } }).size;
}

/** The bytes of each execution's row in n8n's execution_data, read with the node:sqlite of n8n's own Node. */
function storedBytes(ctx: E2eContext, ids: string[]): Array<{ id: string; workflowData: number; data: number; total: number }> {
	const database = path.join(String(ctx.n8n.env.N8N_USER_FOLDER), '.n8n', 'database.sqlite');
	const script = `const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(process.argv[1], { readOnly: true });
const rows = db.prepare('SELECT executionId AS id, length(CAST(workflowData AS BLOB)) AS workflowData, length(CAST(data AS BLOB)) AS data FROM execution_data').all();
process.stdout.write(JSON.stringify(rows));`;
	const out = execFileSync(ctx.n8n.nodeBin, ['--no-warnings', '-e', script, database], { encoding: 'utf8' });
	const rows = JSON.parse(out) as Array<{ id: number; workflowData: number; data: number }>;
	return rows.filter((row) => ids.includes(String(row.id))).map((row) => ({ id: String(row.id), workflowData: row.workflowData, data: row.data, total: row.workflowData + row.data }));
}

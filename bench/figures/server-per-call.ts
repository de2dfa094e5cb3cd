/**
 * The per-call comparison in a real n8n 2.41 server (regular mode, SQLite), where reading a
 * credential costs what it costs there: a database query, the decryption and the resolution of the
 * credential's values (the engine figures read it from memory, test/harness/credentials.ts). Each
 * workflow is Webhook (answering when the last node is done) → Split Out → the node under test;
 * one more stops after Split Out, and its cost is taken off the others. Rounds rotate the order;
 * ratios are taken within a round. CPU time is that of the n8n process (user + system, every
 * thread, from /proc). A counting run (n8n's query log on) gives the database queries per call.
 */

import { chain, money, node, webhookIdFor, type Workflow, type WorkflowNode } from '../../test/e2e/workflows';
import { COUNTING_ENV, costsFromLog, cpuMs } from '../server/costs';
import { startStack, type ServerStack } from '../server/stack';
import { figure, type FigureResult, progress } from '../stats';

const KINDS = ['money', 'moneySequential', 'http', 'base'] as const;
type Kind = (typeof KINDS)[number];
type CallKind = Exclude<Kind, 'base'>;

/** Workflow ids: n8n takes at most 21 characters (test/e2e/workflows.ts `chain`). */
const WORKFLOW_IDS: Record<Kind, string> = {
	money: 'benchPerCallMoney',
	moneySequential: 'benchPerCallMoneySeq',
	http: 'benchPerCallHttp',
	base: 'benchPerCallBase',
};

/** Calls per workflow in the counting run. */
const COUNTED_CALLS = 50;

function webhookAnsweringAtTheEnd(kind: Kind): WorkflowNode {
	const path = `bench-per-call-${kind}`;
	return {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'noData', options: {} },
		webhookId: webhookIdFor(`bench ${path}`),
	};
}

function workflowOf(kind: Kind, baseUrl: string): Workflow {
	const reference = '={{ $json.reference }}';
	const last: Record<Kind, WorkflowNode[]> = {
		money: [node.money('Money', money.get('charge', reference))],
		moneySequential: [node.money('Money', money.get('charge', reference, { concurrency: 1 }))],
		http: [node.httpRequestMoney('HTTP Request', { url: `=${baseUrl}/money/v1/charge/{{ $json.reference }}` })],
		base: [],
	};
	return chain(WORKFLOW_IDS[kind], `bench per-call ${kind}`, [webhookAnsweringAtTheEnd(kind), node.splitOut('Split Out', 'body'), ...last[kind]]);
}

interface Sample {
	cpuMs: number;
	wallMs: number;
}

async function runOnce(stack: ServerStack, kind: Kind, body: string): Promise<Sample> {
	const pid = stack.n8n.process.pid as number;
	const cpuBefore = cpuMs(pid);
	const started = performance.now();
	const response = await fetch(`${stack.n8n.url}/webhook/bench-per-call-${kind}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
	const text = await response.text();
	const wallMs = performance.now() - started;
	if (!response.ok) throw new Error(`server per-call, ${kind}: HTTP ${response.status} ${text.slice(0, 300)}`);
	return { cpuMs: cpuMs(pid) - cpuBefore, wallMs };
}

/** A server with the four workflows active and `calls` charges seeded; the body that sends them. */
async function prepared(calls: number, env: Record<string, string> = {}): Promise<{ stack: ServerStack; body: string }> {
	const stack = await startStack('sqlite', { env });
	try {
		await stack.sandbox.control.seed({ resource: 'charge', count: calls, status: 'COMPLETED' });
		const references = (await stack.sandbox.control.ledger()).charges.map((entry) => String(entry.reference)).slice(0, calls);
		const workflows = KINDS.map((kind) => workflowOf(kind, stack.sandbox.info.baseUrl));
		await stack.importWorkflows(workflows);
		for (const workflow of workflows) await stack.api.activateWorkflow(workflow.id);
		return { stack, body: JSON.stringify(references.map((reference) => ({ reference }))) };
	} catch (error) {
		await stack.stop();
		throw error;
	}
}

/** Database queries per call of each node, from n8n's query log, one workflow at a time. */
async function queriesPerCall(): Promise<Record<CallKind, number>> {
	progress('server per-call: counting run (query log on)');
	const { stack, body } = await prepared(COUNTED_CALLS, COUNTING_ENV);
	try {
		for (const kind of KINDS) await runOnce(stack, kind, body);
		const queries = {} as Record<Kind, number>;
		for (const kind of KINDS) {
			const before = stack.n8n.logs().length;
			await runOnce(stack, kind, body);
			queries[kind] = costsFromLog(stack.n8n.logs().slice(before), COUNTED_CALLS).queries;
		}
		return { money: queries.money - queries.base, moneySequential: queries.moneySequential - queries.base, http: queries.http - queries.base };
	} finally {
		await stack.stop();
	}
}

export async function serverPerCallFigures(options: { calls: number; runs: number }): Promise<FigureResult[]> {
	const queries = await queriesPerCall();
	progress('server per-call: starting n8n, the sandbox and the pack');
	const { stack, body } = await prepared(options.calls);
	const samples = Object.fromEntries(KINDS.map((kind) => [kind, [] as Sample[]])) as Record<Kind, Sample[]>;
	try {
		const warmUp = JSON.stringify((JSON.parse(body) as unknown[]).slice(0, 200));
		for (const kind of KINDS) await runOnce(stack, kind, warmUp);
		for (let round = 0; round < options.runs; round++) {
			const order = KINDS.map((_, index) => KINDS[(index + round) % KINDS.length]);
			for (const kind of order) samples[kind].push(await runOnce(stack, kind, body));
			progress(`server per-call: round ${round + 1}/${options.runs}: ${order.map((kind) => `${kind} ${samples[kind][round].cpuMs} ms CPU, ${samples[kind][round].wallMs.toFixed(0)} ms`).join('; ')}`);
		}
	} finally {
		await stack.stop();
	}

	const perCall = (kind: CallKind, field: keyof Sample) => samples[kind].map((sample, round) => (sample[field] - samples.base[round][field]) / options.calls);
	const ratio = (kind: CallKind, field: keyof Sample) => perCall(kind, field).map((value, round) => value / perCall('http', field)[round]);
	const identity = (value: number) => value;
	const note = `Charge Get, ${options.calls} items; Webhook → Split Out's own cost taken off`;
	return [
		figure('server_per_call_cpu_vs_http_request_node', 'x', ratio('money', 'cpuMs'), {
			ratio: identity,
			baseline: 'HTTP Request node with the Money API credential, CPU time of the n8n process per call, real n8n server',
			note: `${note}; both nodes at their defaults (the Money node 8 items at a time)`,
		}),
		figure('server_per_call_vs_http_request_node', 'x', ratio('money', 'wallMs'), { ratio: identity, baseline: 'the same in wall time', note }),
		figure('server_per_call_sequential_cpu_vs_http_request_node', 'x', ratio('moneySequential', 'cpuMs'), { ratio: identity, baseline: 'the same, Money node at Concurrency 1', note }),
		figure('server_per_call_sequential_vs_http_request_node', 'x', ratio('moneySequential', 'wallMs'), { ratio: identity, baseline: 'the same in wall time', note }),
		figure('server_cpu_ms_per_call_money_node', 'ms/call', perCall('money', 'cpuMs'), { note }),
		figure('server_cpu_ms_per_call_http_request_node', 'ms/call', perCall('http', 'cpuMs'), { note }),
		figure('server_ms_per_call_money_node', 'ms/call', perCall('money', 'wallMs'), { note }),
		figure('server_ms_per_call_http_request_node', 'ms/call', perCall('http', 'wallMs'), { note }),
		figure('server_queries_per_call_money_node', 'queries', [queries.money], { note: `database queries per call, counting run of ${COUNTED_CALLS} calls` }),
		figure('server_queries_per_call_http_request_node', 'queries', [queries.http], { note: `database queries per call, counting run of ${COUNTED_CALLS} calls` }),
	];
}

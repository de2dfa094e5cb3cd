import { randomUUID } from 'node:crypto';
import { createContext, Script } from 'node:vm';

import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	IConnections,
	INode,
	INodeParameters,
	INodeExecutionData,
	IRun,
	IRunExecutionData,
	ITaskDataConnections,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import { createRunExecutionData } from 'n8n-workflow';

import { additionalDataFor, buildWorkflow, CREDENTIAL_ID, CREDENTIAL_TYPE, type Engine, MONEY_NODE, SIGNED_GET_FIXTURE, workflowDataOf } from '../test/harness/engine';
import type { SandboxInfo } from '../sandbox';

const CREDENTIALS = { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: 'Money API account' } };

export interface BenchRunOptions {
	items: INodeExecutionData[];
	/** Extra fields merged into additionalData (e.g. the task-runner stand-in). */
	additionalData?: Partial<IWorkflowExecuteAdditionalData>;
}

export interface BenchRun {
	run: IRun;
	output(nodeName: string, outputIndex?: number): INodeExecutionData[];
	error(): IRun['data']['resultData']['error'];
}

/**
 * The harness's runWorkflow (test/harness/engine.ts), with one addition: fields of additionalData
 * can be supplied, which the Code node needs (startRunnerTask).
 */
export async function runBench(engine: Engine, workflow: Workflow, options: BenchRunOptions): Promise<BenchRun> {
	const executionId = randomUUID();
	const hooks = new ExecutionLifecycleHooks('manual', executionId, workflowDataOf(workflow));
	let resolveFinished: (run: IRun) => void = () => {};
	const finished = new Promise<IRun>((resolve) => (resolveFinished = resolve));
	hooks.addHandler('workflowExecuteAfter', (fullRunData) => resolveFinished(fullRunData));

	const startNode = Object.values(workflow.nodes)[0];
	const runExecutionData: IRunExecutionData = createRunExecutionData({
		executionData: { nodeExecutionStack: [{ node: startNode, data: { main: [options.items] }, source: null }] },
	});
	const additionalData = Object.assign(additionalDataFor(engine, hooks, executionId), options.additionalData ?? {});
	await new WorkflowExecute(additionalData, 'manual', runExecutionData).processRunExecutionData(workflow);
	const run = await finished;
	return {
		run,
		output(nodeName, outputIndex = 0) {
			return run.data.resultData.runData[nodeName]?.[0]?.data?.main?.[outputIndex] ?? [];
		},
		error() {
			return run.data.resultData.error;
		},
	};
}

/** Runs a workflow and fails loudly when it errors or returns the wrong number of items. */
export async function runChecked(
	engine: Engine,
	workflow: Workflow,
	lastNode: string,
	options: BenchRunOptions,
	expectedItems = options.items.length,
): Promise<BenchRun> {
	const result = await runBench(engine, workflow, options);
	const error = result.error();
	if (error) throw new Error(`${lastNode}: ${error.message} ${error.description ?? ''}`);
	const count = result.output(lastNode).length;
	if (count !== expectedItems) throw new Error(`${lastNode}: ${count} items out, expected ${expectedItems}`);
	return result;
}

function node(name: string, type: string, typeVersion: number, parameters: INode['parameters'], x = 0, withCredentials = true): INode {
	return {
		id: randomUUID(),
		name,
		type,
		typeVersion,
		position: [x, 0],
		parameters,
		...(withCredentials ? { credentials: CREDENTIALS } : {}),
	};
}

export const referenceItems = (references: string[]): INodeExecutionData[] =>
	references.map((reference) => ({ json: { reference } }));

/* Workflows of the per-call comparison. Every variant reads the reference with the same expression. */

/** `concurrency` undefined: the node's default. */
export function moneyGetWorkflow(engine: Engine, concurrency: number | undefined, simplify = false): Workflow {
	const options: INodeParameters = concurrency === undefined ? {} : { concurrency };
	return buildWorkflow(engine, {
		nodes: [node('Money', MONEY_NODE, 1, { resource: 'charge', operation: 'get', reference: '={{ $json.reference }}', simplify, options })],
	});
}

export function helperWorkflow(engine: Engine): Workflow {
	return buildWorkflow(engine, {
		nodes: [node('Signed GET', SIGNED_GET_FIXTURE, 1, { path: '=/money/v1/charge/{{ $json.reference }}' })],
	});
}

/**
 * The HTTP Request node with the Money API credential. It starts every item's request before
 * awaiting any; `sequential` gives it its Batching option (one item per batch, 1 ms apart), which
 * makes it send one request at a time as the Money node does by default.
 */
export function httpRequestNodeWorkflow(engine: Engine, info: SandboxInfo, sequential = false): Workflow {
	return buildWorkflow(engine, {
		nodes: [
			node('HTTP Request', 'n8n-nodes-base.httpRequest', 4.2, {
				method: 'GET',
				url: `=${info.baseUrl}/money/v1/charge/{{ $json.reference }}`,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: CREDENTIAL_TYPE,
				options: sequential ? { batching: { batch: { batchSize: 1, batchInterval: 1 } } } : {},
			}),
		],
	});
}

/**
 * What a user without the pack builds: a Code node that signs every item (secret pasted into the
 * code, since a Code node cannot read credentials), then the HTTP Request node sending the signed
 * headers by expression. Without a credential there is no token cache, so it authenticates with the
 * platform API key (x-api-key), a static header.
 */
export function codeSigningWorkflow(engine: Engine, info: SandboxInfo): Workflow {
	const code = [
		"const crypto = require('crypto');",
		`const secret = ${JSON.stringify(info.hmacSecret)};`,
		'const timestamp = String(Math.floor(Date.now() / 1000));',
		"const bodyHash = crypto.createHmac('sha256', '').update('\"\"').digest('hex');",
		'return $input.all().map((item) => {',
		"  const path = '/money/v1/charge/' + encodeURIComponent(item.json.reference);",
		"  const canonical = timestamp + '\\nGET\\n' + path + '\\n' + bodyHash;",
		"  const signature = crypto.createHmac('sha256', secret).update(canonical).digest('hex');",
		'  return { json: { path, timestamp, signature } };',
		'});',
	].join('\n');
	const connections: IConnections = { 'Sign (Code)': { main: [[{ node: 'HTTP Request', type: 'main', index: 0 }]] } };
	return buildWorkflow(engine, {
		nodes: [
			node('Sign (Code)', 'n8n-nodes-base.code', 2, { mode: 'runOnceForAllItems', language: 'javaScript', jsCode: code }, 0, false),
			node(
				'HTTP Request',
				'n8n-nodes-base.httpRequest',
				4.2,
				{
					method: 'GET',
					url: `=${info.baseUrl}{{ $json.path }}`,
					authentication: 'none',
					sendHeaders: true,
					specifyHeaders: 'keypair',
					headerParameters: {
						parameters: [
							{ name: 'x-api-key', value: info.apiKey },
							{ name: 'x-timestamp', value: '={{ $json.timestamp }}' },
							{ name: 'x-hmac-signature', value: '={{ $json.signature }}' },
						],
					},
					options: {},
				},
				200,
				false,
			),
		],
		connections,
	});
}

/* An in-process stand-in for n8n's JavaScript task runner. */

interface JsTaskSettings {
	code: string;
	nodeMode: string;
}

const compiled = new Map<string, Script>();

/**
 * n8n runs Code-node JavaScript in a task runner: a separate process that receives the input items
 * over a websocket, runs the code in a vm context and sends the result back. That runner lives in
 * the n8n CLI package (not installed here); n8n-core only calls additionalData.startRunnerTask.
 * This stand-in does the runner's unavoidable work in-process: JSON in, vm, JSON out (no second
 * process, no websocket, no data proxies), so the Code-node variant it enables is a lower bound of
 * the real cost. Only runOnceForAllItems and require('crypto') are supported.
 */
export const inProcessTaskRunner: Partial<IWorkflowExecuteAdditionalData> = {
	startRunnerTask: (async (
		_additionalData: IWorkflowExecuteAdditionalData,
		jobType: string,
		settings: unknown,
		_executeFunctions: unknown,
		inputData: ITaskDataConnections,
	) => {
		const { code, nodeMode } = settings as JsTaskSettings;
		if (jobType !== 'javascript' || nodeMode !== 'runOnceForAllItems') {
			return { ok: false, error: new Error('the bench task runner only runs JavaScript, once for all items') };
		}
		let script = compiled.get(code);
		if (!script) {
			script = new Script(`(async () => {\n${code}\n})()`);
			compiled.set(code, script);
		}
		const items = JSON.parse(JSON.stringify(inputData.main?.[0] ?? [])) as INodeExecutionData[];
		const context = createContext({
			$input: { all: () => items, first: () => items[0], last: () => items[items.length - 1] },
			require: (name: string) => {
				if (name === 'crypto' || name === 'node:crypto') return require('node:crypto');
				throw new Error(`Cannot find module '${name}'`);
			},
		});
		const result = (await script.runInContext(context)) as unknown;
		return { ok: true, result: JSON.parse(JSON.stringify(result)) as unknown };
	}) as unknown as IWorkflowExecuteAdditionalData['startRunnerTask'],
};

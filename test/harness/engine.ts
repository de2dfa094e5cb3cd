import path from 'node:path';
import { randomUUID } from 'node:crypto';

import { ExecutionLifecycleHooks, PackageDirectoryLoader, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IConnections,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, NodeHelpers, Workflow } from 'n8n-workflow';

import { MONEY_API_CREDENTIAL_TYPE } from '../../nodes/api/values';
import { type MoneyCredentialData, moneyCredentialFor, type SandboxCredentialSource } from '../../sandbox/control/credential';
import { SignedGet } from '../fixtures/SignedGet.node';
import { TestCredentialsHelper } from './credentials';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const PACK = 'n8n-nodes-money';
export const MONEY_NODE = `${PACK}.money`;
export const MONEY_TRIGGER = `${PACK}.moneyTrigger`;
export const MONEY_POLL_TRIGGER = `${PACK}.moneyPollTrigger`;
export const CREDENTIAL_TYPE = MONEY_API_CREDENTIAL_TYPE;
export const CREDENTIAL_ID = 'money-credential';
export const SIGNED_GET_FIXTURE = 'test.signedGet';

const NODES_BASE_FILES: Record<string, string> = {
	'n8n-nodes-base.manualTrigger': 'dist/nodes/ManualTrigger/ManualTrigger.node.js',
	'n8n-nodes-base.httpRequest': 'dist/nodes/HttpRequest/HttpRequest.node.js',
	'n8n-nodes-base.code': 'dist/nodes/Code/Code.node.js',
	'n8n-nodes-base.noOp': 'dist/nodes/NoOp/NoOp.node.js',
	'n8n-nodes-base.set': 'dist/nodes/Set/Set.node.js',
	'n8n-nodes-base.splitOut': 'dist/nodes/Transform/SplitOut/SplitOut.node.js',
	'n8n-nodes-base.merge': 'dist/nodes/Merge/Merge.node.js',
	'n8n-nodes-base.summarize': 'dist/nodes/Transform/Summarize/Summarize.node.js',
	'n8n-nodes-base.scheduleTrigger': 'dist/nodes/Schedule/ScheduleTrigger.node.js',
	'n8n-nodes-base.splitInBatches': 'dist/nodes/SplitInBatches/SplitInBatches.node.js',
	'n8n-nodes-base.stickyNote': 'dist/nodes/StickyNote/StickyNote.node.js',
};

class LoadedNodeTypes implements INodeTypes {
	constructor(private readonly types: Map<string, INodeType | IVersionedNodeType>) {}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = this.types.get(nodeType);
		if (!type) throw new Error(`Node type ${nodeType} is not loaded`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

export interface Engine {
	nodeTypes: INodeTypes;
	credentialTypes: Map<string, ICredentialType>;
	credentials: TestCredentialsHelper;
	packageLoader: PackageDirectoryLoader;
}

/**
 * Loads the built pack from `dist/` the way n8n loads a community package, plus a few core nodes
 * from n8n-nodes-base and the SignedGet test fixture (`test.signedGet`).
 */
export async function loadEngine(extraNodeTypes: string[] = []): Promise<Engine> {
	const packageLoader = new PackageDirectoryLoader(REPO_ROOT);
	await packageLoader.loadAll();

	const nodeTypes = new Map<string, INodeType | IVersionedNodeType>();
	for (const [name, loaded] of Object.entries(packageLoader.nodeTypes)) {
		nodeTypes.set(`${PACK}.${name}`, loaded.type);
	}
	const credentialTypes = new Map<string, ICredentialType>();
	for (const [name, loaded] of Object.entries(packageLoader.credentialTypes)) {
		credentialTypes.set(name, loaded.type);
	}

	const wanted = ['n8n-nodes-base.manualTrigger', 'n8n-nodes-base.noOp', ...extraNodeTypes];
	const nodesBaseDir = path.dirname(require.resolve('n8n-nodes-base/package.json'));
	const baseLoader = new PackageDirectoryLoader(nodesBaseDir);
	for (const type of wanted) {
		const file = NODES_BASE_FILES[type];
		if (!file) throw new Error(`No file known for ${type}`);
		baseLoader.loadNodeFromFile(path.join(nodesBaseDir, file));
		const shortName = type.replace('n8n-nodes-base.', '');
		nodeTypes.set(type, baseLoader.nodeTypes[shortName].type);
	}

	nodeTypes.set(SIGNED_GET_FIXTURE, new SignedGet());

	const credentials = new TestCredentialsHelper(credentialTypes);
	return { nodeTypes: new LoadedNodeTypes(nodeTypes), credentialTypes, credentials, packageLoader };
}

export interface WorkflowDefinition {
	nodes: INode[];
	connections?: IConnections;
	staticData?: IDataObject;
	id?: string;
	timezone?: string;
}

export function buildWorkflow(engine: Engine, definition: WorkflowDefinition): Workflow {
	return new Workflow({
		id: definition.id ?? 'wf-test',
		name: 'test workflow',
		nodes: definition.nodes,
		connections: definition.connections ?? {},
		active: false,
		nodeTypes: engine.nodeTypes,
		staticData: definition.staticData ?? {},
		settings: { executionOrder: 'v1', ...(definition.timezone ? { timezone: definition.timezone } : {}) },
	});
}

export function additionalDataFor(
	engine: Engine,
	hooks: ExecutionLifecycleHooks,
	executionId: string,
): IWorkflowExecuteAdditionalData {
	const stub = {
		hooks,
		credentialsHelper: engine.credentials,
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		formBaseUrl: 'http://127.0.0.1:5678/form',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		formTestBaseUrl: 'http://127.0.0.1:5678/form-test',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		mcpBaseUrl: 'http://127.0.0.1:5678/mcp',
		mcpTestBaseUrl: 'http://127.0.0.1:5678/mcp-test',
		variables: {},
		userId: 'test-user',
		executeWorkflow: async () => {
			throw new Error('Sub-workflows are not used in these tests');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
	};
	return stub as unknown as IWorkflowExecuteAdditionalData;
}

export interface RunOptions {
	/** Items handed to the start node (the first node, unless `startNode` names another). */
	items?: INodeExecutionData[];
	startNode?: string;
	mode?: WorkflowExecuteMode;
	executionId?: string;
	/** Receives what nodes send to the editor (`sendMessageToUI`, manual mode only), as the n8n server's push would. */
	sendDataToUI?: (type: string, data: IDataObject | IDataObject[]) => void;
	/**
	 * Called as the execution starts with a function that stops it, as the editor's Stop and
	 * `POST /rest/executions/:id/stop` do (n8n-core's cancel: the signal aborts, the node runs on).
	 * The result then holds what the node returned after the stop, which n8n's server does not
	 * save (it records the execution as it was when stopped) but shows in the editor.
	 */
	onStart?: (stop: () => void) => void;
}

export interface RunResult {
	run: IRun;
	executionId: string;
	/** Output items of a node's run (the first by default), first output by default. */
	output(nodeName: string, outputIndex?: number, runIndex?: number): INodeExecutionData[];
	/** The error a node stopped the execution with, if it did. */
	error(): IRun['data']['resultData']['error'];
}

export async function runWorkflow(
	engine: Engine,
	workflow: Workflow,
	options: RunOptions = {},
): Promise<RunResult> {
	const startNode = options.startNode
		? workflow.getNode(options.startNode)
		: Object.values(workflow.nodes)[0];
	if (!startNode) throw new Error('The workflow has no start node');

	const runExecutionData: IRunExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{ node: startNode, data: { main: [options.items ?? [{ json: {} }]] }, source: null },
			],
		},
	});
	return await executeRunData(engine, workflow, runExecutionData, options.mode ?? 'manual', options.executionId, options);
}

/**
 * What n8n 2.41's Retry of a failed execution does (Executions list, `POST /rest/executions/:id/retry`,
 * ExecutionService.retry): the failed run's data as the database kept it (JSON: nothing held in
 * memory survives), its error removed, the failed node's errored run dropped, then run again under
 * a NEW execution id in mode `retry` from the failed node with that node's original input.
 * `workflow` stands for "with currently saved workflow" when it differs from the original.
 */
export async function retryExecution(
	engine: Engine,
	workflow: Workflow,
	failed: RunResult,
	options: { executionId?: string } = {},
): Promise<RunResult> {
	const data = JSON.parse(JSON.stringify(failed.run.data)) as IRunExecutionData;
	if (!data.executionData) throw new Error('n8n refuses to retry an execution without execution data');
	const { lastNodeExecuted } = data.resultData;
	if (lastNodeExecuted) {
		delete data.resultData.error;
		const runs = data.resultData.runData[lastNodeExecuted];
		if (runs && runs.length > 0 && runs[runs.length - 1].error !== undefined) runs.pop();
	}
	for (const entry of data.executionData.nodeExecutionStack) {
		const node = workflow.getNode(entry.node.name);
		if (!node) throw new Error(`The node "${entry.node.name}" is not in the workflow: n8n cannot retry either`);
		entry.node = node;
	}
	return await executeRunData(engine, workflow, data, 'retry', options.executionId);
}

async function executeRunData(
	engine: Engine,
	workflow: Workflow,
	runExecutionData: IRunExecutionData,
	mode: WorkflowExecuteMode,
	executionId: string = randomUUID(),
	{ sendDataToUI, onStart }: Pick<RunOptions, 'sendDataToUI' | 'onStart'> = {},
): Promise<RunResult> {
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowDataOf(workflow));
	let resolveFinished: (run: IRun) => void = () => {};
	const finished = new Promise<IRun>((resolve) => (resolveFinished = resolve));
	hooks.addHandler('workflowExecuteAfter', (fullRunData) => resolveFinished(fullRunData));

	const additionalData = additionalDataFor(engine, hooks, executionId);
	if (sendDataToUI) additionalData.sendDataToUI = sendDataToUI;
	const execute = new WorkflowExecute(additionalData, mode, runExecutionData);
	const execution = execute.processRunExecutionData(workflow);
	onStart?.(() => execution.cancel());
	// After a stop this settles only once the running node has returned; its output lands in the same run data.
	await execution;
	const run = await finished;

	return {
		run,
		executionId,
		output(nodeName, outputIndex = 0, runIndex = 0) {
			const taskData = run.data.resultData.runData[nodeName]?.[runIndex];
			return taskData?.data?.main?.[outputIndex] ?? [];
		},
		error() {
			return run.data.resultData.error;
		},
	};
}

export interface MoneyNodeOptions {
	name?: string;
	parameters: INode['parameters'];
	settings?: Partial<Pick<INode, 'onError' | 'retryOnFail' | 'maxTries' | 'waitBetweenTries' | 'continueOnFail'>>;
	typeVersion?: number;
	credentialId?: string;
}

/** The engine with the Money node's tool variant (`…moneyTool`), as n8n generates it for a node usable as a tool. */
export function withMoneyTool(engine: Engine): Engine {
	const toolName = `${MONEY_NODE}Tool`;
	const base = engine.nodeTypes.getByNameAndVersion(MONEY_NODE, 1);
	const tool = Object.create(base) as INodeType;
	tool.description = { ...base.description, name: 'moneyTool' };
	const nodeTypes: INodeTypes = {
		getByName: (name: string) => (name === toolName ? tool : engine.nodeTypes.getByName(name)) as INodeType | IVersionedNodeType,
		getByNameAndVersion: (name: string, version?: number) => (name === toolName ? tool : NodeHelpers.getVersionedNodeType(engine.nodeTypes.getByName(name), version)),
		getKnownTypes: () => ({}),
	};
	return { ...engine, nodeTypes };
}

export function moneyNode(options: MoneyNodeOptions): INode {
	return {
		id: randomUUID(),
		name: options.name ?? 'Money',
		type: MONEY_NODE,
		typeVersion: options.typeVersion ?? 1,
		position: [0, 0],
		parameters: options.parameters,
		credentials: {
			[CREDENTIAL_TYPE]: { id: options.credentialId ?? CREDENTIAL_ID, name: 'Money API account' },
		},
		...options.settings,
	};
}

/** Runs one Money node on the given items, as the only node of a workflow. */
export async function runMoneyNode(
	engine: Engine,
	options: MoneyNodeOptions & RunOptions & { workflowId?: string },
): Promise<RunResult> {
	const node = moneyNode(options);
	const workflow = buildWorkflow(engine, { nodes: [node], id: options.workflowId });
	return await runWorkflow(engine, workflow, options);
}

/**
 * The engine tests' credential: sandbox/control/credential.ts's mapping with the wallet PIN sent
 * plain (`rsaPublicKey: ''`) unless a test sets `rsaPublicKey` (money-node.test.ts 'rsa').
 */
export function credentialFromSandbox(info: SandboxCredentialSource, overrides: ICredentialDataDecryptedObject = {}): ICredentialDataDecryptedObject {
	return moneyCredentialFor(info, { rsaPublicKey: '', ...(overrides as Partial<MoneyCredentialData>) });
}

/** The stored form of a workflow that n8n's lifecycle hooks take (an unsaved, inactive workflow). */
export function workflowDataOf(workflow: Workflow): IWorkflowBase {
	return {
		id: workflow.id,
		name: workflow.name,
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
		active: false,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as unknown as IWorkflowBase;
}

import { randomUUID } from 'node:crypto';

import { ExecutionLifecycleHooks, PollContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IWorkflowBase,
	Workflow,
} from 'n8n-workflow';

import { stateKey } from '../../nodes/MoneyPollTrigger/polling/state';
import {
	additionalDataFor,
	buildWorkflow,
	CREDENTIAL_ID,
	CREDENTIAL_TYPE,
	MONEY_POLL_TRIGGER,
	runWorkflow,
	type Engine,
	type RunResult,
} from './engine';

export interface PollHarnessOptions {
	parameters?: INodeParameters;
	nodeName?: string;
	credentialId?: string;
}

export interface PollOutcome {
	/** What poll() returned: null when there was nothing new. */
	items: INodeExecutionData[] | null;
	run?: RunResult;
}

/**
 * Runs a Money Poll Trigger node the way n8n's active-workflow manager does: each tick calls
 * `poll()` inside n8n-core's PollContext (mode trigger) on the same Workflow object, so the
 * node's static data carries over, and a non-null result starts an execution with those items.
 */
export class PollHarness {
	node: INode;
	workflow: Workflow;
	readonly executions: RunResult[] = [];
	readonly errors: unknown[] = [];

	constructor(
		private readonly engine: Engine,
		options: PollHarnessOptions = {},
	) {
		this.node = {
			id: randomUUID(),
			name: options.nodeName ?? 'Money Poll Trigger',
			type: MONEY_POLL_TRIGGER,
			typeVersion: 1,
			position: [0, 0],
			parameters: options.parameters ?? {},
			credentials: {
				[CREDENTIAL_TYPE]: { id: options.credentialId ?? CREDENTIAL_ID, name: 'Money API account' },
			},
		};
		this.workflow = buildWorkflow(engine, { nodes: [this.node], id: `wf-${randomUUID().slice(0, 8)}` });
	}

	/**
	 * A workflow edit saved and activated again: n8n builds a new Workflow from the saved nodes and
	 * static data (as JSON, as the database keeps it).
	 */
	edit(changes: Partial<INode>): void {
		const staticData = JSON.parse(JSON.stringify(this.workflow.staticData)) as IDataObject;
		this.node = { ...this.node, ...changes };
		this.workflow = buildWorkflow(this.engine, { nodes: [this.node], id: this.workflow.id, staticData });
	}

	get nodeType(): INodeType {
		return this.engine.nodeTypes.getByNameAndVersion(this.node.type, this.node.typeVersion);
	}

	/** The trigger's saved state: kept in the workflow's global static data under the node's id (nodes/MoneyPollTrigger/polling/state.ts). */
	get staticData(): IDataObject {
		return (this.workflow.getStaticData('global', this.node)[stateKey(this.node)] as IDataObject | undefined) ?? {};
	}

	/** One scheduled poll. */
	async poll(): Promise<PollOutcome> {
		const executionId = randomUUID();
		const workflowData = { id: this.workflow.id, name: this.workflow.name, nodes: [], connections: {} } as unknown as IWorkflowBase;
		const hooks = new ExecutionLifecycleHooks('trigger', executionId, workflowData);
		const additionalData = additionalDataFor(this.engine, hooks, executionId);
		let emitted: INodeExecutionData[][] | undefined;
		const context = new PollContext(
			this.workflow,
			this.node,
			additionalData,
			'trigger',
			'activate',
			(data) => {
				emitted = data;
			},
			(error) => {
				this.errors.push(error);
			},
		);
		const result = await (this.nodeType.poll as NonNullable<INodeType['poll']>).call(context);
		if (result === null) return { items: null };
		context.__emit(result);
		const items = (emitted ?? result)[0] ?? [];
		const run = await runWorkflow(this.engine, this.workflow, {
			items,
			startNode: this.node.name,
			mode: 'trigger',
			executionId,
		});
		this.executions.push(run);
		return { items, run };
	}

	/** A manual test run: WorkflowExecute calls poll() itself in manual mode. */
	async manual(): Promise<{ items: INodeExecutionData[]; run: RunResult }> {
		const run = await runWorkflow(this.engine, this.workflow, { startNode: this.node.name, mode: 'manual' });
		return { items: run.output(this.node.name), run };
	}
}

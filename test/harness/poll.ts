import { randomUUID } from 'node:crypto';

import { ExecutionLifecycleHooks, PollContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IRun,
	IWorkflowBase,
	Workflow,
} from 'n8n-workflow';
import { ManualExecutionCancelledError } from 'n8n-workflow';

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
 * How n8n answers a poll's emit (its `__emit` in the `n8n` package): it saves the static data, then
 * creates the execution. '2.x' (`TriggerExecutionContextFactory.getExecutePollFunctions`,
 * `settleDonePromise`) reads the done promise's `resolve` while the emit runs, calls it when the
 * execution ends and calls `reject` when it cannot create the execution; '1.x'
 * (`ActiveWorkflowManager.getExecutePollFunctions`) reads `resolve` once it has the execution and
 * never settles the promise when it cannot create it.
 */
export type N8nLine = '2.x' | '1.x';

/**
 * Runs a Money Poll Trigger node the way n8n's active-workflow manager does: each tick calls
 * `poll()` inside n8n-core's PollContext (mode trigger) on the same Workflow object, so the
 * node's static data carries over, and items the poll returns or emits start an execution, which
 * n8n may fail to create (`failNextStarts`).
 */
export class PollHarness {
	node: INode;
	workflow: Workflow;
	readonly executions: RunResult[] = [];
	readonly errors: unknown[] = [];
	/** Which n8n line's emit this harness follows. */
	n8nLine: N8nLine = '2.x';
	/** The next so many emits: n8n cannot create the execution (SQLite's write lock, a full Postgres pool). */
	failNextStarts = 0;
	/** The next so many executions are cancelled once they started (2.x rejects the done promise then). */
	cancelNextRuns = 0;

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

	/** One scheduled poll; `notStarted`: items n8n was handed but could not create an execution for. */
	async poll(): Promise<PollOutcome & { notStarted?: INodeExecutionData[] }> {
		const executionId = randomUUID();
		const workflowData = { id: this.workflow.id, name: this.workflow.name, nodes: [], connections: {} } as unknown as IWorkflowBase;
		const hooks = new ExecutionLifecycleHooks('trigger', executionId, workflowData);
		const additionalData = additionalDataFor(this.engine, hooks, executionId);
		let emitted: { data: INodeExecutionData[][]; done?: Parameters<PollContext['__emit']>[2]; resolve?: (run: IRun) => void } | undefined;
		const context = new PollContext(
			this.workflow,
			this.node,
			additionalData,
			'trigger',
			'activate',
			(data, _responsePromise, done) => {
				if (emitted) throw new Error('the harness handles one emit per poll');
				// 2.x binds `resolve` as the emit runs (settleDonePromise).
				emitted = { data, done, resolve: this.n8nLine === '2.x' ? done?.resolve : undefined };
			},
			(error) => {
				this.errors.push(error);
			},
		);
		const result = await (this.nodeType.poll as NonNullable<INodeType['poll']>).call(context);
		if (result !== null) context.__emit(result);
		if (!emitted) return { items: null };
		const items = emitted.data[0] ?? [];
		if (this.failNextStarts > 0) {
			this.failNextStarts--;
			if (this.n8nLine === '2.x') emitted.done?.reject(new Error('SQLITE_BUSY: database is locked'));
			return { items: null, notStarted: items };
		}
		// 1.x reads `resolve` once it has the execution's id.
		const resolve = emitted.resolve ?? emitted.done?.resolve;
		const run = await runWorkflow(this.engine, this.workflow, {
			items,
			startNode: this.node.name,
			mode: 'trigger',
			executionId,
		});
		this.executions.push(run);
		if (this.cancelNextRuns > 0) {
			this.cancelNextRuns--;
			emitted.done?.reject(new ManualExecutionCancelledError(executionId));
		} else {
			resolve?.(run.run);
		}
		return { items, run };
	}

	/** A manual test run: WorkflowExecute calls poll() itself in manual mode. */
	async manual(): Promise<{ items: INodeExecutionData[]; run: RunResult }> {
		const run = await runWorkflow(this.engine, this.workflow, { startNode: this.node.name, mode: 'manual' });
		return { items: run.output(this.node.name), run };
	}
}

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

type Done = Parameters<PollContext['__emit']>[2];

/**
 * Runs a Money Poll Trigger node the way n8n's active-workflow manager does: each tick calls
 * `poll()` inside n8n-core's PollContext (mode trigger) on the same Workflow object, so the
 * node's static data carries over, and items the poll emits (during a poll, or later from the same
 * context) start an execution, which n8n may fail to create (`failNextStarts`). As n8n does, each
 * emit saves the static data first (`saved`); `restart()` is another n8n process: the workflow
 * built again from that saved copy, with none of the trigger's memory of this process.
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
	/** Emits handed to n8n so far, and the static data as n8n saved it with the last one (or after the first poll: the activation). */
	emits = 0;
	saved: IDataObject | undefined;
	private process = 1;
	private readonly background: Array<Promise<unknown>> = [];

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

	/**
	 * n8n stopped and started again: the workflow built from the static data as last saved. The
	 * trigger keeps its in-process memory per workflow id: the new process has another workflow
	 * object, under another id, whose memory is empty.
	 */
	async restart(): Promise<void> {
		await this.settled();
		const staticData = JSON.parse(JSON.stringify(this.saved ?? {})) as IDataObject;
		this.process++;
		this.workflow = buildWorkflow(this.engine, { nodes: [this.node], id: `${this.workflow.id.split('~')[0]}~${this.process}`, staticData });
	}

	/** Waits until the executions of emits made outside a poll have run. */
	async settled(): Promise<void> {
		while (this.background.length > 0) await this.background.shift();
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
		let polling = true;
		const process = this.process;
		let emitted: { data: INodeExecutionData[][]; done?: Done; resolve?: (run: IRun) => void } | undefined;
		const workflow = this.workflow;
		const context = new PollContext(
			workflow,
			this.node,
			additionalData,
			'trigger',
			'activate',
			(data, _responsePromise, done) => {
				// A process n8n has stopped emits nothing more.
				if (process !== this.process) return;
				const emit = this.emitted(workflow, data, done);
				if (!polling) {
					this.background.push(this.start(emit));
					return;
				}
				if (emitted) throw new Error('the harness handles one emit per poll');
				emitted = emit;
			},
			(error) => {
				this.errors.push(error);
			},
		);
		const first = this.saved === undefined;
		let result: INodeExecutionData[][] | null;
		try {
			result = await (this.nodeType.poll as NonNullable<INodeType['poll']>).call(context);
		} finally {
			polling = false;
		}
		if (result !== null) context.__emit(result);
		// n8n saves the static data after the poll it runs on activation.
		if (first) this.saved = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
		if (!emitted) return { items: null };
		return await this.start(emitted, executionId);
	}

	/** n8n's emit: the static data saved, then (2.x) the done promise's `resolve` read while the emit runs. */
	private emitted(workflow: Workflow, data: INodeExecutionData[][], done: Done) {
		this.emits++;
		this.saved = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
		return { data, done, resolve: this.n8nLine === '2.x' ? done?.resolve : undefined };
	}

	/** n8n creates the emit's execution (or cannot) and runs it. */
	private async start(
		emitted: { data: INodeExecutionData[][]; done?: Done; resolve?: (run: IRun) => void },
		executionId = randomUUID(),
	): Promise<PollOutcome & { notStarted?: INodeExecutionData[] }> {
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

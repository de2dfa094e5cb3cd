import type { IDataObject, IExecuteFunctions, INode, WorkflowExecuteMode } from 'n8n-workflow';

import { replaysLostRun } from '../../../../nodes/Money/helpers/crashRecovery';
import { refusalWithoutReference } from '../../../../nodes/Money/helpers/rerunRefusals';

const node: INode = { id: 'n1', name: 'Pay', type: 'n8n-nodes-money.money', typeVersion: 1, position: [0, 0], parameters: {} };

interface Situation {
	mode: WorkflowExecuteMode;
	/** The node's execution context as the execution brought it (n8n restores it on a Retry, not after a crash). */
	nodeContext?: IDataObject;
	/** Runs of this node n8n's run data already holds when this run starts. */
	earlierRuns?: number;
	/** n8n's run data has the node's key with no run left: a Retry dropped the failed (or crashed) run. */
	droppedRun?: boolean;
}

/** What the guard reads of n8n; each call is a new node run of the same execution (same context object). */
function nodeRun({ mode, nodeContext = {}, earlierRuns = 0, droppedRun = false }: Situation): IExecuteFunctions {
	return {
		getMode: () => mode,
		getNode: () => node,
		getContext: () => nodeContext,
		getWorkflowDataProxy: () => ({
			$thisRunIndex: earlierRuns,
			$: (name: string) => ({ isExecuted: name === node.name && (earlierRuns > 0 || droppedRun) }),
		}),
	} as unknown as IExecuteFunctions;
}

describe('crash recovery: a Retry replaying a run n8n lost', () => {
	it('is recognised from the node\'s own run data, whatever feeds the node (IF false branch, loop output)', () => {
		// n8n kept a placeholder or "crashed" run of the node, and the context came back empty.
		expect(replaysLostRun(nodeRun({ mode: 'retry', earlierRuns: 1 }))).toBe(true);
		// The crashed run was the last node's and the Retry dropped it: only the key is left.
		expect(replaysLostRun(nodeRun({ mode: 'retry', droppedRun: true }))).toBe(true);
	});

	it('is not a node that never ran before the crash (a sibling branch crashed), nor a Retry whose context came back', () => {
		expect(replaysLostRun(nodeRun({ mode: 'retry' }))).toBe(false);
		expect(replaysLostRun(nodeRun({ mode: 'retry', droppedRun: true, nodeContext: { moneyReplaysLostRun: false } }))).toBe(false);
		for (const mode of ['manual', 'trigger', 'webhook', 'cli', 'integrated'] as WorkflowExecuteMode[]) {
			expect(replaysLostRun(nodeRun({ mode, earlierRuns: 3 }))).toBe(false);
		}
	});

	it('keeps its verdict for every later run of the execution: the next batches, Retry On Fail, a Retry of the Retry', () => {
		const nodeContext: IDataObject = {};
		expect(replaysLostRun(nodeRun({ mode: 'retry', earlierRuns: 1, nodeContext }))).toBe(true);
		// Batch 2 of the replay: the node has since stored an anchor (rows with a Business Reference were sent).
		nodeContext.moneyIdempotencyAnchor = 'exec-2';
		expect(replaysLostRun(nodeRun({ mode: 'retry', earlierRuns: 2, nodeContext }))).toBe(true);

		const fresh: IDataObject = {};
		expect(replaysLostRun(nodeRun({ mode: 'trigger', nodeContext: fresh }))).toBe(false);
		expect(fresh).toEqual({ moneyReplaysLostRun: false });
		// That context saved with a failure, then a Retry: the run data of the first run is there, nothing was lost.
		expect(replaysLostRun(nodeRun({ mode: 'retry', droppedRun: true, nodeContext: fresh }))).toBe(false);
	});
});

describe('refusals of a create without a Business Reference', () => {
	it('refuses in a sub-workflow (mode integrated), naming the rule, before anything is sent', () => {
		const refusal = refusalWithoutReference(nodeRun({ mode: 'integrated' }), 'payout', 4);
		expect(refusal?.message).toMatch(/^Business Reference \(idempotency-key\) is required in a sub-workflow \(rule "Sub-workflows need a Business Reference"\)/);
		expect(refusal?.context).toMatchObject({ attempted: false, itemIndex: 4, field: 'idempotency-key' });
	});

	it('refuses in a Retry replaying a lost run, and nowhere else', () => {
		const refusal = refusalWithoutReference(nodeRun({ mode: 'retry', earlierRuns: 1 }), 'charge', 0);
		expect(refusal?.message).toBe('This Retry repeats a run that n8n lost in a crash; the charge was not sent');
		expect(refusal?.context.attempted).toBe(false);
		for (const mode of ['manual', 'trigger', 'webhook', 'retry'] as WorkflowExecuteMode[]) {
			expect(refusalWithoutReference(nodeRun({ mode }), 'payout', 0)).toBeUndefined();
		}
	});
});

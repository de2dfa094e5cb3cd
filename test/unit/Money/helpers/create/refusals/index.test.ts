import type { IDataObject, IExecuteFunctions, INode, WorkflowExecuteMode } from 'n8n-workflow';

import type { CreateRequest } from '../../../../../../nodes/Money/helpers/create/input';
import { paidWithOtherValues, refusalOf } from '../../../../../../nodes/Money/helpers/create/refusals';
import { replaysLostRun } from '../../../../../../nodes/Money/helpers/create/refusals/lostRun';

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

/** What the refusals read of n8n; each call is a new node run of the same execution (same context object). */
function nodeRun({ mode, nodeContext = {}, earlierRuns = 0, droppedRun = false }: Situation, parameters: IDataObject = {}): IExecuteFunctions {
	return {
		getMode: () => mode,
		getNode: () => node,
		getInputData: () => [{ json: {} }],
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) => (name in parameters ? parameters[name] : fallback),
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

const create = (resource: 'charge' | 'payout', itemIndex = 0): CreateRequest => ({
	resource,
	itemIndex,
	body: { amount: 5000 },
	businessReference: '',
	pin: '1234',
	options: {},
	settings: { retry: { maxRetries: 0, baseDelayMs: 1 }, timeoutMs: 1000 },
	toolMode: false,
});

describe('refusals of a create without a Business Reference', () => {
	it('refuses in a sub-workflow (mode integrated), naming the rule, before anything is sent, even with the requirement off', async () => {
		const refusal = await refusalOf.call(nodeRun({ mode: 'integrated' }, { requireBusinessReference: false }), create('payout', 0), 'key-1');
		expect(refusal?.message).toMatch(/^Business Reference \(idempotency-key\) is required in a sub-workflow \(rule "Sub-workflows need a Business Reference"\)/);
		expect(refusal?.context).toMatchObject({ attempted: false, itemIndex: 0, field: 'idempotency-key' });
	});

	it('refuses in a Retry replaying a lost run, and nowhere else', async () => {
		const refusal = await refusalOf.call(nodeRun({ mode: 'retry', earlierRuns: 1 }, { requireBusinessReference: false }), create('charge'), 'key-1');
		expect(refusal?.message).toBe('This Retry repeats a run that n8n lost in a crash; the charge was not sent');
		expect(refusal?.context.attempted).toBe(false);
		for (const mode of ['manual', 'trigger', 'webhook', 'retry'] as WorkflowExecuteMode[]) {
			expect(await refusalOf.call(nodeRun({ mode }, { requireBusinessReference: false }), create('payout'), 'key-1')).toBeUndefined();
		}
	});

	it('refuses in a production execution unless Require Business Reference is off; never in a manual run', async () => {
		for (const mode of ['trigger', 'webhook', 'retry', 'cli'] as WorkflowExecuteMode[]) {
			expect((await refusalOf.call(nodeRun({ mode }), create('payout'), 'key-1'))?.message).toContain('Require Business Reference');
		}
		expect(await refusalOf.call(nodeRun({ mode: 'manual' }), create('payout'), 'key-1')).toBeUndefined();
	});
});

describe('rows sent before in this execution, run again as another payment', () => {
	const context = nodeRun({ mode: 'retry' });

	it('names each change of a paid row and says nothing was sent', () => {
		const error = paidWithOtherValues(context, 'payout', 1, 'key-2', [
			{ field: 'amount', before: 5000, now: 5500 },
			{ field: 'account_number', before: null, now: 'WAL-XOF-2' },
		]);
		expect(error.message).toBe('Not sent: item 2 was already paid in this execution with other values (amount 5000 → 5500, account_number none → WAL-XOF-2)');
		expect(error.description).toContain('Nothing was sent');
		expect(error.context).toMatchObject({ attempted: false, field: 'amount', idempotency_key: 'key-2', itemIndex: 1 });
	});
});

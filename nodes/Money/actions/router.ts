import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asNodeError, cancelledError, errorItemJson, isCancellation, type NodeError } from '../../transport/errors';
import { cancelSignalOf } from '../../transport/request';
import { DEFAULT_READ_CONCURRENCY } from '../descriptions/options';
import { runBounded } from '../helpers/bounded';
import { itemList } from '../helpers/create/gate';
import { isToolCall } from '../helpers/create/mandate';
import { announce, type ItemRun } from '../helpers/create/run';
import * as account from './account';
import * as payment from './payment';
import * as transaction from './transaction';
import type { BatchOperationModule, MoneyType, OperationModule, RunOperationModule } from './node.type';

type Operation = OperationModule | RunOperationModule | BatchOperationModule;
type OperationTable = { [R in MoneyType['resource']]: Record<Extract<MoneyType, { resource: R }>['operation'], Operation> };

/** Every operation of every resource: a missing or unknown one is a type error. */
export const OPERATIONS: OperationTable = {
	account: { get: account.get },
	charge: { create: payment.create, get: payment.get, getAll: payment.getAll, reconcile: payment.reconcile },
	payout: { create: payment.create, get: payment.get, getAll: payment.getAll, reconcile: payment.reconcile },
	transaction: { get: transaction.get },
};

/** Single reads may run several items at once; creates and lists always run one item at a time. */
const CONCURRENT_OPERATIONS = new Set(['get']);

/**
 * A failed item for On Error: Continue. With "(using error output)", n8n sends to the error output
 * only an item whose json is `error` alone or `error` and `message` (n8n 1.x; 2.x also allows
 * `details`), and an item carrying `error` itself has its json replaced by the message
 * (WorkflowExecute.handleNodeErrorOutput, docs/decisions.md D14). So everything the node says goes
 * into one `error` object: its `message` and the rest beside it. n8n adds the input row's fields.
 */
function failedItem(context: IExecuteFunctions, json: IDataObject, itemIndex: number): INodeExecutionData {
	if (context.getNode().onError !== 'continueErrorOutput') return { json, pairedItem: { item: itemIndex } };
	const { error, ...details } = json;
	return { json: { error: { message: error, ...details } }, pairedItem: { item: itemIndex } };
}

/**
 * The end of a node run whose execution was cancelled (docs/idempotency.md, "Cancelling a run"):
 * every item not run gets an error item with `attempted: false` and `cancelled: true`, the run says
 * what was done and what was not (n8n's log, and the editor's console in a manual run), and without
 * Continue On Fail the node fails with that, so nothing reads as a completed run.
 */
function endCancelledRun(
	context: IExecuteFunctions,
	runName: string,
	results: Array<INodeExecutionData[] | undefined>,
	failedJson: (itemIndex: number, error: NodeError) => IDataObject,
): INodeExecutionData[][] {
	const node = context.getNode();
	const total = results.length;
	for (let itemIndex = 0; itemIndex < total; itemIndex++) {
		if (results[itemIndex] !== undefined) continue;
		const error = cancelledError(node, 'The execution was cancelled; this item was not sent', { itemIndex, attempted: false });
		results[itemIndex] = [{ json: failedJson(itemIndex, error), pairedItem: { item: itemIndex } }];
	}
	const cancelledItems = (attempted: boolean) =>
		results.flatMap((produced, itemIndex) => (produced?.some((item) => item.json.cancelled === true && (item.json.attempted !== false) === attempted) ? [itemIndex + 1] : []));
	const notSent = cancelledItems(false);
	const cutOff = cancelledItems(true);
	const span = notSent.length === 0 ? '' : notSent.length === 1 ? ` (item ${notSent[0]})` : ` (items ${notSent[0]}-${notSent[notSent.length - 1]})`;
	const cut = cutOff.length === 0 ? '' : `; cut off while under way, may have reached the API: ${itemList(cutOff.map((item) => item - 1))}`;
	const summary = `${runName}: the execution was cancelled; ${notSent.length} of ${total} items not sent${span}${cut}`;
	announce(context, summary);
	if (!context.continueOnFail()) throw cancelledError(node, summary, { attempted: notSent.length < total });
	return [results.flat() as INodeExecutionData[]];
}

/**
 * n8n starts no node after a stop, except the same node again when it failed and has Retry On
 * Fail (its tries do not look at the stop). Such a run sends nothing, and says nothing about the
 * items: an earlier try may have sent some, and its items are what they were.
 */
function cancelledBeforeStart(node: INode): NodeOperationError {
	return cancelledError(node, 'The execution was cancelled before this run of the node began; nothing was sent in it (with Retry On Fail, an earlier try may have sent items)', { attempted: true });
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const node = this.getNode();
	const resource = this.getNodeParameter('resource', 0) as MoneyType['resource'];
	const operation = this.getNodeParameter('operation', 0) as MoneyType['operation'];
	const handler = (OPERATIONS[resource] as Record<string, Operation> | undefined)?.[operation];
	if (!handler) {
		throw new NodeOperationError(node, `The operation "${operation}" is not supported for the resource "${resource}"`);
	}

	const signal = cancelSignalOf(this);
	if (signal?.aborted) throw cancelledBeforeStart(node);
	if ('executeBatch' in handler) {
		try {
			return await handler.executeBatch.call(this);
		} catch (error) {
			const nodeError = asNodeError(node, error, 0);
			if (!this.continueOnFail()) throw nodeError;
			return [[failedItem(this, errorItemJson(nodeError), 0)]];
		}
	}
	const run: ItemRun =
		'start' in handler
			? await handler.start.call(this)
			: { execute: async (itemIndex) => await handler.execute.call(this, itemIndex), failedJson: (_itemIndex, error) => errorItemJson(error), finish: () => undefined };
	const concurrency = CONCURRENT_OPERATIONS.has(operation)
		? Math.max(1, Math.floor(Number(this.getNodeParameter('options.concurrency', 0, DEFAULT_READ_CONCURRENCY)) || 1))
		: 1;
	const results: Array<INodeExecutionData[] | undefined> = new Array(items.length);
	// An agent gets a refused call back as the tool's answer on every n8n line: n8n 1.x would fail its execution instead (docs/agents.md).
	const errorsAsItems = this.continueOnFail() || isToolCall(this);

	const runItem = async (itemIndex: number): Promise<void> => {
		try {
			const produced = await run.execute(itemIndex);
			results[itemIndex] = produced.map((entry) => ({ ...entry, pairedItem: { item: itemIndex } }));
		} catch (error) {
			const nodeError = asNodeError(node, error, itemIndex);
			// A cancelled item is reported with the others once the run stops, whatever On Error says.
			if (!errorsAsItems && !isCancellation(nodeError)) throw nodeError;
			results[itemIndex] = [failedItem(this, run.failedJson(itemIndex, nodeError), itemIndex)];
		}
	};

	if (concurrency === 1) {
		for (let itemIndex = 0; itemIndex < items.length && !signal?.aborted; itemIndex++) await runItem(itemIndex);
	} else {
		await runBounded(items.length, concurrency, runItem, signal);
	}
	if (signal?.aborted) return endCancelledRun(this, `Money ${resource} ${operation === 'create' ? 'run' : operation}`, results, run.failedJson);
	run.finish();
	return [results.flat() as INodeExecutionData[]];
}

import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { TransactionResource } from '../../api/values';
import { cancelSignalOf, isCancellation } from '../../transport/cancellation';
import { asNodeError, type NodeError } from '../../transport/errors';
import { runBounded } from '../helpers/bounded';
import { rowAsGiven } from '../helpers/create/input';
import * as account from './account';
import { cancelledBeforeStart, endCancelledRun } from './cancelled';
import * as charge from './charge';
import { createOperationContext } from './context';
import * as payout from './payout';
import * as transaction from './transaction';
import type { BatchOperationModule, MoneyType, OperationModule } from './node.type';

type OperationTable = { [R in MoneyType['resource']]: Record<Extract<MoneyType, { resource: R }>['operation'], OperationModule | BatchOperationModule> };

/** Every operation of every resource: a missing or unknown one is a type error. */
export const OPERATIONS: OperationTable = {
	account: { get: account.get },
	charge: { create: charge.create, get: charge.get, getAll: charge.getAll, reconcile: charge.reconcile },
	payout: { create: payout.create, get: payout.get, getAll: payout.getAll, reconcile: payout.reconcile },
	transaction: { get: transaction.get },
};

/** Single reads may run several items at once; creates and lists always run one item at a time. */
const CONCURRENT_OPERATIONS = new Set(['get']);

export function errorItemJson(error: NodeError): IDataObject {
	const context = error.context ?? {};
	const json: IDataObject = {
		error: error.message,
		description: error.description ?? null,
		error_code: (context.error_code as string | undefined) ?? null,
		httpCode: (context.httpCode as number | undefined) ?? (error instanceof NodeApiError && error.httpCode ? Number(error.httpCode) : null),
	};
	if (context.details) json.details = context.details as IDataObject;
	if (context.field) json.field = context.field as string;
	if (context.attempted === false) json.attempted = false;
	if (context.cancelled === true) json.cancelled = true;
	return json;
}

/**
 * A failed create says so, whose payment it was (what it was sent with, or the row as given when it
 * was refused before), and names the idempotency key it used (null when it failed before one was derived).
 */
function failedCreateJson(context: IExecuteFunctions, resource: TransactionResource, error: NodeError): IDataObject {
	const { idempotency_key: key, sent, itemIndex } = error.context ?? {};
	const identity = sent && typeof sent === 'object' && !Array.isArray(sent) ? (sent as IDataObject) : rowAsGiven.call(context, resource, Number(itemIndex ?? 0));
	const { error: message, ...rest } = errorItemJson(error);
	return { outcome: 'failed', error: message, ...identity, ...rest, idempotency_key: typeof key === 'string' ? key : null };
}

/**
 * A failed item for On Error: Continue. With "(using error output)", n8n's
 * WorkflowExecute.handleNodeErrorOutput sends to the error output only an item whose json holds
 * nothing but `error`, `message` and `details` (an item carrying `error` itself has its json replaced
 * by the message), and gives it the fields of the input row it came from: what the node says beside
 * the error goes under `details`.
 */
function failedItem(context: IExecuteFunctions, json: IDataObject, itemIndex: number): INodeExecutionData {
	if (context.getNode().onError !== 'continueErrorOutput') return { json, pairedItem: { item: itemIndex } };
	const { error, ...details } = json;
	return { json: { error, details }, pairedItem: { item: itemIndex } };
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const node = this.getNode();
	const resource = this.getNodeParameter('resource', 0) as MoneyType['resource'];
	const operation = this.getNodeParameter('operation', 0) as MoneyType['operation'];
	const handler = (OPERATIONS[resource] as Record<string, OperationModule | BatchOperationModule> | undefined)?.[operation];
	if (!handler) {
		throw new NodeOperationError(node, `The operation "${operation}" is not supported for the resource "${resource}"`);
	}

	const context = createOperationContext(this);
	const signal = cancelSignalOf(this);
	if (signal?.aborted) throw cancelledBeforeStart(node);
	if ('executeBatch' in handler) {
		try {
			return await handler.executeBatch.call(this, context);
		} catch (error) {
			const nodeError = asNodeError(node, error, 0);
			if (!this.continueOnFail()) throw nodeError;
			return [[failedItem(this, errorItemJson(nodeError), 0)]];
		}
	}
	const concurrency = CONCURRENT_OPERATIONS.has(operation)
		? Math.max(1, Math.floor(Number(this.getNodeParameter('options.concurrency', 0, 1)) || 1))
		: 1;
	const results: Array<INodeExecutionData[] | undefined> = new Array(items.length);
	const failedJson = (nodeError: NodeError) => (operation === 'create' ? failedCreateJson(this, resource as TransactionResource, nodeError) : errorItemJson(nodeError));

	const runItem = async (itemIndex: number): Promise<void> => {
		try {
			const produced = await handler.execute.call(this, itemIndex, context);
			results[itemIndex] = produced.map((entry) => ({ ...entry, pairedItem: { item: itemIndex } }));
		} catch (error) {
			const nodeError = asNodeError(node, error, itemIndex);
			// A cancelled item is reported with the others once the run stops, whatever On Error says.
			if (!this.continueOnFail() && !isCancellation(nodeError)) throw nodeError;
			results[itemIndex] = [failedItem(this, failedJson(nodeError), itemIndex)];
		}
	};

	if (concurrency === 1) {
		for (let itemIndex = 0; itemIndex < items.length && !signal?.aborted; itemIndex++) await runItem(itemIndex);
	} else {
		await runBounded(items.length, concurrency, runItem, signal);
	}
	if (signal?.aborted) return endCancelledRun(this, `Money ${resource} ${operation === 'create' ? 'run' : operation}`, results, failedJson);
	return [results.flat() as INodeExecutionData[]];
}

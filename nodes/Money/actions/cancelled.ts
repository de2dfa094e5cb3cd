import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, NodeOperationError } from 'n8n-workflow';

import { cancelledError, type NodeError } from '../../transport/errors';
import { itemList } from '../helpers/create/gate';
import { announce } from '../helpers/create/run';

/**
 * The end of a node run whose execution was cancelled (docs/idempotency.md, "Cancelling a run"):
 * every item not run gets an error item with `attempted: false` and `cancelled: true`, the run says
 * what was done and what was not (n8n's log, and the editor's console in a manual run), and without
 * Continue On Fail the node fails with that, so nothing reads as a completed run.
 */
export function endCancelledRun(
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
export function cancelledBeforeStart(node: INode): NodeOperationError {
	return cancelledError(node, 'The execution was cancelled before this run of the node began; nothing was sent in it (with Retry On Fail, an earlier try may have sent items)', { attempted: true });
}

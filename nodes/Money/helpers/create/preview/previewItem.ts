import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { TransactionResource } from '../../../../api/values';
import { asNodeError, type NodeError } from '../../../../transport/errors';
import { fieldError } from '../../validation';
import type { OperationContext } from '../../../actions/node.type';
import { checkedCreate } from '../createItem';
import { type CreateRequest, readBusinessReference, rowAsGiven } from '../input';
import { requiredReferenceRefusal } from '../refusals';
import { sentWith } from '../request/send';
import { SentCreates } from '../request/sentCreates';
import { Preview } from './previewRun';

/**
 * The node parameter Preview Only (descriptions/preview.ts): one switch for the whole run. n8n (2.41, 1.123)
 * never evaluates it (a parameter without data expressions keeps an expression as its text); a
 * value that is not a boolean, or one that differs from the first item's, refuses the item.
 */
export function isPreview(context: IExecuteFunctions, itemIndex: number): boolean {
	const first = context.getNodeParameter('preview', 0, false);
	const own = itemIndex === 0 ? first : context.getNodeParameter('preview', itemIndex, false);
	if (typeof first === 'boolean' && own === first) return first;
	throw fieldError(
		context.getNode(),
		{ parameter: 'preview', label: 'Preview Only', field: 'preview', rule: `is one switch for the whole run: turn it on or off in the node, not from item data (it read ${JSON.stringify(own)})` },
		itemIndex,
	);
}

function rowHasReference(context: IExecuteFunctions, itemIndex: number): boolean {
	try {
		return readBusinessReference.call(context, itemIndex) !== '';
	} catch {
		return false;
	}
}

/** A row without a Business Reference run from the editor: sent now, refused by a production execution (Require Business Reference). */
function productionRefusal(context: IExecuteFunctions, create: CreateRequest): string | null {
	if (create.businessReference !== '' || context.getMode() !== 'manual') return null;
	const refusal = requiredReferenceRefusal(context, create.resource, create.itemIndex);
	return refusal ? `sent when run from the editor; a production execution (trigger, webhook, schedule, Retry) refuses it: ${refusal.message}` : null;
}

const previews = new WeakMap<IExecuteFunctions, Promise<Preview>>();

/**
 * One row of a preview: what the create would do with it, without sending it. The same steps as
 * createItem (checkedCreate: validation, key, every refusal) and the node's create run (balance
 * check, caps, pacing) on a simulated clock, whose request sends nothing. The PIN is checked to be
 * set, never encrypted or sent. After the last row, the run's totals and length (Preview.summarise).
 */
export async function previewItem(this: IExecuteFunctions, resource: TransactionResource, itemIndex: number, operation: OperationContext): Promise<INodeExecutionData[]> {
	let started = previews.get(this);
	if (!started) previews.set(this, (started = Preview.start(this, resource, operation)));
	const preview = await started;
	let json: IDataObject;
	if (preview.stopsAt !== undefined) {
		// On Error: Stop Workflow, the real run ends at its first failed item: the rows after it are never read.
		preview.rows.push({ itemIndex, wouldSend: false, moves: false, notReached: true });
		json = { verdict: 'would refuse', reason: `not reached: the run stops at item ${preview.stopsAt + 1} (On Error: Stop Workflow)`, ...rowAsGiven.call(this, resource, itemIndex), idempotency_key: null };
	} else {
		try {
			json = await wouldSend.call(this, preview, resource, itemIndex, operation);
		} catch (error) {
			json = wouldRefuse.call(this, preview, resource, itemIndex, asNodeError(this.getNode(), error, itemIndex));
		}
	}
	if (itemIndex === this.getInputData().length - 1) preview.summarise(this, resource);
	return [{ json: { ...json, preview: true }, pairedItem: { item: itemIndex } }];
}

/** The row through the create's steps and the simulated run; throws what the create would throw. */
async function wouldSend(this: IExecuteFunctions, preview: Preview, resource: TransactionResource, itemIndex: number, operation: OperationContext): Promise<IDataObject> {
	const { context, run } = preview;
	const { create, idempotencyKey } = await checkedCreate.call(context, resource, itemIndex, operation);
	const { body } = create;
	const sentCreates = SentCreates.of(context);
	const madeBefore = sentCreates.isAccepted(idempotencyKey);
	const unanswered = sentCreates.isUncertain(idempotencyKey);
	const attempt = { resource, itemIndex, idempotencyKey, currency: String(body.currency), accountNumber: body.account_number as string | undefined, amount: body.amount as number };
	const sendsAfterMs = run.elapsedMs;
	await run.send(context, attempt, async () => preview.api.answer(this.getNode(), attempt, madeBefore), () => madeBefore);
	// Accepted under its key in the scratch memory, as the real run's send records it: a later row of the same payment reads as made before.
	sentCreates.remember(idempotencyKey, body);
	sentCreates.accepted(idempotencyKey);
	preview.rows.push({ itemIndex, wouldSend: true, moves: madeBefore ? false : unanswered ? 'maybe' : true, amount: attempt.amount, currency: attempt.currency, accountNumber: attempt.accountNumber });
	return {
		verdict: 'would send',
		reason: madeBefore
			? `made before in this execution under its key: the Money API answers from its record, nothing moves`
			: unanswered
				? 'sent before without an answer: the Money API may already hold it (then it answers from its record and nothing moves)'
				: productionRefusal(context, create),
		...sentWith(resource, body, create.businessReference),
		...(resource === 'payout' ? { sends_after_seconds: Math.ceil(sendsAfterMs / 1000) } : {}),
		idempotency_key: create.businessReference !== '' || preview.defaultKeysKnown ? idempotencyKey : null,
	};
}

/** The row refused with the create's own error; with On Error at Stop Workflow the run stops there. */
function wouldRefuse(this: IExecuteFunctions, preview: Preview, resource: TransactionResource, itemIndex: number, nodeError: NodeError): IDataObject {
	preview.rows.push({ itemIndex, wouldSend: false, moves: false });
	if (!this.continueOnFail()) preview.stopsAt = itemIndex;
	const { field, idempotency_key: key } = nodeError.context;
	return {
		verdict: 'would refuse',
		reason: nodeError.message,
		...rowAsGiven.call(this, resource, itemIndex),
		...(typeof field === 'string' ? { field } : {}),
		idempotency_key: typeof key === 'string' && (preview.defaultKeysKnown || rowHasReference(this, itemIndex)) ? key : null,
	};
}

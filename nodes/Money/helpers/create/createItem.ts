import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import type { OperationContext } from '../../actions/node.type';
import { type CreateRequest, readCreate } from './input';
import { refusalOf } from './refusals';
import { replaysLostRun } from './refusals/lostRun';
import { runIdentityRefusal } from './refusals/runIdentity';
import { idempotencyKeyOf } from './request/idempotencyKey';
import { sendCreate } from './request/send';
import { withFinalStatus } from './waitForFinal';

/**
 * Steps 1 to 3 of a create: the run's memory begun, the item read and validated, its key, every
 * refusal before any request (thrown). Preview Only runs the same steps (preview/previewItem.ts).
 */
export async function checkedCreate(
	this: IExecuteFunctions,
	resource: TransactionResource,
	itemIndex: number,
	context: OperationContext,
): Promise<{ create: CreateRequest; idempotencyKey: string }> {
	// Before anything can be sent or fail: a later Retry reads in the node's context that this run began.
	replaysLostRun(this);
	// Also before anything is read: the run's first API client and Business References bind its Retries.
	const repeatedOtherwise = await runIdentityRefusal(this, resource, itemIndex, context);
	if (repeatedOtherwise) throw repeatedOtherwise;
	const create = await readCreate.call(this, resource, itemIndex, context);
	const idempotencyKey = idempotencyKeyOf(this, resource, create.businessReference, itemIndex);
	const refusal = await refusalOf.call(this, create, idempotencyKey);
	if (refusal) throw refusal;
	return { create, idempotencyKey };
}

/** One item's charge or payout create, step by step (docs/architecture.md, "A create, step by step"). */
export async function createItem(this: IExecuteFunctions, resource: TransactionResource, itemIndex: number, context: OperationContext): Promise<INodeExecutionData[]> {
	const { create, idempotencyKey } = await checkedCreate.call(this, resource, itemIndex, context);
	const created = await sendCreate.call(this, create, idempotencyKey, context);
	return [{ json: await withFinalStatus.call(this, create, created), pairedItem: { item: itemIndex } }];
}

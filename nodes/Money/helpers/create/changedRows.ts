import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import { businessReferenceOf } from '../businessReference';
import type { MovementChange } from './sentCreates';

/**
 * A row this execution already sent, run again (a Retry, Retry On Fail) with values that would make
 * it another payment: refused before any request (docs/idempotency.md, "Every way a create runs
 * again"). One row is one payment: it keeps the key it was sent under and the values the API
 * accepted under it.
 */

function shown(value: unknown): string {
	if (value === null || value === undefined || value === '') return 'none';
	return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function refusal(context: IExecuteFunctions, itemIndex: number, message: string, description: string, extra: IDataObject): NodeOperationError {
	const error = new NodeOperationError(context.getNode(), message, { itemIndex, description });
	Object.assign(error.context, { attempted: false, error_code: null, ...extra });
	return error;
}

/** The API accepted this row under its key with another amount, party, channel or account. */
export function paidWithOtherValues(
	context: IExecuteFunctions,
	resource: TransactionResource,
	itemIndex: number,
	idempotencyKey: string,
	changes: MovementChange[],
): NodeOperationError {
	const listed = changes.map(({ field, before, now }) => `${field} ${shown(before)} → ${shown(now)}`).join(', ');
	return refusal(
		context,
		itemIndex,
		`Not sent: item ${itemIndex + 1} was already paid in this execution with other values (${listed})`,
		`This ${resource} was made in the run this execution repeats, under the same idempotency key; the Money API refuses other values under it (IDEMPOTENCY_CONFLICT), and under a new key it would be made twice. Nothing was sent. To finish the run, put back the values it was made with, or limit the change to the rows not made yet (an expression on the row); to move more money for this row, send the difference in a new execution.`,
		{ field: changes[0]?.field ?? null, idempotency_key: idempotencyKey, details: { changes: changes.map(({ field, before, now }) => ({ field, sent: before, now })) as unknown as IDataObject[] } },
	);
}

function describeReference(reference: string | undefined): string {
	return reference === undefined ? 'no Business Reference' : `Business Reference ${JSON.stringify(reference)}`;
}

/** The row was sent in this execution under another key: its Business Reference was added, changed or removed since. */
export function sentUnderAnotherKey(
	context: IExecuteFunctions,
	resource: TransactionResource,
	itemIndex: number,
	earlierKey: string,
	earlierBody: IDataObject | undefined,
	businessReference: string,
): NodeOperationError {
	const earlierReference = earlierBody ? businessReferenceOf(earlierBody) : undefined;
	const currentReference = businessReference !== '' ? businessReference : undefined;
	return refusal(
		context,
		itemIndex,
		`Not sent: item ${itemIndex + 1} was already sent in this execution with ${describeReference(earlierReference)}, and now has ${describeReference(currentReference)}`,
		`A ${resource} sent once keeps the idempotency key it was sent under (${earlierKey}): under another key the Money API would make it a second time. Nothing was sent. For this execution, put back the Business Reference the row was sent with (a new mapping applies to new executions); or check the ${resource}s it made and send the missing rows in a new execution.`,
		{ field: 'idempotency-key', idempotency_key: earlierKey },
	);
}

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { TransactionResource } from '../../../../api/values';
import { yourId } from '../../businessReference';
import { fieldError } from '../../validation';
import type { CreateRequest } from '../input';
import { type MovementChange, SentCreates } from '../request/sentCreates';
import { replaysLostRun } from './lostRun';
import { runReferencesRefusal } from './runReferences';

/**
 * Every reason a create is not sent, checked before any request (docs/idempotency.md). Each refusal
 * says that nothing was sent (`attempted: false`) and what to do.
 */

function notSent(context: IExecuteFunctions, itemIndex: number, message: string, description: string, extra: IDataObject = {}): NodeOperationError {
	const error = new NodeOperationError(context.getNode(), message, { itemIndex, description });
	Object.assign(error.context, { attempted: false, ...extra });
	return error;
}

/** An AI agent may create only when the node allows it, and up to its maximum amount. */
function toolModeRefusal(context: IExecuteFunctions, { resource, body, itemIndex, toolMode }: CreateRequest): NodeOperationError | undefined {
	if (!toolMode) return undefined;
	if (context.getNodeParameter('allowMoneyMovementInToolMode', itemIndex, false) !== true) {
		return notSent(
			context,
			itemIndex,
			`Creating a ${resource} is turned off while the Money node runs as an AI tool`,
			'Turn on "Allow Money Movement in Tool Mode" and set "Maximum Amount in Tool Mode" on this node to let an agent move money.',
		);
	}
	const maximum = Number(context.getNodeParameter('maxAmountInToolMode', itemIndex, 0));
	const amount = body.amount as number;
	if (!(amount <= maximum)) {
		return notSent(
			context,
			itemIndex,
			`Amount ${amount} is above the Maximum Amount in Tool Mode (${maximum}); the ${resource} was not created`,
			'Raise "Maximum Amount in Tool Mode" on this node if the agent should move more.',
		);
	}
	return undefined;
}

/**
 * The executions in which a create without a Business Reference would pay again a row already
 * paid, because nothing of the earlier run reaches this one (docs/idempotency.md, the table at its
 * end); and the node's setting Require Business Reference (docs/decisions.md#d8).
 *
 * A sub-workflow (rule "Sub-workflows need a Business Reference"): a node in a workflow called by
 * Execute Workflow (or a workflow tool) runs in a child execution, mode `integrated`, that n8n
 * starts anew on every call: a Retry of the calling execution starts a new child with an empty
 * node context and a new execution id, so nothing the child could see ties the two runs together.
 */
function withoutReferenceRefusal(context: IExecuteFunctions, { resource, itemIndex }: CreateRequest): NodeOperationError | undefined {
	const refusal = (rule: string) => fieldError(context.getNode(), { parameter: 'businessReference', label: 'Business Reference', field: 'idempotency-key', rule }, itemIndex);
	if (context.getMode() === 'integrated') {
		return refusal(
			`is required in a sub-workflow (rule "Sub-workflows need a Business Reference"): n8n starts the sub-workflow as a new execution on every call, a Retry of the calling workflow included, so without one a ${resource} already made would be made again; map your own ${yourId(resource)}`,
		);
	}
	if (replaysLostRun(context)) {
		return notSent(
			context,
			itemIndex,
			`This Retry repeats a run that n8n lost in a crash; the ${resource} was not sent`,
			"n8n was stopped in the middle of this node's earlier run and its memory of that run was not saved, so the node cannot tell which rows were already sent. Without a Business Reference, sending again could pay twice. Check the payments of the crashed execution (Get Many over its time), then send only the missing rows in a new execution, with a Business Reference. Do not map a Business Reference and retry this execution: the rows paid before the crash were paid without one, and would be paid again.",
		);
	}
	return context.getMode() === 'manual' ? undefined : requiredReferenceRefusal(context, resource, itemIndex);
}

/**
 * The node's setting Require Business Reference, for a row without one: the refusal a production
 * execution gives (a run from the editor is exempt; Preview Only names it there, preview/previewItem.ts).
 */
export function requiredReferenceRefusal(context: IExecuteFunctions, resource: TransactionResource, itemIndex: number): NodeOperationError | undefined {
	if (context.getNodeParameter('requireBusinessReference', itemIndex, true) === false) return undefined;
	// A Retry keeps the run's Business References (runIdentity.ts): one mapped now applies to new executions only.
	const advice =
		context.getMode() === 'retry'
			? `to finish this execution (a Retry counts as production), turn the setting off and Retry with the currently saved workflow: the rows already made are answered from the Money API's record; map your own ${yourId(resource)} for new executions`
			: `map your own ${yourId(resource)}, or turn the setting off`;
	return fieldError(
		context.getNode(),
		{ parameter: 'businessReference', label: 'Business Reference', field: 'idempotency-key', rule: `is required in production executions by this node's setting "Require Business Reference" (on by default): ${advice}` },
		itemIndex,
	);
}

function shown(value: unknown): string {
	if (value === null || value === undefined || value === '') return 'none';
	return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * A row this execution already sent, run again (a Retry, Retry On Fail) with other values than the
 * API accepted under its key, or with another document than the body kept under it. (Another API
 * client or another Business Reference refuses the whole run first: runIdentity.ts.)
 */
function sentRowRefusal(context: IExecuteFunctions, create: CreateRequest, idempotencyKey: string): NodeOperationError | undefined {
	const { resource, itemIndex, body } = create;
	const sentCreates = SentCreates.of(context);
	const changes = sentCreates.changesSinceAccepted(resource, idempotencyKey, body);
	if (changes.length > 0) return paidWithOtherValues(context, resource, itemIndex, idempotencyKey, changes);
	if (sentCreates.keptOtherDocument(resource, idempotencyKey, body)) {
		return notSent(
			context,
			itemIndex,
			'Payment Reference Document (payment_reference.ref_document) is not the document this create was first sent with under its idempotency key',
			'This create was sent before (a Retry repeats it) and the Money API may hold it: another document under the same key would be refused (IDEMPOTENCY_CONFLICT). Give the item the document it was first sent with. Nothing was sent.',
			{ field: 'payment_reference.ref_document' },
		);
	}
	return undefined;
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
	return notSent(
		context,
		itemIndex,
		`Not sent: item ${itemIndex + 1} was already paid in this execution with other values (${listed})`,
		`This ${resource} was made in the run this execution repeats, under the same idempotency key; the Money API refuses other values under it (IDEMPOTENCY_CONFLICT), and under a new key it would be made twice. Nothing was sent. To finish the run, put back the values it was made with, or limit the change to the rows not made yet (an expression on the row); to move more money for this row, send the difference in a new execution.`,
		{ error_code: null, field: changes[0]?.field ?? null, idempotency_key: idempotencyKey, details: { changes: changes.map(({ field, before, now }) => ({ field, sent: before, now })) as unknown as IDataObject[] } },
	);
}

/** Why this create must not be sent, or undefined when it may go out under `idempotencyKey`. */
export async function refusalOf(this: IExecuteFunctions, create: CreateRequest, idempotencyKey: string): Promise<NodeOperationError | undefined> {
	return (
		(await runReferencesRefusal(this, create.resource, create.itemIndex)) ??
		toolModeRefusal(this, create) ??
		(create.businessReference === '' ? withoutReferenceRefusal(this, create) : undefined) ??
		sentRowRefusal(this, create, idempotencyKey)
	);
}

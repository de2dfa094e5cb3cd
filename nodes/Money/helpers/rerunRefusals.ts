import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { TransactionResource } from '../../api/values';
import { replaysLostRun } from './crashRecovery';
import { fieldError } from './validation';

/**
 * The executions in which a create without a Business Reference would pay again a row already
 * paid, because nothing of the earlier run reaches this one (docs/idempotency.md, the table at its
 * end). Each refusal is made before anything is sent and says so (`attempted: false`).
 */

/**
 * The rule "Sub-workflows need a Business Reference". A node in a workflow called by Execute
 * Workflow (or a workflow tool) runs in a child execution, mode `integrated`, that n8n starts anew on
 * every call: a Retry of the calling execution starts a new child with an empty node context and a
 * new execution id, and the parent's own id changes with its Retry too, so nothing the child could
 * see ties the two runs together.
 */
function isSubWorkflowRun(context: IExecuteFunctions): boolean {
	return context.getMode() === 'integrated';
}

export function refusalWithoutReference(context: IExecuteFunctions, resource: TransactionResource, itemIndex: number): NodeOperationError | undefined {
	let refusal: NodeOperationError | undefined;
	if (isSubWorkflowRun(context)) {
		refusal = fieldError(
			context.getNode(),
			{
				parameter: 'Business Reference',
				field: 'idempotency-key',
				rule: `is required in a sub-workflow (rule "Sub-workflows need a Business Reference"): n8n starts the sub-workflow as a new execution on every call, a Retry of the calling workflow included, so without one a ${resource} already made would be made again; map your own order or payout ID`,
			},
			itemIndex,
		);
	} else if (replaysLostRun(context)) {
		refusal = new NodeOperationError(context.getNode(), `This Retry repeats a run that n8n lost in a crash; the ${resource} was not sent`, {
			itemIndex,
			description:
				"n8n was stopped in the middle of this node's earlier run and its memory of that run was not saved, so the node cannot tell which rows were already sent. Without a Business Reference, sending again could pay twice. Check the payments of the crashed execution (Get Many over its time), then send only the missing rows in a new execution, with a Business Reference. Do not map a Business Reference and retry this execution: the rows paid before the crash were paid without one, and would be paid again.",
		});
	}
	if (refusal) refusal.context.attempted = false;
	return refusal;
}

import type { IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { MISSING_SECRET_MESSAGE } from './answers';
import { readWebhookSecret } from './webhookSecret';

/**
 * What the Money Trigger refuses to be published with. From version 2.1, a workflow in which a
 * node after the trigger calls $getWorkflowStaticData: n8n saves that node's copy of the static
 * data whole at the end of its run, over the memory the trigger keeps there (on a queue-mode
 * worker the copy starts empty, so every remembered status is erased), and an event delivered
 * again runs again. A test listen (Execute step) is not refused: n8n saves no static data for a
 * test run. Version 2 workflows are published as before. docs/webhook-memory.md, "What it cannot
 * promise", says what n8n checks when, and what this does not catch.
 */

/** The version from which such a workflow is refused. */
export const REFUSES_STATIC_DATA_WRITERS_FROM = 2.1;

/** The nodes after the trigger whose parameters call $getWorkflowStaticData (a Code or Function node's code). */
function staticDataWriters(context: IHookFunctions): string[] {
	const node = context.getNode();
	if (node.typeVersion < REFUSES_STATIC_DATA_WRITERS_FROM || context.getMode() === 'manual') return [];
	return context
		.getChildNodes(node.name, { includeNodeParameters: true })
		.filter((child) => !child.disabled && JSON.stringify(child.parameters ?? {}).includes('getWorkflowStaticData'))
		.map((child) => child.name);
}

/** Why the trigger cannot be published as it is, or null: n8n's checkExists says false when there is a reason, and create throws it. */
export async function publishRefusal(context: IHookFunctions): Promise<NodeOperationError | null> {
	if ((await readWebhookSecret(context)) === '') return new NodeOperationError(context.getNode(), MISSING_SECRET_MESSAGE);
	const writers = staticDataWriters(context);
	if (writers.length === 0) return null;
	const named = writers.map((name) => `"${name}"`).join(', ');
	// n8n shows the message alone where it reports a failed publish: the remedy is in it.
	return new NodeOperationError(
		context.getNode(),
		`${writers.length === 1 ? 'The node' : 'The nodes'} ${named} ${writers.length === 1 ? 'writes' : 'write'} the workflow's static data, which would erase the Money Trigger's memory of events: move what calls $getWorkflowStaticData into another workflow called with Execute Workflow, then publish again`,
		{
			description: `n8n saves such a node's copy of the static data whole when its run ends, over the events the trigger remembered (in queue mode, all of them), and an event delivered again then runs again. A workflow called with Execute Workflow has static data of its own.`,
		},
	);
}

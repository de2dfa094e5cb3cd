import type { IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { MISSING_SECRET_MESSAGE } from './answers';
import { readWebhookSecret } from './webhookSecret';

/**
 * What the Money Trigger refuses to be published with. From version 2.1, a workflow in which a
 * node after the trigger writes the workflow's static data: n8n saves that node's copy whole at
 * the end of its run, over the memory the trigger keeps there (on a queue-mode worker the copy
 * starts empty, so every remembered status is erased), and an event delivered again runs again
 * (docs/webhook-memory.md, "What it cannot promise"). Version 2 workflows are published as before.
 */

/** The version from which such a workflow is refused. */
export const REFUSES_STATIC_DATA_WRITERS_FROM = 2.1;

/** The nodes after the trigger whose parameters call $getWorkflowStaticData (a Code node's code, an expression). */
function staticDataWriters(context: IHookFunctions): string[] {
	const node = context.getNode();
	if (node.typeVersion < REFUSES_STATIC_DATA_WRITERS_FROM) return [];
	return context
		.getChildNodes(node.name, { includeNodeParameters: true })
		.filter((child) => !child.disabled && JSON.stringify(child.parameters ?? {}).includes('getWorkflowStaticData'))
		.map((child) => child.name);
}

/** Whether the trigger can be published as it is: false makes n8n call `refuseUnpublishable`. */
export async function publishable(context: IHookFunctions): Promise<boolean> {
	return (await readWebhookSecret(context)) !== '' && staticDataWriters(context).length === 0;
}

/** Throws the reason the trigger cannot be published, if there is one. */
export async function refuseUnpublishable(context: IHookFunctions): Promise<void> {
	if ((await readWebhookSecret(context)) === '') throw new NodeOperationError(context.getNode(), MISSING_SECRET_MESSAGE);
	const writers = staticDataWriters(context);
	if (writers.length === 0) return;
	const named = writers.map((name) => `"${name}"`).join(', ');
	throw new NodeOperationError(
		context.getNode(),
		`${writers.length === 1 ? 'The node' : 'The nodes'} ${named} ${writers.length === 1 ? 'writes' : 'write'} the workflow's static data, where the Money Trigger keeps its memory of events`,
		{
			description: `n8n saves such a node's copy of the static data whole when its run ends, over the events the trigger remembered (in queue mode, all of them), and an event delivered again then runs again. Move what calls $getWorkflowStaticData into a sub-workflow (an Execute Workflow node), whose static data is its own, then publish again.`,
		},
	);
}

import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

/**
 * A stopped execution (the editor's Stop, the Executions list, `POST /rest/executions/:id/stop`, a
 * workflow timeout) aborts the signal n8n gives the node. n8n does not stop a node that is running:
 * the node must look at the signal before sending anything else (docs/idempotency.md,
 * "Cancelling a run").
 */

type WithCancelSignal = Partial<Pick<IExecuteFunctions, 'getExecutionCancelSignal'>>;

export function cancelSignalOf(context: object): AbortSignal | undefined {
	const { getExecutionCancelSignal } = context as WithCancelSignal;
	return typeof getExecutionCancelSignal === 'function' ? getExecutionCancelSignal.call(context) : undefined;
}

/**
 * Waits `ms` unless the execution is cancelled first; true when it was cancelled, before or during
 * the wait. n8n 2.x's `sleep` rejects as soon as the signal aborts; n8n 1.x's ignores the signal and
 * resolves at the end of the wait: the check after it is what keeps a run cancelled there from
 * sending anything else.
 */
export async function waitUnlessCancelled(
	ms: number,
	signal: AbortSignal | undefined,
	wait: (ms: number, signal?: AbortSignal) => Promise<void> = sleep,
): Promise<boolean> {
	if (signal?.aborted) return true;
	// n8n 2.x rejects with the abort reason; any other rejection of a timer is not ours to hide.
	const interrupted = await wait(ms, signal).then(
		() => false,
		(error: unknown) => (signal?.aborted ? true : Promise.reject(error)),
	);
	return interrupted || signal?.aborted === true;
}

/**
 * The error that ends a node's work in a cancelled execution, marked `cancelled`, and
 * `attempted: false` when nothing of `what` was sent (an item reading it knows nothing moved).
 */
export function cancelledError(node: INode, message: string, { itemIndex, attempted }: { itemIndex?: number; attempted: boolean }): NodeOperationError {
	const error = new NodeOperationError(node, message, {
		itemIndex,
		description: attempted
			? 'The execution was stopped. This request may have reached the Money API: look it up by its idempotency key or reference before sending it again.'
			: 'The execution was stopped. Nothing was sent for this item.',
	});
	error.context.cancelled = true;
	if (!attempted) error.context.attempted = false;
	return error;
}

export function isCancellation(error: unknown): boolean {
	const context = (error as { context?: { cancelled?: unknown } } | undefined)?.context;
	return context?.cancelled === true;
}

import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * Kept in the node's execution context from the start of its first create run: whether this
 * execution replays a run of the node that n8n lost. Stored rather than judged again, so that every
 * later run of the node in the execution (the next batch of a loop, Retry On Fail, a Retry of this
 * execution) keeps the verdict whatever its rows carry.
 */
const LOST_RUN_KEY = 'moneyReplaysLostRun';

/**
 * True when this execution runs the node again over rows whose earlier sends it cannot recognise:
 * a Retry (mode `retry`) of an execution in which the node had already started, while its execution
 * context, where it keeps what it sent, came back empty. That is what n8n does after a crash
 * (kill -9, out of memory): the context of a run in progress is never saved, and the Retry replays
 * the execution from its start, or with "Save execution progress" on from the node's input
 * (docs/idempotency.md, "After a crash").
 *
 * "Had already started" is read from the run data n8n keeps for the node: a run that finished,
 * n8n's recovery placeholder for it, the "crashed" run, or the empty list a Retry leaves after
 * dropping the failed run. It does not depend on which output or node feeds this one, so an IF's
 * false branch, a loop output or a sibling branch's crash change nothing; and a node that never ran
 * before the crash has no run data, so its first run is not refused.
 *
 * Call it at the start of every create run, before anything can be sent or fail: the verdict
 * (false included) is what a later Retry finds in the context to know that nothing was lost.
 */
export function replaysLostRun(context: IExecuteFunctions): boolean {
	const nodeContext = context.getContext('node');
	const known = nodeContext[LOST_RUN_KEY];
	if (typeof known === 'boolean') return known;
	const verdict = context.getMode() === 'retry' && startedBefore(context);
	nodeContext[LOST_RUN_KEY] = verdict;
	return verdict;
}

/** Whether n8n's run data of this execution already holds runs of this node (see replaysLostRun). */
function startedBefore(context: IExecuteFunctions): boolean {
	const proxy = context.getWorkflowDataProxy(0);
	if (proxy.$thisRunIndex > 0) return true;
	const self = proxy.$(context.getNode().name) as { isExecuted?: unknown } | undefined;
	return self?.isExecuted === true;
}

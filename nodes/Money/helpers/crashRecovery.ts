import type { IExecuteFunctions } from 'n8n-workflow';

/** The item n8n puts in place of the data of a node that finished before a crash (n8n 2.41 recovery). */
const RECOVERED_ITEM_MARKER = 'isArtificialRecoveredEventItem';

const verdicts = new WeakMap<IExecuteFunctions, boolean>();

/**
 * True when this is a Retry of an execution that n8n recovered after a crash (kill -9, out of
 * memory) and this node kept no memory of its earlier run: n8n replays such an execution from its
 * start, the earlier run's idempotency anchor is gone, and rows paid before the crash would be paid
 * again under new keys (docs/idempotency.md). Recognised by the placeholder items n8n writes for
 * the nodes that had finished before the crash. Decided once per node run, on its first item,
 * before this run stores an anchor of its own.
 */
export function isRetryAfterLostRun(context: IExecuteFunctions, hasAnchor: boolean): boolean {
	const known = verdicts.get(context);
	if (known !== undefined) return known;
	let verdict = false;
	if (context.getMode() !== 'retry' || hasAnchor) {
		verdicts.set(context, verdict);
		return verdict;
	}
	const source = context.getInputSourceData(0);
	if (source && typeof source.previousNodeRun === 'number' && source.previousNodeRun > 0) {
		const earlier = context
			.getWorkflowDataProxy(0)
			.$items(source.previousNode, source.previousNodeOutput ?? 0, source.previousNodeRun - 1);
		verdict = earlier.some((item) => item.json?.[RECOVERED_ITEM_MARKER] === true);
	}
	verdicts.set(context, verdict);
	return verdict;
}

import { createHash, randomUUID } from 'node:crypto';

import type { IExecuteFunctions } from 'n8n-workflow';

import type { TransactionResource } from '../../../../api/values';

const DERIVATION_LABEL = 'n8n-nodes-money/idempotency/v1';

export function stableStringify(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
	if (value && typeof value === 'object') {
		const entries = Object.entries(value as Record<string, unknown>)
			.filter(([, entry]) => entry !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${stableStringify(entry)}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

/** A name-based UUID (RFC 9562 layout, version 5 bits) from the SHA-256 of the given text. */
export function uuidFromText(text: string): string {
	const bytes = createHash('sha256').update(text).digest().subarray(0, 16);
	bytes[6] = (bytes[6] & 0x0f) | 0x50;
	bytes[8] = (bytes[8] & 0x3f) | 0x80;
	const hex = bytes.toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface IdempotencyScope {
	resource: TransactionResource;
	/** The user's own reference for this payment (an order ID, say). */
	businessReference?: string;
	/** What ties every re-run of one node's runs in an execution together: see runAnchorOf. */
	runAnchor: string;
	/** Which run of the node this is in its execution (a node inside a loop runs several times). */
	runIndex: number;
	itemIndex: number;
}

const RUN_ANCHOR_KEY = 'moneyIdempotencyAnchor';

/**
 * A random id made at the node's first create in an execution and kept in the node's execution
 * context, which n8n stores with the execution and carries into a Retry of it (a new execution id)
 * and into Retry On Fail: the anchor, and with it every default key, stays the same on those paths
 * (docs/idempotency.md). The context is the node's by name: a node deleted and added again under its
 * name before a Retry "with currently saved workflow" keeps the anchor and its keys. A new execution
 * starts with an empty context and a new anchor: only a Business Reference makes that one safe.
 * Never the execution id or the node id: execution ids start again on another n8n instance or a
 * restored database, and node ids come with an imported workflow, so two instances would send one
 * key for two payments, and the second would be answered as a replay of the first.
 */
function runAnchorOf(context: IExecuteFunctions): string {
	const nodeContext = context.getContext('node');
	const anchor = nodeContext[RUN_ANCHOR_KEY];
	if (typeof anchor === 'string' && anchor !== '') return anchor;
	const made = randomUUID();
	nodeContext[RUN_ANCHOR_KEY] = made;
	return made;
}

/** Whether the node's memory holds a run anchor: without one, a default key is made by the first create. */
export function hasRunAnchor(context: IExecuteFunctions): boolean {
	const anchor = context.getContext('node')[RUN_ANCHOR_KEY];
	return typeof anchor === 'string' && anchor !== '';
}

/**
 * docs/decisions.md#d4. With a business reference the key depends on the resource and that
 * reference only, so any later run (or another workflow) sending the same reference gets the
 * original result, and one with other values gets IDEMPOTENCY_CONFLICT instead of moving money
 * again. Without one, the key is fixed by the run anchor, the run index and the item: the node's
 * retries, n8n's Retry On Fail and a Retry of the failed execution reuse it whatever the row's
 * values evaluate to then (a paid row sent with other values is refused, never paid again); a new
 * execution does not.
 */
export function deriveIdempotencyKey(scope: IdempotencyScope): string {
	const reference = scope.businessReference?.trim();
	if (reference) return uuidFromText(stableStringify([DERIVATION_LABEL, 'reference', scope.resource, reference]));
	return uuidFromText(stableStringify([DERIVATION_LABEL, 'run', scope.resource, scope.runAnchor, scope.runIndex, scope.itemIndex]));
}

/** The key of one item's create in this node run. */
export function idempotencyKeyOf(context: IExecuteFunctions, resource: TransactionResource, businessReference: string, itemIndex: number): string {
	return deriveIdempotencyKey({
		resource,
		businessReference,
		runAnchor: runAnchorOf(context),
		runIndex: context.getWorkflowDataProxy(itemIndex).$thisRunIndex,
		itemIndex,
	});
}

import { createHash, randomUUID } from 'node:crypto';

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { ACCOUNT_TYPE_FIELD, PARTY_FIELD, type TransactionResource } from '../../api/values';

/** Keys derived from a Business Reference, and the default keys of runs anchored by the first release. */
const DERIVATION_LABEL = 'n8n-nodes-money/idempotency/v1';
/** Default keys derived from the movement of money only (docs/idempotency.md). */
const MOVEMENT_LABEL = 'n8n-nodes-money/idempotency/v2';

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

/**
 * What defines the movement of money in a create body: resource fields that say how much goes
 * where. Never its free text (Message, Metadata, payment reference), which a Retry evaluates again.
 */
export function movementOf(resource: TransactionResource, body: IDataObject): IDataObject {
	return {
		amount: body.amount ?? null,
		currency: body.currency ?? null,
		party: body[PARTY_FIELD[resource]] ?? null,
		channel: body.channel ?? null,
		account_type: body[ACCOUNT_TYPE_FIELD[resource]] ?? null,
		account_number: body.account_number ?? null,
	};
}

/** Whether two create bodies move the same money (their free text aside). */
export function sameMovement(resource: TransactionResource, a: IDataObject, b: IDataObject): boolean {
	return stableStringify(movementOf(resource, a)) === stableStringify(movementOf(resource, b));
}

/** 2: default keys from the movement; 1: from the whole body, as the first release derived them. */
export type KeyDerivation = 1 | 2;

export interface IdempotencyScope {
	resource: TransactionResource;
	/** The user's own reference for this payment (an order ID, say). */
	businessReference?: string;
	/** What ties every re-run of one node run together: see runAnchorOf. */
	runAnchor: string;
	nodeId: string;
	/** Which run of the node this is in its execution (a node inside a loop runs several times). */
	runIndex: number;
	itemIndex: number;
	/** The request body without the PIN. */
	body: IDataObject;
	derivation: KeyDerivation;
}

const RUN_ANCHOR_KEY = 'moneyIdempotencyAnchor';
const DERIVATION_KEY = 'moneyIdempotencyDerivation';

/** The anchor an earlier run of this node left in the execution's context, if any. */
export function storedAnchorOf(context: IExecuteFunctions): string | undefined {
	const existing = context.getContext('node')[RUN_ANCHOR_KEY];
	return typeof existing === 'string' && existing !== '' ? existing : undefined;
}

/**
 * The id of the first execution in which this node ran, kept in the node's execution context.
 * n8n's Retry of a failed execution starts a new execution (a new id) from the failed node, but it
 * carries the failed execution's context data over, so the anchor, and with it every default key,
 * stays the same (docs/idempotency.md). A brand-new execution starts with an empty context and a
 * new anchor: only a Business Reference makes that one safe.
 */
export function runAnchorOf(context: IExecuteFunctions): string {
	const existing = storedAnchorOf(context);
	if (existing !== undefined) return existing;
	const nodeContext = context.getContext('node');
	const anchor = context.getExecutionId() || randomUUID();
	nodeContext[RUN_ANCHOR_KEY] = anchor;
	nodeContext[DERIVATION_KEY] = 2;
	return anchor;
}

/**
 * How this node run derives its default keys: an anchor left by the first release (a run that
 * failed before an upgrade, retried after it) keeps that release's keys, so its Retry resends the
 * keys it first sent. Call after runAnchorOf.
 */
export function keyDerivationOf(context: IExecuteFunctions): KeyDerivation {
	return context.getContext('node')[DERIVATION_KEY] === 2 ? 2 : 1;
}

/**
 * docs/decisions.md#d4. With a business reference the key depends on the resource and that reference only, so any
 * later run (or another workflow) sending the same reference gets the original result, and one
 * with other values gets IDEMPOTENCY_CONFLICT instead of moving money again. Without one, the key
 * is fixed by the run anchor, node, run index, item and the movement of money (amount, currency,
 * party, channel, account): the node's retries, n8n's Retry On Fail and a Retry of the failed
 * execution reuse it however its Message or Metadata evaluate then; a new execution does not.
 */
export function deriveIdempotencyKey(scope: IdempotencyScope): string {
	const reference = scope.businessReference?.trim();
	if (reference) return uuidFromText(stableStringify([DERIVATION_LABEL, 'reference', scope.resource, reference]));
	const run = [scope.resource, scope.runAnchor, scope.nodeId, scope.runIndex, scope.itemIndex];
	if (scope.derivation === 1) {
		const payloadHash = createHash('sha256').update(stableStringify(scope.body)).digest('hex');
		return uuidFromText(stableStringify([DERIVATION_LABEL, 'run', ...run, payloadHash]));
	}
	return uuidFromText(stableStringify([MOVEMENT_LABEL, 'run', ...run, movementOf(scope.resource, scope.body)]));
}

/** The key of one item's create in this node run (the body without the PIN, the Business Reference stamped). */
export function idempotencyKeyOf(
	context: IExecuteFunctions,
	resource: TransactionResource,
	body: IDataObject,
	businessReference: string,
	itemIndex: number,
): string {
	const runAnchor = runAnchorOf(context);
	return deriveIdempotencyKey({
		resource,
		businessReference,
		runAnchor,
		nodeId: context.getNode().id,
		runIndex: context.getWorkflowDataProxy(itemIndex).$thisRunIndex,
		itemIndex,
		body,
		derivation: keyDerivationOf(context),
	});
}

import { createHash } from 'node:crypto';

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { ACCOUNT_TYPE_FIELD, PARTY_FIELD, type TransactionResource } from '../../../../api/values';
import { stableStringify } from './idempotencyKey';

/**
 * What this node sent under each idempotency key, kept in the node's execution context, which n8n
 * stores with the execution and carries into a Retry (docs/idempotency.md). A resend under a key
 * sends what was first sent under it, byte for byte: the API compares a repeated key's body with
 * the first and refuses any other (IDEMPOTENCY_CONFLICT), and a Retry evaluates Message and
 * Metadata expressions again ($execution.id, $now).
 *
 * Kept per key: the body without the PIN (never stored) and with a payment reference document
 * replaced by its SHA-256 (documents reach 2 MB), and whether the API accepted it.
 */
const SENT_CREATES_KEY = 'moneySentCreates';
const DOCUMENT_DIGEST_FIELD = 'ref_document_sha256';

interface SentCreate {
	body: IDataObject;
	/** The API answered 2xx: the key is committed there and this body is what it holds. */
	accepted?: true;
	/** A send under the key got no answer or a 5xx: the API may hold it although nothing said so. */
	uncertain?: true;
}

function digest(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}

function paymentReferenceOf(body: IDataObject): IDataObject | undefined {
	const reference = body.payment_reference;
	return reference && typeof reference === 'object' && !Array.isArray(reference) ? (reference as IDataObject) : undefined;
}

/** The body as kept: the document's bytes replaced by their digest, field order unchanged. */
function storedForm(body: IDataObject): IDataObject {
	const reference = paymentReferenceOf(body);
	if (typeof reference?.ref_document !== 'string') return body;
	const entries = Object.entries(reference).map(([field, value]) =>
		field === 'ref_document' ? [DOCUMENT_DIGEST_FIELD, digest(value as string)] : [field, value],
	);
	return { ...body, payment_reference: Object.fromEntries(entries) as IDataObject };
}

/** The kept body made sendable again with the current item's document, when it is the same document. */
function withDocument(stored: IDataObject, fresh: IDataObject): IDataObject | undefined {
	const reference = paymentReferenceOf(stored);
	const storedDigest = reference?.[DOCUMENT_DIGEST_FIELD];
	if (typeof storedDigest !== 'string') return stored;
	const document = paymentReferenceOf(fresh)?.ref_document;
	if (typeof document !== 'string' || digest(document) !== storedDigest) return undefined;
	const entries = Object.entries(reference as IDataObject).map(([field, value]) =>
		field === DOCUMENT_DIGEST_FIELD ? ['ref_document', document] : [field, value],
	);
	return { ...stored, payment_reference: Object.fromEntries(entries) as IDataObject };
}

/**
 * What defines the movement of money in a create body: the fields that say how much goes where.
 * Never its free text (Message, Metadata, payment reference), which a Retry evaluates again.
 */
const MOVEMENT_FIELDS = (resource: TransactionResource): string[] => ['amount', 'currency', PARTY_FIELD[resource], 'channel', ACCOUNT_TYPE_FIELD[resource], 'account_number'];

export interface MovementChange {
	/** The API field. */
	field: string;
	before: unknown;
	now: unknown;
}

/** The fields of the movement in which two create bodies differ, with both values (none: the same movement). */
export function movementChanges(resource: TransactionResource, before: IDataObject, now: IDataObject): MovementChange[] {
	return MOVEMENT_FIELDS(resource)
		.map((field) => ({ field, before: before[field] ?? null, now: now[field] ?? null }))
		.filter(({ before: was, now: is }) => stableStringify(was) !== stableStringify(is));
}

function objectIn(nodeContext: IDataObject, name: string): IDataObject {
	const existing = nodeContext[name];
	if (existing && typeof existing === 'object' && !Array.isArray(existing)) return existing as IDataObject;
	const created: IDataObject = {};
	nodeContext[name] = created;
	return created;
}

export class SentCreates {
	private constructor(private readonly byKey: IDataObject) {}

	static of(context: IExecuteFunctions): SentCreates {
		return new SentCreates(objectIn(context.getContext('node'), SENT_CREATES_KEY));
	}

	has(key: string): boolean {
		return this.entry(key) !== undefined;
	}

	/** True when the API accepted a body under this key (it moved money then, and moves none again). */
	isAccepted(key: string): boolean {
		return this.entry(key)?.accepted === true;
	}

	/** True when a send under this key got no answer or a 5xx and none was accepted since: the API may hold it. */
	isUncertain(key: string): boolean {
		const entry = this.entry(key);
		return entry?.uncertain === true && entry.accepted !== true;
	}

	get isEmpty(): boolean {
		return Object.keys(this.byKey).length === 0;
	}

	/** How the row's values differ from those the API accepted under this key (none: not accepted, or the same movement). */
	changesSinceAccepted(resource: TransactionResource, key: string, fresh: IDataObject): MovementChange[] {
		const earlier = this.entry(key);
		return earlier?.accepted ? movementChanges(resource, earlier.body, fresh) : [];
	}

	/** True when the body kept under this key moves the same money with another payment reference document. */
	keptOtherDocument(resource: TransactionResource, key: string, fresh: IDataObject): boolean {
		const earlier = this.entry(key);
		return earlier !== undefined && movementChanges(resource, earlier.body, fresh).length === 0 && withDocument(earlier.body, fresh) === undefined;
	}

	/**
	 * The body to send under `key`: the one first sent under it when it moves the same money as the
	 * current item's (with the same document), else the current one. A key whose first body the API
	 * may hold then gets the current body, and the API either refuses it (IDEMPOTENCY_CONFLICT: it
	 * holds the first) or makes it (it held nothing).
	 */
	bodyToSend(resource: TransactionResource, key: string, fresh: IDataObject): IDataObject {
		const earlier = this.entry(key);
		if (!earlier || movementChanges(resource, earlier.body, fresh).length > 0) return fresh;
		return withDocument(earlier.body, fresh) ?? fresh;
	}

	/**
	 * Called before each request: the body goes out, its answer may be lost. Another body under a
	 * key whose first went unanswered stays uncertain: the API may hold the first.
	 */
	remember(key: string, body: IDataObject): void {
		const earlier = this.entry(key);
		const stored = storedForm(body);
		const same = earlier !== undefined && JSON.stringify(earlier.body) === JSON.stringify(stored);
		this.byKey[key] = same ? earlier : { body: stored, ...(earlier?.uncertain ? { uncertain: true as const } : {}) };
	}

	accepted(key: string): void {
		const entry = this.entry(key);
		if (entry) entry.accepted = true;
	}

	/**
	 * After a failed send. A send that went unanswered (no answer, a 5xx) leaves the body kept for
	 * good: the API may hold it. A 4xx refusal (other than IDEMPOTENCY_CONFLICT) of a body that was
	 * never accepted nor left unanswered forgets it: the API recorded nothing, and the next send
	 * under the key may carry corrected values. After a conflict the key's earlier entry, if any,
	 * is put back.
	 */
	failed(key: string, httpCode: unknown, unanswered: boolean, earlierEntry: IDataObject | undefined): void {
		if (httpCode === 409) {
			if (earlierEntry) this.byKey[key] = earlierEntry;
			return;
		}
		const entry = this.entry(key);
		if (!entry) return;
		if (unanswered) entry.uncertain = true;
		const refused = typeof httpCode === 'number' && httpCode >= 400 && httpCode < 500;
		if (refused && !entry.accepted && !entry.uncertain) delete this.byKey[key];
	}

	/** The key's entry as it stands (to put back after a conflict). */
	snapshot(key: string): IDataObject | undefined {
		const entry = this.entry(key);
		return entry ? ({ ...entry } as unknown as IDataObject) : undefined;
	}

	private entry(key: string): SentCreate | undefined {
		const entry = this.byKey[key];
		if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return undefined;
		const body = (entry as IDataObject).body;
		return body && typeof body === 'object' && !Array.isArray(body) ? (entry as unknown as SentCreate) : undefined;
	}
}

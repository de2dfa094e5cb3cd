import { createHash, randomUUID } from 'node:crypto';

import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { movementFields, type TransactionResource } from '../../../api/values';

/**
 * What the Money node remembers of an execution (docs/idempotency.md), kept in its execution
 * context (`getContext('node')`), which n8n saves with the execution and hands to a Retry of it and
 * to Retry On Fail: the run anchor of its default keys, whether the execution replays a run n8n
 * lost, each run's identity (API client, Business References) and what was sent under each key.
 * A preview works on a copy that is dropped with it.
 */

const MEMORY_KEY = 'money';
const DERIVATION_LABEL = 'n8n-nodes-money/idempotency/v1';
const DOCUMENT_DIGEST_FIELD = 'ref_document_sha256';

/** What a run of the node is for the Money API: the client it sends to, each row's Business Reference (null: none) by item index, its approved plan. */
export interface RunIdentity {
	client: string;
	references: Record<string, string | null>;
	/** The plan the run was approved as (Approved Plan, helpers/create/plan.ts). */
	approvedPlan?: string;
}

/** What was sent under a key: the body without the PIN (a document replaced by its digest), and what became of it. */
export interface SentCreate {
	body: IDataObject;
	/** The API acknowledged it (it moved money then, and moves none again): its acknowledgement, which a Retry gives without asking again. */
	accepted?: IDataObject;
	/** A send under the key got no acknowledgement (no answer, a 5xx, a 2xx that was not one): what it got, and in which execution. */
	uncertain?: string;
}

interface Stored {
	anchor?: string;
	lostRun?: boolean;
	runs?: Record<string, RunIdentity>;
	sent?: Record<string, SentCreate>;
}

export interface MovementChange {
	/** The API field. */
	field: string;
	before: unknown;
	now: unknown;
}

/** What this execution knows of a row's key before it is sent (NodeMemory.prior). */
export interface Prior {
	/** The API acknowledged a create under the key: it moved money then, and moves none again. */
	acknowledged?: IDataObject;
	/** A send under the key got no acknowledgement and may have been carried out: what it got, and in which execution. */
	uncertain?: string;
	/** The body to send (absent when the row has none). */
	body?: IDataObject;
	/** How the row's movement differs from the acknowledged one. */
	changes: MovementChange[];
	/** Sent before with the same movement and another payment reference document. */
	otherDocument: boolean;
	/** The key's entry as read, put back when the send is refused. */
	entry?: SentCreate;
	/** `body` is the body first sent under the key (the same movement and document), to go out again as it was. */
	firstBody: boolean;
}

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

export function sha256(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}

/** A name-based UUID (RFC 9562 layout, version 5 bits) from the SHA-256 of the given text. */
export function uuidFromText(text: string): string {
	const bytes = Buffer.from(sha256(text), 'hex').subarray(0, 16);
	bytes[6] = (bytes[6] & 0x0f) | 0x50;
	bytes[8] = (bytes[8] & 0x3f) | 0x80;
	const hex = bytes.toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The idempotency key of a Business Reference: the same for every run, execution and workflow that sends it. */
export function businessReferenceKey(resource: TransactionResource, businessReference: string): string {
	return uuidFromText(stableStringify([DERIVATION_LABEL, 'reference', resource, businessReference]));
}

/**
 * The idempotency key of an agent's call without a Business Reference: of the payment it asks for
 * (`movement`, mandate.ts) and the execution's anchor shared by its Money tools, so the same call
 * made again in the execution, through any of them, is the same payment (docs/agents.md).
 */
export function toolCallKey(anchor: string, resource: TransactionResource, movement: unknown[]): string {
	return uuidFromText(stableStringify([DERIVATION_LABEL, 'tool', resource, anchor, movement]));
}

/**
 * The API client a create goes to, as errors name it: the Money API keeps idempotency keys per
 * client. `client <id> at <base URL>`, or `API key <first 16 hex digits of its SHA-256> at <base URL>`.
 */
export function apiClientOf(credentials: ICredentialDataDecryptedObject): string {
	const baseUrl = String(credentials.baseUrl ?? '').trim().replace(/\/+$/, '');
	if (credentials.authentication === 'apiKey') return `API key ${sha256(String(credentials.apiKey ?? '')).slice(0, 16)} at ${baseUrl}`;
	return `client ${String(credentials.clientId ?? '').trim()} at ${baseUrl}`;
}

/** How two bodies differ in the fields that decide where and how much money goes (movementFields). */
export function movementChanges(resource: TransactionResource, before: IDataObject, now: IDataObject): MovementChange[] {
	return movementFields(resource)
		.map((field) => ({ field, before: before[field] ?? null, now: now[field] ?? null }))
		.filter(({ before: was, now: is }) => stableStringify(was) !== stableStringify(is));
}

function paymentReferenceOf(body: IDataObject): IDataObject | undefined {
	const reference = body.payment_reference;
	return reference && typeof reference === 'object' && !Array.isArray(reference) ? (reference as IDataObject) : undefined;
}

/** The body as kept: a payment reference document (up to 2 MB) replaced by its SHA-256, field order unchanged. */
function storedForm(body: IDataObject): IDataObject {
	const reference = paymentReferenceOf(body);
	if (typeof reference?.ref_document !== 'string') return body;
	const entries = Object.entries(reference).map(([field, value]) => (field === 'ref_document' ? [DOCUMENT_DIGEST_FIELD, sha256(value as string)] : [field, value]));
	return { ...body, payment_reference: Object.fromEntries(entries) as IDataObject };
}

/** The kept body made sendable again with the row's document, when it is the same document (else undefined). */
function withDocument(stored: IDataObject, fresh: IDataObject): IDataObject | undefined {
	const reference = paymentReferenceOf(stored);
	const storedDigest = reference?.[DOCUMENT_DIGEST_FIELD];
	if (typeof storedDigest !== 'string') return stored;
	const document = paymentReferenceOf(fresh)?.ref_document;
	if (typeof document !== 'string' || sha256(document) !== storedDigest) return undefined;
	const entries = Object.entries(reference as IDataObject).map(([field, value]) => (field === DOCUMENT_DIGEST_FIELD ? ['ref_document', document] : [field, value]));
	return { ...stored, payment_reference: Object.fromEntries(entries) as IDataObject };
}

/** Whether n8n's run data of this execution already holds runs of this node: a run that finished, n8n's recovery placeholder, or the key a Retry leaves after dropping the crashed run. */
function startedBefore(context: IExecuteFunctions): boolean {
	const proxy = context.getWorkflowDataProxy(0);
	if (proxy.$thisRunIndex > 0) return true;
	return (proxy.$(context.getNode().name) as { isExecuted?: unknown } | undefined)?.isExecuted === true;
}

export class NodeMemory {
	private constructor(private readonly stored: Stored) {}

	/** The memory n8n keeps with the execution. */
	static of(context: IExecuteFunctions): NodeMemory {
		const nodeContext = context.getContext('node');
		const stored = nodeContext[MEMORY_KEY];
		if (stored && typeof stored === 'object' && !Array.isArray(stored)) return new NodeMemory(stored as Stored);
		const fresh: Stored = {};
		nodeContext[MEMORY_KEY] = fresh as IDataObject;
		return new NodeMemory(fresh);
	}

	/** A copy whose changes are dropped with it (Preview Only). */
	copy(): NodeMemory {
		return new NodeMemory(structuredClone(this.stored));
	}

	/**
	 * Records, at the start of every create run and before anything can be sent or fail, whether
	 * this execution replays a run n8n lost in a crash (docs/idempotency.md, "After a crash"): a
	 * Retry of an execution in which the node had already run, while its memory came back without
	 * this verdict (n8n saves no context of a run in progress). Kept, so every later run of the node
	 * in the execution (the next batch, Retry On Fail, a Retry of the Retry) keeps the verdict.
	 */
	recordLostRun(context: IExecuteFunctions): boolean {
		this.stored.lostRun ??= context.getMode() === 'retry' && startedBefore(context);
		return this.stored.lostRun;
	}

	get hasAnchor(): boolean {
		return typeof this.stored.anchor === 'string' && this.stored.anchor !== '';
	}

	/**
	 * The run anchor of the default keys: a random id made at the node's first create run in the
	 * execution and kept with it. Never the execution or node id, which another n8n instance or an
	 * imported workflow repeats (docs/idempotency.md).
	 */
	makeAnchor(): void {
		if (!this.hasAnchor) this.stored.anchor = randomUUID();
	}

	/**
	 * The idempotency key of a row (docs/decisions.md#d4): of the resource and its Business Reference,
	 * or without one of the row's place (the run anchor, the run index, the item), never of what the row carries.
	 */
	keyOf(resource: TransactionResource, businessReference: string, runIndex: number, itemIndex: number): string {
		if (businessReference !== '') return businessReferenceKey(resource, businessReference);
		return uuidFromText(stableStringify([DERIVATION_LABEL, 'run', resource, this.stored.anchor, runIndex, itemIndex]));
	}

	/** The identity of the first run of this run index in the execution, if it sent anything. */
	firstIdentity(runIndex: number): RunIdentity | undefined {
		const first = this.stored.runs?.[runIndex];
		return first && typeof first.client === 'string' ? first : undefined;
	}

	/** Records the identity of a run index's first run that sends, once. */
	bindIdentity(runIndex: number, identity: RunIdentity): void {
		const runs = (this.stored.runs ??= {});
		if (!this.firstIdentity(runIndex)) runs[runIndex] = identity;
	}

	private entry(key: string): SentCreate | undefined {
		const entry = this.stored.sent?.[key];
		return entry && typeof entry === 'object' && entry.body && typeof entry.body === 'object' ? entry : undefined;
	}

	/**
	 * What this execution knows of a key, read once before a row is sent (`fresh`: the row's body
	 * as read now). `sending` and `record` then write the send, before and after its request.
	 */
	prior(resource: TransactionResource, key: string, fresh?: IDataObject): Prior {
		const entry = this.entry(key);
		const changes = entry && fresh ? movementChanges(resource, entry.body, fresh) : [];
		// Byte for byte the body first sent under the key when it moves the same money: a Retry evaluates Message and Metadata again, and the API refuses another body under a key.
		const kept = entry && fresh && changes.length === 0 ? withDocument(entry.body, fresh) : undefined;
		return {
			...(entry?.accepted !== undefined ? { acknowledged: entry.accepted } : entry?.uncertain !== undefined ? { uncertain: entry.uncertain } : {}),
			...(fresh ? { body: kept ?? fresh } : {}),
			changes: entry?.accepted !== undefined ? changes : [],
			otherDocument: entry !== undefined && fresh !== undefined && changes.length === 0 && kept === undefined,
			firstBody: kept !== undefined,
			...(entry ? { entry: { ...entry } } : {}),
		};
	}

	/**
	 * Before the request: the send is held as unanswered (`inFlight`: what it got so far, and in
	 * which execution) until `record` says what became of it. n8n saves the node's context when an
	 * execution is stopped, while the node runs on, and a Retry then finds the send uncertain.
	 */
	sending(key: string, body: IDataObject, prior: Prior, inFlight: string): void {
		(this.stored.sent ??= {})[key] = { body: storedForm(body), uncertain: prior.uncertain ?? inFlight };
	}

	/**
	 * After the send: accepted (its acknowledgement, given again without asking), or uncertain (what
	 * it got: kept for good, the first one when there were several). A refusal puts the key back as
	 * it was: the API recorded nothing of it.
	 */
	record(key: string, body: IDataObject, outcome: { accepted: IDataObject } | { uncertain: string } | 'refused', prior: Prior): void {
		const sent = (this.stored.sent ??= {});
		if (outcome === 'refused') {
			if (prior.entry) sent[key] = prior.entry;
			else delete sent[key];
		} else if ('accepted' in outcome) sent[key] = { body: storedForm(body), accepted: outcome.accepted };
		else sent[key] = { body: storedForm(body), uncertain: prior.uncertain ?? outcome.uncertain };
	}
}

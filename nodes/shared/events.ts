import { createHash } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import {
	computeBodyHmacSignature,
	computeRequestSignature,
	EMPTY_BODY_STRING,
	hexSignaturesEqual,
	isTimestampFresh,
	TIMESTAMP_TOLERANCE_SECONDS,
	unixSeconds,
} from './signature';

export type MoneyResource = 'charge' | 'payout';

export type WebhookScheme = 'request-style' | 'body-hmac';
export type WebhookSchemeSetting = WebhookScheme | 'either';

export const MAX_REMEMBERED_REFERENCES = 1000;

/**
 * A delivery accepted at time t carries a timestamp within 300 s of t, and a replay of it passes
 * the timestamp check until that timestamp is 300 s old: up to t + 600 s. Event ids younger than
 * that are never forgotten, whatever the traffic.
 */
export const EVENT_ID_REPLAY_WINDOW_SECONDS = 2 * TIMESTAMP_TOLERANCE_SECONDS;
/** Older ids are kept this long too (sender retries come with fresh timestamps), while there is room. */
export const EVENT_ID_RETENTION_SECONDS = 24 * 3600;
export const EVENT_ID_SOFT_CAP = 2000;
/** Beyond this many ids all inside the replay window, deliveries are refused (503) rather than risk a replay. */
export const EVENT_ID_HARD_CAP = 20000;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export const TIMESTAMP_HEADER = 'x-timestamp';
export const REQUEST_SIGNATURE_HEADER = 'x-hmac-signature';
export const BODY_SIGNATURE_HEADER = 'x-webhook-signature';

type HeaderBag = Record<string, string | string[] | undefined>;

/* ------------------------------------------------------------------------------------------ */
/* Signature verification (docs/signing.md, docs/decisions.md#d1)                              */
/* ------------------------------------------------------------------------------------------ */

export type VerificationFailure =
	| 'missing-secret'
	| 'missing-timestamp'
	| 'stale-timestamp'
	| 'missing-signature'
	| 'invalid-signature';

export type VerificationResult =
	| { ok: true; scheme: WebhookScheme }
	| { ok: false; reason: VerificationFailure };

export interface VerificationInput {
	scheme: WebhookSchemeSetting;
	secret: string;
	rawBody: Buffer;
	headers: HeaderBag;
	/** Path (and query) candidates the request-style signature may have been computed over. */
	signedPaths: string[];
	nowSeconds?: number;
}

/** A header as a single string; repeated or absent headers give undefined. */
export function singleHeader(headers: HeaderBag, name: string): string | undefined {
	const wanted = name.toLowerCase();
	for (const [key, value] of Object.entries(headers)) {
		if (key.toLowerCase() !== wanted) continue;
		return typeof value === 'string' ? value.trim() : undefined;
	}
	return undefined;
}

function verifyRequestStyle(
	secret: string,
	timestamp: string,
	rawBody: Buffer,
	signature: string,
	signedPaths: string[],
): boolean {
	const body = rawBody.length === 0 ? EMPTY_BODY_STRING : rawBody;
	let matched = false;
	for (const path of signedPaths) {
		const expected = computeRequestSignature(secret, timestamp, 'POST', path, body);
		if (hexSignaturesEqual(expected, signature)) matched = true;
	}
	return matched;
}

function verifyBodyHmac(secret: string, timestamp: string, rawBody: Buffer, signature: string): boolean {
	return hexSignaturesEqual(computeBodyHmacSignature(secret, timestamp, rawBody), signature);
}

/**
 * Verifies a delivery over the exact bytes received, in constant time per candidate, and says
 * why it failed without revealing anything derived from the secret.
 */
export function verifyWebhookSignature(input: VerificationInput): VerificationResult {
	if (typeof input.secret !== 'string' || input.secret === '') return { ok: false, reason: 'missing-secret' };

	const requestSignature =
		input.scheme === 'body-hmac' ? undefined : singleHeader(input.headers, REQUEST_SIGNATURE_HEADER);
	const bodySignature =
		input.scheme === 'request-style' ? undefined : singleHeader(input.headers, BODY_SIGNATURE_HEADER);
	if (!requestSignature && !bodySignature) return { ok: false, reason: 'missing-signature' };

	const timestamp = singleHeader(input.headers, TIMESTAMP_HEADER);
	if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'missing-timestamp' };
	if (!isTimestampFresh(timestamp, input.nowSeconds ?? unixSeconds())) {
		return { ok: false, reason: 'stale-timestamp' };
	}

	if (requestSignature && verifyRequestStyle(input.secret, timestamp, input.rawBody, requestSignature, input.signedPaths)) {
		return { ok: true, scheme: 'request-style' };
	}
	if (bodySignature && verifyBodyHmac(input.secret, timestamp, input.rawBody, bodySignature)) {
		return { ok: true, scheme: 'body-hmac' };
	}
	return { ok: false, reason: 'invalid-signature' };
}

/** The path and query of a request URL as received, without scheme or host. */
export function pathAndQueryOf(url: string | undefined): string | undefined {
	if (typeof url !== 'string' || url === '') return undefined;
	if (url.startsWith('/')) return url;
	try {
		const parsed = new URL(url);
		return parsed.pathname + parsed.search;
	} catch {
		return undefined;
	}
}

/**
 * Candidates for the request-style signed path. An explicit override wins alone; otherwise the
 * path the request arrived on and the path of n8n's public webhook URL (which differs behind a
 * reverse proxy that rewrites the prefix), both with the query the request carried.
 */
export function signedPathCandidates(options: {
	override?: string;
	requestUrl?: string;
	publicWebhookUrl?: string;
}): string[] {
	const override = (options.override ?? '').trim();
	if (override !== '') {
		const path = pathAndQueryOf(override) ?? override;
		return [path.startsWith('/') ? path : `/${path}`];
	}
	const candidates: string[] = [];
	const received = pathAndQueryOf(options.requestUrl);
	if (received) candidates.push(received);
	const publicPath = pathAndQueryOf(options.publicWebhookUrl);
	if (publicPath) {
		const queryIndex = received ? received.indexOf('?') : -1;
		const query = queryIndex >= 0 && received ? received.slice(queryIndex) : '';
		const withoutQuery = publicPath.split('?')[0];
		const candidate = withoutQuery + query;
		if (!candidates.includes(candidate)) candidates.push(candidate);
	}
	return candidates;
}

/* ------------------------------------------------------------------------------------------ */
/* Event parsing (docs/decisions.md#d1 body, transaction envelope)                             */
/* ------------------------------------------------------------------------------------------ */

export interface MoneyEvent {
	id: string;
	event: string;
	resource: MoneyResource | null;
	status: string;
	reference: string | null;
	channel: string | null;
	occurredAt: string | null;
	envelope: IDataObject;
}

export type ParseResult = { ok: true; event: MoneyEvent } | { ok: false; reason: string };

function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): string | null {
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

export function resourceFromType(type: unknown): MoneyResource | null {
	const text = nonEmptyString(type)?.toLowerCase();
	if (text === 'charge') return 'charge';
	if (text === 'payout' || text === 'transfer') return 'payout';
	return null;
}

export function resourceFromEventName(eventName: string | null): MoneyResource | null {
	if (!eventName) return null;
	const prefix = eventName.split('.')[0];
	return resourceFromType(prefix);
}

/** `status.label` of an envelope, upper-cased; a bare string status is accepted too. */
export function statusOfEnvelope(envelope: IDataObject): string | null {
	const status = envelope.status;
	if (isPlainObject(status)) return nonEmptyString(status.label)?.toUpperCase() ?? null;
	return nonEmptyString(status)?.toUpperCase() ?? null;
}

export function channelOfEnvelope(envelope: IDataObject): string | null {
	const direct = nonEmptyString(envelope.channel);
	if (direct) return direct;
	for (const key of ['counterpart_account', 'account']) {
		const nested = envelope[key];
		if (isPlainObject(nested)) {
			const channel = nonEmptyString(nested.channel);
			if (channel) return channel;
		}
	}
	return null;
}

export function resourceOfEnvelope(envelope: IDataObject): MoneyResource | null {
	return resourceFromType(envelope.type);
}

function bodyDigestId(rawBody: Buffer): string {
	return `body_${createHash('sha256').update(rawBody).digest('hex').slice(0, 32)}`;
}

/**
 * Parses the verified bytes (never a separately parsed body). Accepts the wrapper of
 * docs/decisions.md#d1 `{id, event, created_at, data}` and a bare envelope at the root.
 */
export function parseWebhookEvent(rawBody: Buffer): ParseResult {
	let parsed: unknown;
	try {
		parsed = JSON.parse(rawBody.toString('utf8'));
	} catch {
		return { ok: false, reason: 'The body is not valid JSON' };
	}
	if (!isPlainObject(parsed)) return { ok: false, reason: 'The body is not a JSON object' };

	const wrapped = isPlainObject(parsed.data);
	const envelope = wrapped ? (parsed.data as IDataObject) : parsed;
	if (!wrapped && envelope.reference === undefined && envelope.status === undefined) {
		return { ok: false, reason: 'The body is neither a Money event nor a transaction envelope' };
	}

	const eventName = nonEmptyString(parsed.event);
	const resource = resourceFromEventName(eventName) ?? resourceOfEnvelope(envelope);
	const eventStatus = eventName && eventName.includes('.') ? eventName.split('.').slice(1).join('.') : null;
	const status = statusOfEnvelope(envelope) ?? eventStatus?.toUpperCase() ?? 'UNKNOWN';
	const id = (wrapped ? nonEmptyString(parsed.id) : null) ?? bodyDigestId(rawBody);

	return {
		ok: true,
		event: {
			id,
			event: eventName ?? `${resource ?? 'transaction'}.${status.toLowerCase()}`,
			resource,
			status,
			reference: nonEmptyString(envelope.reference),
			channel: channelOfEnvelope(envelope),
			occurredAt: nonEmptyString(parsed.created_at) ?? nonEmptyString(envelope.updated_at),
			envelope,
		},
	};
}

/* ------------------------------------------------------------------------------------------ */
/* Output shape shared by both triggers                                                        */
/* ------------------------------------------------------------------------------------------ */

export interface MoneyEventItem extends IDataObject {
	event: string;
	id: string;
	source: 'webhook' | 'poll';
	resource: MoneyResource | null;
	status: string;
	reference: string | null;
	channel: string | null;
	amount: number | null;
	currency: string | null;
	created_at: string | null;
	occurred_at: string | null;
	confirmed: boolean;
	data: IDataObject;
}

export function amountOfEnvelope(envelope: IDataObject): { amount: number | null; currency: string | null } {
	const amount = envelope.amount;
	if (isPlainObject(amount)) {
		return {
			amount: typeof amount.value === 'number' ? amount.value : null,
			currency: nonEmptyString(amount.currency),
		};
	}
	return { amount: typeof amount === 'number' ? amount : null, currency: nonEmptyString(envelope.currency) };
}

export function buildEventItem(options: {
	id: string;
	event?: string;
	source: 'webhook' | 'poll';
	resource: MoneyResource | null;
	envelope: IDataObject;
	occurredAt?: string | null;
	confirmed?: boolean;
	reportedStatus?: string;
}): MoneyEventItem {
	const { envelope } = options;
	const status = statusOfEnvelope(envelope) ?? options.reportedStatus ?? 'UNKNOWN';
	const resource = options.resource ?? resourceOfEnvelope(envelope);
	const { amount, currency } = amountOfEnvelope(envelope);
	const item: MoneyEventItem = {
		event: options.event ?? `${resource ?? 'transaction'}.${status.toLowerCase()}`,
		id: options.id,
		source: options.source,
		resource,
		status,
		reference: nonEmptyString(envelope.reference),
		channel: channelOfEnvelope(envelope),
		amount,
		currency,
		created_at: nonEmptyString(envelope.created_at),
		occurred_at: options.occurredAt ?? nonEmptyString(envelope.updated_at),
		confirmed: options.confirmed ?? false,
		data: envelope,
	};
	if (options.reportedStatus !== undefined && options.reportedStatus !== status) {
		item.reported_status = options.reportedStatus;
	}
	return item;
}

/* ------------------------------------------------------------------------------------------ */
/* Status ordering (docs/decisions.md#d2)                                                      */
/* ------------------------------------------------------------------------------------------ */

const FINAL_STATUSES = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

export function isFinalStatus(status: string): boolean {
	return FINAL_STATUSES.has(status) || status === 'REVERSED';
}

function statusRank(status: string): number {
	if (status === 'REVERSED') return 2;
	if (FINAL_STATUSES.has(status)) return 1;
	return 0;
}

export type TransitionVerdict = 'new' | 'advance' | 'duplicate' | 'stale';

/**
 * docs/decisions.md#d2: a status never goes back. PENDING (or an unknown, non-final label) may move to a final
 * status; COMPLETED may move on to REVERSED; a final status never returns to PENDING and never
 * turns into another final status.
 */
export function judgeTransition(previous: string | undefined, next: string): TransitionVerdict {
	if (previous === undefined) return 'new';
	if (previous === next) return 'duplicate';
	const from = statusRank(previous);
	const to = statusRank(next);
	if (to === 2) return previous === 'COMPLETED' || from === 0 ? 'advance' : 'stale';
	if (from === 0) return 'advance';
	return 'stale';
}

/* ------------------------------------------------------------------------------------------ */
/* Bounded memory in the node's static data                                                    */
/* ------------------------------------------------------------------------------------------ */

/**
 * `seenEvents` maps `e:<eventId>` to the second it was accepted, in acceptance order (the prefix
 * keeps ids that look like integers from being reordered); `seenEventCount` is its size.
 */
export interface EventMemory {
	seenEvents: Record<string, number>;
	seenEventCount: number;
	statuses: Record<string, string>;
	referenceOrder: string[];
}

function referenceKey(resource: MoneyResource | null, reference: string): string {
	return `${resource ?? 'transaction'}:${reference}`;
}

function seenKey(id: string): string {
	return `e:${id}`;
}

/** Reads (and normalises in place) the memory kept in a node's static data. */
export function eventMemoryOf(staticData: IDataObject): EventMemory {
	if (!isPlainObject(staticData.seenEvents)) staticData.seenEvents = {};
	if (typeof staticData.seenEventCount !== 'number') {
		staticData.seenEventCount = Object.keys(staticData.seenEvents as IDataObject).length;
	}
	if (!isPlainObject(staticData.statuses)) staticData.statuses = {};
	if (!Array.isArray(staticData.referenceOrder)) staticData.referenceOrder = [];
	return staticData as unknown as EventMemory;
}

export function hasSeenEventId(staticData: IDataObject, id: string): boolean {
	return Object.prototype.hasOwnProperty.call(eventMemoryOf(staticData).seenEvents, seenKey(id));
}

/**
 * Records an accepted event id. Returns false, remembering nothing, when the memory is full of
 * ids still inside the replay window: the caller must refuse the delivery then.
 */
export function rememberEventId(
	staticData: IDataObject,
	id: string,
	nowSeconds: number = unixSeconds(),
	caps: { soft: number; hard: number } = { soft: EVENT_ID_SOFT_CAP, hard: EVENT_ID_HARD_CAP },
): boolean {
	const memory = eventMemoryOf(staticData);
	const seen = memory.seenEvents;
	if (Object.prototype.hasOwnProperty.call(seen, seenKey(id))) return true;
	for (const key in seen) {
		const age = nowSeconds - seen[key];
		const expired = age >= EVENT_ID_RETENTION_SECONDS;
		const evictable = memory.seenEventCount >= caps.soft && age > EVENT_ID_REPLAY_WINDOW_SECONDS;
		if (!expired && !evictable) break;
		delete seen[key];
		memory.seenEventCount--;
	}
	if (memory.seenEventCount >= caps.hard) return false;
	seen[seenKey(id)] = nowSeconds;
	memory.seenEventCount++;
	staticData.seenEvents = seen;
	return true;
}

export function forgetEventId(staticData: IDataObject, id: string): void {
	const memory = eventMemoryOf(staticData);
	if (!Object.prototype.hasOwnProperty.call(memory.seenEvents, seenKey(id))) return;
	delete memory.seenEvents[seenKey(id)];
	memory.seenEventCount--;
	staticData.seenEvents = memory.seenEvents;
}

export function lastKnownStatus(
	staticData: IDataObject,
	resource: MoneyResource | null,
	reference: string,
): string | undefined {
	const value = eventMemoryOf(staticData).statuses[referenceKey(resource, reference)];
	return typeof value === 'string' ? value : undefined;
}

export function rememberStatus(
	staticData: IDataObject,
	resource: MoneyResource | null,
	reference: string,
	status: string,
	cap = MAX_REMEMBERED_REFERENCES,
): void {
	const memory = eventMemoryOf(staticData);
	const key = referenceKey(resource, reference);
	const { statuses, referenceOrder } = memory;
	const at = referenceOrder.indexOf(key);
	if (at >= 0) referenceOrder.splice(at, 1);
	referenceOrder.push(key);
	statuses[key] = status;
	while (referenceOrder.length > cap) delete statuses[referenceOrder.shift() as string];
	staticData.statuses = statuses;
	staticData.referenceOrder = referenceOrder;
}

/* ------------------------------------------------------------------------------------------ */
/* Filters                                                                                     */
/* ------------------------------------------------------------------------------------------ */

export interface EventFilters {
	resources: string[];
	statuses: string[];
	channels: string[];
}

/** Empty lists mean "any". */
export function passesFilters(
	filters: EventFilters,
	item: { resource: MoneyResource | null; status: string; channel: string | null },
): boolean {
	if (filters.resources.length > 0 && (!item.resource || !filters.resources.includes(item.resource))) return false;
	if (filters.statuses.length > 0 && !filters.statuses.includes(item.status)) return false;
	if (filters.channels.length > 0 && (!item.channel || !filters.channels.includes(item.channel))) return false;
	return true;
}

export function asStringList(value: unknown): string[] {
	if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === 'string' && entry !== '');
	if (typeof value === 'string' && value !== '') return [value];
	return [];
}

/* ------------------------------------------------------------------------------------------ */
/* API confirmation                                                                            */
/* ------------------------------------------------------------------------------------------ */

export function readRoute(resource: MoneyResource, reference: string): string {
	return `/money/v1/${resource}/${encodeURIComponent(reference)}`;
}

export function listRoute(resource: MoneyResource): string {
	return `/money/v1/${resource}`;
}

/** The envelope of a Get response (`{success, data}`), or the body itself when unwrapped. */
export function envelopeOfReadResponse(response: unknown): IDataObject | null {
	if (!isPlainObject(response)) return null;
	if (isPlainObject(response.data)) return response.data as IDataObject;
	if (response.reference !== undefined) return response;
	return null;
}

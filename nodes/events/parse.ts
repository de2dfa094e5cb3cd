import { createHash } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import type { TransactionResource } from '../api/values';
import { channelOfEnvelope, isPlainObject, nonEmptyString, resourceFromType, resourceOfEnvelope, statusOfEnvelope } from './envelope';

/** A webhook body, parsed from the verified bytes (docs/decisions.md#d1 body, transaction envelope). */

export interface MoneyEvent {
	id: string;
	event: string;
	resource: TransactionResource | null;
	status: string;
	reference: string | null;
	channel: string | null;
	occurredAt: string | null;
	envelope: IDataObject;
}

export type ParseResult = { ok: true; event: MoneyEvent } | { ok: false; reason: string };

export function resourceFromEventName(eventName: string | null): TransactionResource | null {
	if (!eventName) return null;
	const prefix = eventName.split('.')[0];
	return resourceFromType(prefix);
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

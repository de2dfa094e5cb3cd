import type { IDataObject } from 'n8n-workflow';

import type { TransactionResource } from '../api/values';
import { TIMESTAMP_TOLERANCE_SECONDS } from '../../credentials/signing/signature';
import { isPlainObject } from './envelope';

/**
 * How long the triggers remember events, and the last status per reference kept in a trigger's
 * state (the Poll Trigger's static data). The Money Trigger keeps its memory per process and
 * writes it into every static-data save (nodes/MoneyTrigger/memory, docs/webhook-memory.md).
 */

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

/** The last status per reference, and the references from least to most recently changed. */
interface StatusMemory {
	statuses: Record<string, string>;
	referenceOrder: string[];
}

function referenceKey(resource: TransactionResource | null, reference: string): string {
	return `${resource ?? 'transaction'}:${reference}`;
}

/** Reads (and normalises in place) the statuses kept in a trigger's state. */
function statusMemoryOf(state: IDataObject): StatusMemory {
	if (!isPlainObject(state.statuses)) state.statuses = {};
	if (!Array.isArray(state.referenceOrder)) state.referenceOrder = [];
	return state as unknown as StatusMemory;
}

export function lastKnownStatus(state: IDataObject, resource: TransactionResource | null, reference: string): string | undefined {
	const statuses = statusMemoryOf(state).statuses;
	const key = referenceKey(resource, reference);
	if (!Object.prototype.hasOwnProperty.call(statuses, key)) return undefined;
	const value = statuses[key];
	return typeof value === 'string' ? value : undefined;
}

export function rememberStatus(
	state: IDataObject,
	resource: TransactionResource | null,
	reference: string,
	status: string,
	cap = MAX_REMEMBERED_REFERENCES,
): void {
	const memory = statusMemoryOf(state);
	const key = referenceKey(resource, reference);
	const { statuses, referenceOrder } = memory;
	const at = referenceOrder.indexOf(key);
	if (at >= 0) referenceOrder.splice(at, 1);
	referenceOrder.push(key);
	statuses[key] = status;
	while (referenceOrder.length > cap) delete statuses[referenceOrder.shift() as string];
	state.statuses = statuses;
	state.referenceOrder = referenceOrder;
}

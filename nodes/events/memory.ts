import type { IDataObject } from 'n8n-workflow';

import type { TransactionResource } from '../api/values';
import { TIMESTAMP_TOLERANCE_SECONDS, unixSeconds } from '../../credentials/signing/signature';
import { isPlainObject } from './envelope';

/** Bounded event memory in a node's static data: accepted event ids and the last status per reference. */

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

function referenceKey(resource: TransactionResource | null, reference: string): string {
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
	resource: TransactionResource | null,
	reference: string,
): string | undefined {
	const value = eventMemoryOf(staticData).statuses[referenceKey(resource, reference)];
	return typeof value === 'string' ? value : undefined;
}

export function rememberStatus(
	staticData: IDataObject,
	resource: TransactionResource | null,
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

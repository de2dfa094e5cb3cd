import type { IDataObject } from 'n8n-workflow';

import type { TransactionResource } from '../api/values';
import { isPlainObject } from './envelope';

/**
 * The statuses seen per reference kept in a trigger's state (the Poll Trigger's static data), and
 * how both triggers name a transaction. The Money Trigger keeps its memory per process and writes
 * it into every static-data save (nodes/MoneyTrigger/memory, docs/webhook-memory.md).
 */

/** Every status label seen per reference, each as it came, and the references from least to most recently changed. */
interface StatusMemory {
	statuses: Record<string, string[]>;
	referenceOrder: string[];
}

/** A transaction as both triggers name it: its resource and reference. */
export function referenceKey(resource: TransactionResource | null, reference: string): string {
	return `${resource ?? 'transaction'}:${reference}`;
}

/** Reads (and normalises in place) the statuses kept in a trigger's state. */
function statusMemoryOf(state: IDataObject): StatusMemory {
	if (!isPlainObject(state.statuses)) state.statuses = {};
	if (!Array.isArray(state.referenceOrder)) state.referenceOrder = [];
	return state as unknown as StatusMemory;
}

/** The status labels seen for a transaction, in the order they came. */
export function knownStatuses(state: IDataObject, resource: TransactionResource | null, reference: string): string[] {
	const statuses = statusMemoryOf(state).statuses;
	const key = referenceKey(resource, reference);
	if (!Object.prototype.hasOwnProperty.call(statuses, key)) return [];
	const value = statuses[key];
	return Array.isArray(value) ? value.filter((label) => typeof label === 'string') : [];
}

/** The status label last seen for a transaction. */
export function lastKnownStatus(state: IDataObject, resource: TransactionResource | null, reference: string): string | undefined {
	return knownStatuses(state, resource, reference).at(-1);
}

/** Adds a status label to those seen for a transaction, which becomes the most recently changed. */
export function rememberStatus(
	state: IDataObject,
	resource: TransactionResource | null,
	reference: string,
	status: string,
	cap: number,
): void {
	const memory = statusMemoryOf(state);
	const key = referenceKey(resource, reference);
	const known = knownStatuses(state, resource, reference);
	const { statuses, referenceOrder } = memory;
	const at = referenceOrder.indexOf(key);
	if (at >= 0) referenceOrder.splice(at, 1);
	referenceOrder.push(key);
	statuses[key] = known.includes(status) ? known : [...known, status];
	while (referenceOrder.length > cap) delete statuses[referenceOrder.shift() as string];
	state.statuses = statuses;
	state.referenceOrder = referenceOrder;
}

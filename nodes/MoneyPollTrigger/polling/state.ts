import type { IDataObject } from 'n8n-workflow';

import type { TransactionResource } from '../../api/values';

/** What the trigger keeps between polls in its static data: cursors, history floors, watch list, statuses. */

const MAX_WATCHED = 500;
export const MAX_REMEMBERED_STATUSES = 2000;

export interface PollState extends IDataObject {
	cursors: Record<string, number>;
	floors: Record<string, number>;
	watch: string[];
	statuses: Record<string, string>;
	referenceOrder: string[];
}

export function watchKey(resource: TransactionResource, reference: string): string {
	return `${resource}:${reference}`;
}

export function parseWatchKey(key: string): { resource: TransactionResource; reference: string } | null {
	const separator = key.indexOf(':');
	const resource = key.slice(0, separator);
	if (resource !== 'charge' && resource !== 'payout') return null;
	return { resource, reference: key.slice(separator + 1) };
}

export function loadState(staticData: IDataObject): PollState {
	const copy = JSON.parse(JSON.stringify(staticData)) as IDataObject;
	return {
		...copy,
		cursors: copy.cursors && typeof copy.cursors === 'object' ? (copy.cursors as Record<string, number>) : {},
		floors: copy.floors && typeof copy.floors === 'object' ? (copy.floors as Record<string, number>) : {},
		watch: Array.isArray(copy.watch) ? (copy.watch as string[]) : [],
		statuses: copy.statuses && typeof copy.statuses === 'object' ? (copy.statuses as Record<string, string>) : {},
		referenceOrder: Array.isArray(copy.referenceOrder) ? (copy.referenceOrder as string[]) : [],
	};
}

export function saveState(staticData: IDataObject, state: PollState): void {
	staticData.cursors = state.cursors;
	staticData.floors = state.floors;
	staticData.watch = state.watch;
	staticData.statuses = state.statuses;
	staticData.referenceOrder = state.referenceOrder;
}

export function watch(state: PollState, key: string): void {
	if (state.watch.includes(key)) return;
	const next = [...state.watch, key];
	state.watch = next.length > MAX_WATCHED ? next.slice(next.length - MAX_WATCHED) : next;
}

export function unwatch(state: PollState, key: string): void {
	if (state.watch.includes(key)) state.watch = state.watch.filter((known) => known !== key);
}

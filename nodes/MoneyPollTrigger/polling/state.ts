import type { IDataObject } from 'n8n-workflow';

import type { TransactionResource } from '../../api/values';

/**
 * What the trigger keeps between polls in its static data: cursors, history floors, the listing
 * window a poll left unfinished, the watch list and the last statuses (docs/webhook-memory.md,
 * "The Poll Trigger").
 */

export const MAX_REMEMBERED_STATUSES = 2000;

/**
 * The part of a resource's list a poll reads: created_at from `start` (null: no lower bound) to
 * `end` (null until the first page fixed it), from page `page` on, newest first. A poll that
 * reaches Max Pages keeps it here and the next poll resumes at `page`.
 */
export interface ListingWindow extends IDataObject {
	start: number | null;
	end: number | null;
	page: number;
	/** Status of each transaction read so far created within the overlap of the window's newest. */
	recent: Record<string, string>;
}

/**
 * Where the scan of the REVERSED payouts list stands (polling/reversals.ts): the list's total and
 * the newest updated_at at the end of the last finished scan, and the page and references found
 * by an unfinished one.
 */
export interface ReversalScan extends IDataObject {
	total: number | null;
	since: number;
	page: number;
	found: string[];
}

export interface PollState extends IDataObject {
	cursors: Record<string, number>;
	floors: Record<string, number>;
	windows: Record<string, ListingWindow>;
	/**
	 * Per resource, the `recent` of the last finished window: the transactions the next window
	 * reads again (its overlap), known whatever the bounded status memory has forgotten since.
	 */
	recent: Record<string, Record<string, string>>;
	reversals?: ReversalScan;
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

function record<T>(value: unknown): Record<string, T> {
	return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, T>) : {};
}

export function loadState(staticData: IDataObject): PollState {
	const copy = JSON.parse(JSON.stringify(staticData)) as IDataObject;
	return {
		...copy,
		cursors: record<number>(copy.cursors),
		floors: record<number>(copy.floors),
		windows: record<ListingWindow>(copy.windows),
		recent: record<Record<string, string>>(copy.recent),
		reversals: copy.reversals && typeof copy.reversals === 'object' ? (copy.reversals as ReversalScan) : undefined,
		watch: Array.isArray(copy.watch) ? (copy.watch as string[]) : [],
		statuses: record<string>(copy.statuses),
		referenceOrder: Array.isArray(copy.referenceOrder) ? (copy.referenceOrder as string[]) : [],
	};
}

export function saveState(staticData: IDataObject, state: PollState): void {
	staticData.cursors = state.cursors;
	staticData.floors = state.floors;
	staticData.windows = state.windows;
	staticData.recent = state.recent;
	if (state.reversals) staticData.reversals = state.reversals;
	staticData.watch = state.watch;
	staticData.statuses = state.statuses;
	staticData.referenceOrder = state.referenceOrder;
}

/** Adds a PENDING transaction to the watch list. The list is never cut here: the poll checks its size (settings.maxWatched). */
export function watch(state: PollState, key: string): void {
	if (!state.watch.includes(key)) state.watch = [...state.watch, key];
}

/**
 * Statuses are remembered without a bound during a poll (polling/observe.ts); afterwards the least
 * recently seen are forgotten beyond `keep`, which the poll sets to hold at least everything it
 * read, so a transaction it reads again next poll (the overlap) is still known.
 */
export function forgetStatusesBeyond(state: PollState, keep: number): void {
	const excess = state.referenceOrder.length - keep;
	if (excess <= 0) return;
	const statuses = { ...state.statuses };
	for (const key of state.referenceOrder.slice(0, excess)) delete statuses[key];
	state.statuses = statuses;
	state.referenceOrder = state.referenceOrder.slice(excess);
}

export function unwatch(state: PollState, key: string): void {
	if (state.watch.includes(key)) state.watch = state.watch.filter((known) => known !== key);
}

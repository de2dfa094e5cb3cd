import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import type { TransactionResource } from '../../api/values';
import type { MoneyEventItem } from '../../events/item';
import type { ListWindow } from '../../transport/listWindow';

/**
 * What the trigger keeps between polls: cursors, history floors, the listing window a poll left
 * unfinished, the watch list, the last statuses, the known reversals and the events n8n could not
 * start (docs/webhook-memory.md,
 * "The Poll Trigger"). It lives in the workflow's global static data under the node's id, not in
 * the node's own static data, which n8n keys by the node's name: renaming the trigger in an active
 * workflow would otherwise start it afresh and skip what happened meanwhile.
 */

export const MAX_REMEMBERED_STATUSES = 2000;
/** How long a watched transaction's re-check may answer 404 (a read that lags) before it is no longer watched. */
export const NOT_FOUND_FOR_MS = 24 * 60 * 60_000;

/**
 * The part of a resource's list a poll reads (transport/listWindow.ts). A poll that reaches Max
 * Pages keeps it here and the next poll resumes its walk.
 */
export interface ListingWindow extends ListWindow {
	/** The newest created_at read in the window (the cursor it leaves). */
	newest: number;
	/** Status of each transaction read so far created within the overlap of the window's newest. */
	recent: Record<string, string>;
}

/**
 * The REVERSED payouts the trigger knows (polling/reversals.ts): every reference it read from the
 * REVERSED list or saw REVERSED, where the read of the list stands (null: the next read starts at
 * its newest), and whether the list has been read to its end once (until then what it reads
 * predates the trigger).
 */
export interface ReversalMemory extends IDataObject {
	known: string[];
	window: ListWindow | null;
	complete: boolean;
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
	reversals?: ReversalMemory;
	/** Whether the API writes created_at without a zone designator: list bounds are then written so too (api/time.ts). */
	zonelessTimes: boolean;
	watch: string[];
	statuses: Record<string, string[]>;
	referenceOrder: string[];
	/** Events n8n could not start an execution for, until an emit of them is known to have started (polling/emissions.ts). */
	retry?: MoneyEventItem[];
	/** Per watched transaction whose re-check answers 404, when it first did (ms; polling/reads.ts). */
	notFound?: Record<string, number>;
	/** A backstop's events not yet handed over to the Money Trigger (polling/backstop.ts). */
	handOver?: WaitingEvent[];
}

/** An event a backstop poll saw, and when (ms). */
export interface WaitingEvent extends IDataObject {
	event: MoneyEventItem;
	seenAt: number;
}

const STATE_FIELDS = ['cursors', 'floors', 'windows', 'recent', 'reversals', 'zonelessTimes', 'watch', 'statuses', 'referenceOrder', 'retry', 'notFound'];

export function watchKey(resource: TransactionResource, reference: string): string {
	return `${resource}:${reference}`;
}

export function parseWatchKey(key: string): { resource: TransactionResource; reference: string } | null {
	const separator = key.indexOf(':');
	const resource = key.slice(0, separator);
	if (resource !== 'charge' && resource !== 'payout') return null;
	return { resource, reference: key.slice(separator + 1) };
}

/** The key of one trigger's state in the workflow's global static data: its node id, which a rename keeps. */
export function stateKey(node: { id?: string; name: string }): string {
	return `moneyPollTrigger:${node.id || node.name}`;
}

function record<T>(value: unknown): Record<string, T> {
	return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, T>) : {};
}

function reversalMemory(value: unknown): ReversalMemory | undefined {
	const memory = record<unknown>(value);
	if (!Array.isArray(memory.known)) return undefined;
	return {
		known: memory.known.filter((reference): reference is string => typeof reference === 'string'),
		window: memory.window && typeof memory.window === 'object' ? (memory.window as ListWindow) : null,
		complete: memory.complete === true,
	};
}

/** A copy of the saved state, changed freely and saved only by saveState. */
export function loadState(context: IPollFunctions): PollState {
	return parseState(context.getWorkflowStaticData('global')[stateKey(context.getNode())]);
}

/** A state from its saved form (also a backstop's checkpoint: polling/backstop.ts), as a copy. */
export function parseState(saved: unknown): PollState {
	const copy = JSON.parse(JSON.stringify(saved ?? {})) as IDataObject;
	return {
		cursors: record<number>(copy.cursors),
		floors: record<number>(copy.floors),
		windows: record<ListingWindow>(copy.windows),
		recent: record<Record<string, string>>(copy.recent),
		reversals: reversalMemory(copy.reversals),
		zonelessTimes: copy.zonelessTimes === true,
		watch: Array.isArray(copy.watch) ? (copy.watch as string[]) : [],
		statuses: record<string[]>(copy.statuses),
		referenceOrder: Array.isArray(copy.referenceOrder) ? (copy.referenceOrder as string[]) : [],
		retry: Array.isArray(copy.retry) ? (copy.retry as MoneyEventItem[]) : undefined,
		notFound: copy.notFound === undefined ? undefined : record<number>(copy.notFound),
		handOver: Array.isArray(copy.handOver) ? (copy.handOver as WaitingEvent[]) : undefined,
	};
}

/**
 * Writes the state as one new object through n8n's static data proxy, so n8n sees it changed and
 * saves it (with the emitted items, or after an activation poll).
 */
export function saveState(context: IPollFunctions, state: PollState): void {
	const saved: IDataObject = {};
	for (const field of STATE_FIELDS) if (state[field] !== undefined) saved[field] = state[field];
	context.getWorkflowStaticData('global')[stateKey(context.getNode())] = saved;
}

/**
 * Forgets where a resource's listing stands once Resource no longer selects it: selected again, it
 * starts afresh as on the first activation, rather than emit what happened while it was not chosen.
 */
export function forgetUnselected(state: PollState, selected: TransactionResource[]): void {
	const keep = <T>(byResource: Record<string, T>): Record<string, T> =>
		Object.fromEntries(Object.entries(byResource).filter(([resource]) => (selected as string[]).includes(resource)));
	state.cursors = keep(state.cursors);
	state.floors = keep(state.floors);
	state.windows = keep(state.windows);
	state.recent = keep(state.recent);
}

/** Notes how the API writes created_at, from an envelope just read. */
export function noteTimeNotation(state: PollState, zoneless: boolean | null): void {
	if (zoneless !== null) state.zonelessTimes = zoneless;
}

/** Adds a PENDING transaction to the watch list. The list is never cut here: the poll checks its size (settings.maxWatched). */
export function watch(state: PollState, key: string): void {
	if (!state.watch.includes(key)) state.watch = [...state.watch, key];
}

/**
 * Statuses are remembered without a bound during a poll (polling/observe.ts); afterwards the least
 * recently seen are forgotten beyond `keep`, which the poll sets to hold at least everything it
 * read, so a transaction it reads again next poll (the overlap) is still known. A watched
 * transaction's statuses are kept whatever `keep` says (the watch list has its own bound, Max
 * Watched Transactions): a later poll re-reads it, and a PENDING it had forgotten would be new.
 */
export function forgetStatusesBeyond(state: PollState, keep: number): void {
	const watched = new Set(state.watch);
	const forgettable = state.referenceOrder.filter((key) => !watched.has(key));
	const excess = forgettable.length - keep;
	if (excess <= 0) return;
	const forget = new Set(forgettable.slice(0, excess));
	const statuses = { ...state.statuses };
	for (const key of forget) delete statuses[key];
	state.statuses = statuses;
	state.referenceOrder = state.referenceOrder.filter((key) => !forget.has(key));
}

/** Remembers a payout seen REVERSED by any read of a poll, so the read of the REVERSED list (polling/reversals.ts) counts it as known. */
export function rememberReversal(state: PollState, reference: string): void {
	if (state.reversals && !state.reversals.known.includes(reference)) {
		state.reversals = { ...state.reversals, known: [...state.reversals.known, reference] };
	}
}

export function unwatch(state: PollState, key: string): void {
	if (state.watch.includes(key)) state.watch = state.watch.filter((known) => known !== key);
	forgetNotFound(state, key);
}

/**
 * Notes that a watched transaction's re-check answered 404: true once it has answered so for
 * NOT_FOUND_FOR_MS, after which it is no longer watched (a transaction gone from the account, a
 * credential switched to another client) instead of filling the watch list for ever.
 */
export function noteNotFound(state: PollState, key: string): boolean {
	const nowMs = Date.now();
	const since = state.notFound?.[key] ?? nowMs;
	state.notFound = { ...state.notFound, [key]: since };
	return nowMs - since >= NOT_FOUND_FOR_MS;
}

/** Forgets a transaction's 404s: it was read, or is no longer watched. */
export function forgetNotFound(state: PollState, key: string): void {
	if (state.notFound?.[key] === undefined) return;
	const rest = { ...state.notFound };
	delete rest[key];
	state.notFound = Object.keys(rest).length > 0 ? rest : undefined;
}

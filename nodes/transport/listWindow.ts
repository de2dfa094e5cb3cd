import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiTime, createdAtMs, zonelessCreatedAt } from '../api/time';
import { LIST_PAGE_SIZE_MAX } from '../api/values';
import { statusOfEnvelope } from '../events/envelope';
import { isObject } from './failures';
import { type MoneyApiContext, moneyApiRequest, type MoneyApiRequestOptions } from './request';

/**
 * Reading a window of a list whole while it changes (docs/decisions.md#d11). A list is ordered by
 * created_at, newest first, and nothing more: transactions created at the same instant may come in
 * another order on each request, so page numbers alone skip some and repeat others where an instant
 * straddles two pages. The window is walked by created_at instead, one request per step: every
 * request asks for page 1 with end_date one step of created_at past the oldest instant the last
 * page reached (a second; a millisecond once created_at shows a fraction). That instant then comes
 * whole on the next page whether end_date includes its own instant or not, and whatever fraction of
 * a second the API keeps without writing it. What the page lists newer than that instant was read
 * already (the walk goes newest first, and created_at never changes), and so were the instant's
 * references the window holds: both are dropped.
 * A page is the last when it is shorter than asked and lists all the API counts: an API may answer
 * fewer a page than asked (its pagination.limit). An instant that page 1 does not show to its end
 * (more transactions than a page, with those newer above it) is read by the pages of that query,
 * and their count is its place in the list, where the older transactions start, less the places of
 * the newer ones above it. Its pages are read again, in turn forwards and backwards, until as many
 * as the page that last showed that place counted have been read, at most MAX_INSTANT_ROUNDS times:
 * transactions never leave an instant, so what was read is then what it holds. A status in the
 * caller's query (the Poll Trigger's PENDING and REVERSED lists) is left out of an instant's pages
 * and checked on each transaction they list: a status change would move a transaction out of the
 * instant and shift the places counted.
 */

/**
 * Added to the newest created_at of a window's first page to make its end: the spec does not say
 * whether end_date includes its own instant, and created_at may be given to the second.
 */
export const BOUND_MARGIN_MS = 1000;

/** How many times the pages of an instant larger than a page are read before the read fails. */
export const MAX_INSTANT_ROUNDS = 16;

/** created_at's step while no created_at read has a fraction of a second. */
const SECOND_MS = 1000;

/** An instant page 1 of the walk's current query does not show to its end (larger than a page, or below newer ones), being read by the pages of that query. */
export interface InstantRead extends IDataObject {
	/** How many transactions the query lists at the instant (where the older ones start, less the newer above it), as the page that last showed it counted; null until a page shows it. */
	count: number | null;
	/** How many transactions a page of the API holds: the first page of the instant was full. */
	size: number;
	/** The next page to read, and how many times the instant's pages have been read so far. */
	page: number;
	round: number;
	/**
	 * How many transactions newer than the instant the query lists above it (read already), as the
	 * page that last showed where they end counted, or at least as many as a page full of them
	 * showed; absent: none known. Transactions never leave, so it only grows.
	 */
	newer?: number;
	/** The query's end_date is this far past the instant, on all its pages (their places are one query's); absent: the window's stepMs. */
	step?: number;
	/** Where the walk goes on once the instant is read whole (null: the window ends with it); unset until known. */
	after?: { end: number; seen: string[] } | null;
}

/**
 * Where a walk stands; plain JSON, so a poll can keep it in static data and the next one resume.
 * Times are the API's (api/time.ts).
 */
export interface ListWindow extends IDataObject {
	/** start_date of every request, as sent; null: none. */
	start: string | null;
	/** The next request's end_date: the query's own, as given, or the instant the walk reached; null before the first page. */
	end: string | number | null;
	/** The window's own end (end_date of its count): the query's, or its first page's newest instant plus BOUND_MARGIN_MS. */
	top: string | number | null;
	/** References read at the instant `end`: the next page lists them again. */
	seen: string[];
	/** created_at's step, end_date's distance past `end`: 1 ms once any created_at read has a fraction of a second (an API may leave out a zero one), else 1 s. */
	stepMs: number | null;
	/** Whether created_at is written without a zone designator: bounds are written back the same way. */
	zoneless: boolean;
	instant: InstantRead | null;
	/** The API's pagination.total of the window, from its first request. */
	total: number | null;
	requests: number;
	finished: boolean;
}

export function newWindow(start: string | null, end: string | null, zoneless = false): ListWindow {
	return { start, end, top: end, seen: [], stepMs: null, zoneless, instant: null, total: null, requests: 0, finished: false };
}

interface Page {
	items: IDataObject[];
	total: number;
}

function referenceOf(envelope: IDataObject): string | null {
	return typeof envelope.reference === 'string' ? envelope.reference : null;
}

const FRACTION = /\d:\d{2}[.,]\d/;

async function requestPage(
	context: MoneyApiContext,
	route: string,
	qs: IDataObject,
	window: ListWindow,
	page: number,
	step: number,
	options: MoneyApiRequestOptions,
): Promise<Page> {
	const query: IDataObject = { ...qs, page, limit: LIST_PAGE_SIZE_MAX };
	if (window.start !== null) query.start_date = window.start;
	const { end } = window;
	if (typeof end === 'string') query.end_date = end;
	else if (typeof end === 'number') query.end_date = apiTime(end + step, window.zoneless);
	const body = await moneyApiRequest.call(context, 'GET', route, { ...options, qs: query });
	window.requests++;
	const pagination = body.pagination as IDataObject;
	if (typeof pagination.total !== 'number') {
		throw new NodeOperationError(context.getNode(), 'The Money API answered a list without pagination.total', {
			description: `The node checks what it reads against pagination.total, so that it never returns part of a list as if whole; this answer (${route}) does not carry it. Check that the credential's Base URL points at the Money API.`,
			itemIndex: options.itemIndex,
		});
	}
	const items = (body.data as unknown[]).filter(isObject) as IDataObject[];
	for (const envelope of items) {
		if (createdAtMs(envelope) === null) {
			throw new NodeOperationError(context.getNode(), `The Money API listed a transaction without a readable created_at (${String(envelope.reference)})`, {
				description: 'The node reads lists by created_at, which the API documents on every transaction; without it the list cannot be read whole.',
				itemIndex: options.itemIndex,
			});
		}
		const zoneless = zonelessCreatedAt(envelope);
		if (zoneless !== null) window.zoneless = zoneless;
		if (typeof envelope.created_at === 'string') window.stepMs = FRACTION.test(envelope.created_at) ? 1 : (window.stepMs ?? SECOND_MS);
	}
	return { items, total: pagination.total };
}

const instantOf = (envelope: IDataObject) => createdAtMs(envelope) as number;

/** The references of `items` at `at`. */
function referencesAt(items: IDataObject[], at: number): string[] {
	return items.filter((envelope) => instantOf(envelope) === at).flatMap((envelope) => referenceOf(envelope) ?? []);
}

/**
 * One request of the walk: the transactions it lists that the window had not read yet. The window
 * is updated (a reader that stops keeps it and resumes); `finished` once the window is read.
 */
export async function windowStep(
	this: MoneyApiContext,
	route: string,
	qs: IDataObject,
	window: ListWindow,
	options: MoneyApiRequestOptions = {},
): Promise<IDataObject[]> {
	if (window.finished) return [];
	if (window.instant) {
		// An instant's pages are read without the query's status: a transaction whose status changes
		// between two pages would leave the instant and move the places they count.
		const { status, ...unfiltered } = qs;
		const read = await instantStep(this, route, unfiltered, window, window.instant, options);
		return status === undefined ? read : read.filter((envelope) => statusOfEnvelope(envelope) === status);
	}
	const first = window.requests === 0;
	const step = window.stepMs ?? SECOND_MS;
	const { items, total } = await requestPage(this, route, qs, window, 1, step, options);
	const bound = typeof window.end === 'number' ? window.end : null;
	if (first) {
		window.total = total;
		const newest = Math.max(...items.map(instantOf));
		if (window.top === null && items.length > 0) window.top = apiTime(newest + BOUND_MARGIN_MS, window.zoneless);
	}
	const seen = new Set(window.seen);
	// Newer than the instant the walk stands at: read already; at it: read already when seen.
	const fresh = items.filter((envelope) => bound === null || instantOf(envelope) < bound || (instantOf(envelope) === bound && !seen.has(referenceOf(envelope) ?? '')));
	if (items.length === 0 || (items.length < LIST_PAGE_SIZE_MAX && items.length >= total)) {
		window.finished = true;
		return fresh;
	}
	const oldest = Math.min(...items.map(instantOf));
	if (bound !== null && oldest >= bound) {
		// Page 1 ends within the instant the walk stands at, or above it: page 1 again would be the same. The instant is read by the pages of this query.
		window.seen = [...new Set([...window.seen, ...referencesAt(items, bound)])];
		const newer = items.filter((envelope) => instantOf(envelope) > bound).length;
		// With a status in the query, the instant's pages start again from page 1 of the query without it.
		window.instant = qs.status === undefined ? { count: null, size: items.length, page: 2, round: 0, newer, step } : { count: null, size: items.length, page: 1, round: 0, step };
		return fresh;
	}
	window.end = oldest;
	window.seen = referencesAt(items, oldest);
	return fresh;
}

/** One page of an instant larger than a page (see the top of this file). */
async function instantStep(
	context: MoneyApiContext,
	route: string,
	qs: IDataObject,
	window: ListWindow,
	instant: InstantRead,
	options: MoneyApiRequestOptions,
): Promise<IDataObject[]> {
	const at = window.end as number;
	const { size } = instant;
	const { items, total } = await requestPage(context, route, qs, window, instant.page, instant.step ?? window.stepMs ?? SECOND_MS, options);
	const seen = new Set(window.seen);
	const fresh: IDataObject[] = [];
	for (const envelope of items) {
		const reference = referenceOf(envelope);
		if (instantOf(envelope) !== at || reference === null || seen.has(reference)) continue;
		seen.add(reference);
		fresh.push(envelope);
	}
	window.seen = [...seen];
	// A page showing where the newer transactions end, or full of them, says how many the query lists above the instant.
	const newerEnd = items.findIndex((envelope) => instantOf(envelope) <= at);
	if (newerEnd !== 0 && items.length > 0) instant.newer = Math.max(instant.newer ?? 0, (instant.page - 1) * size + (newerEnd >= 0 ? newerEnd : items.length));
	const newer = instant.newer ?? 0;
	// The page where the older transactions start (or the list ends, by its length or by the API's count) counts the instant as the API holds it now.
	const olderFrom = items.findIndex((envelope) => instantOf(envelope) < at);
	const counts = olderFrom >= 0 || items.length < size || instant.page * size >= total;
	if (counts) {
		if (instant.after === undefined) {
			const older = olderFrom >= 0 ? items.slice(olderFrom) : [];
			fresh.push(...older);
			if (older.length === 0 || items.length < size) instant.after = null;
			else {
				const oldest = Math.min(...older.map(instantOf));
				instant.after = { end: oldest, seen: referencesAt(older, oldest) };
			}
		}
		instant.count = Math.max(0, (instant.page - 1) * size + (olderFrom >= 0 ? olderFrom : items.length) - newer);
		if (window.seen.length >= instant.count) {
			window.instant = null;
			if (!instant.after) window.finished = true;
			else {
				window.end = instant.after.end;
				window.seen = instant.after.seen;
			}
			return fresh;
		}
	}
	const forwards = instant.round % 2 === 0;
	instant.page += forwards ? 1 : -1;
	if (instant.count === null) return fresh;
	// The instant's pages: from the one where the newer transactions end to the one where the instant does.
	const firstPage = Math.floor(newer / size) + 1;
	const lastPage = Math.max(firstPage, Math.ceil((newer + instant.count) / size));
	// As many read as the instant held when last counted: going forwards, the page that counts it next tells whether it grew since.
	if (forwards && window.seen.length >= instant.count) instant.page = Math.max(instant.page, lastPage);
	if (forwards ? instant.page > lastPage && counts : instant.page < firstPage) {
		instant.round++;
		if (instant.round >= MAX_INSTANT_ROUNDS) {
			const instantText = apiTime(at, window.zoneless);
			throw new NodeOperationError(
				context.getNode(),
				`The Money API lists ${instant.count} transactions created at ${instantText}; after reading their pages ${MAX_INSTANT_ROUNDS} times, ${instant.count - window.seen.length} of them were still not read`,
				{
					description:
						'The API orders transactions created at the same instant differently on each request, so the pages of that instant never showed all of them. Nothing was output, so no list is short without saying so. Run the node again; if it fails again, ask the API provider to order lists by created_at and reference.',
					itemIndex: options.itemIndex,
				},
			);
		}
		instant.page = instant.round % 2 === 0 ? firstPage : lastPage;
	}
	return fresh;
}

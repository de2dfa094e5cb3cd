import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiTime, createdAtMs, zonelessCreatedAt } from '../api/time';
import { LIST_PAGE_SIZE_MAX } from '../api/values';
import { isObject } from './failures';
import { type MoneyApiContext, moneyApiRequest, type MoneyApiRequestOptions } from './request';

/**
 * Reading a window of a list whole while it changes (docs/decisions.md#d11). A list is ordered by
 * created_at, newest first, and nothing more: transactions created at the same instant may come in
 * another order on each request, so page numbers alone skip some and repeat others where an instant
 * straddles two pages. The window is walked by created_at instead, one request per step: every
 * request asks for page 1 with end_date at the oldest instant the last page reached, so that
 * instant comes whole at the top of the next page (its references, read already, are dropped).
 * A page is the last when it is shorter than asked and lists all the API counts: an API may answer
 * fewer a page than asked (its pagination.limit). An instant holding more transactions than a page
 * is read by the pages of that query, and their count is its place in the list: where the older
 * transactions start. Its pages are read again, in turn forwards and backwards, until as many as
 * the page that last showed that place counted have been read, at most MAX_INSTANT_ROUNDS times:
 * transactions never leave an instant, so what was read is then what it holds. The window's query
 * holds no status, so a status change moves nothing.
 */

/**
 * Added to the newest created_at of a window's first page to make its end: the spec does not say
 * whether end_date includes its own instant, and created_at may be given to the second.
 */
export const BOUND_MARGIN_MS = 1000;

/** How many times the pages of an instant larger than a page are read before the read fails. */
export const MAX_INSTANT_ROUNDS = 16;

/** An instant larger than a page, being read by the pages of the walk's current query. */
export interface InstantRead extends IDataObject {
	/** How many transactions the query lists at the instant (where the older ones start), as the page that last showed it counted; null until a page shows it. */
	count: number | null;
	/** How many transactions a page of the API holds: the first page of the instant was full. */
	size: number;
	/** The next page to read, and how many times the instant's pages have been read so far. */
	page: number;
	round: number;
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
	/** Whether end_date includes its own instant (learnt when the walk first reaches one), and created_at's step: 1 ms once any created_at read has a fraction of a second, else 1 s. */
	inclusive: boolean | null;
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
	return { start, end, top: end, seen: [], inclusive: null, stepMs: null, zoneless, instant: null, total: null, requests: 0, finished: false };
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
	options: MoneyApiRequestOptions,
): Promise<Page> {
	const query: IDataObject = { ...qs, page, limit: LIST_PAGE_SIZE_MAX };
	if (window.start !== null) query.start_date = window.start;
	const { end } = window;
	if (typeof end === 'string') query.end_date = end;
	else if (typeof end === 'number') query.end_date = apiTime(window.inclusive === false ? end + (window.stepMs ?? 1) : end, window.zoneless);
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
		if (typeof envelope.created_at === 'string') window.stepMs = FRACTION.test(envelope.created_at) ? 1 : (window.stepMs ?? 1000);
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
	if (window.instant) return await instantStep(this, route, qs, window, window.instant, options);
	const first = window.requests === 0;
	const { items, total } = await requestPage(this, route, qs, window, 1, options);
	const bound = typeof window.end === 'number' ? window.end : null;
	if (first) {
		window.total = total;
		const newest = Math.max(...items.map(instantOf));
		if (window.top === null && items.length > 0) window.top = apiTime(newest + BOUND_MARGIN_MS, window.zoneless);
	}
	if (bound !== null && window.inclusive === null) {
		// The walk asked for end_date at an instant it holds transactions of: listed, the bound includes it.
		if (!items.some((envelope) => instantOf(envelope) === bound)) {
			window.inclusive = false;
			return [];
		}
		window.inclusive = true;
	}
	const seen = new Set(window.seen);
	const fresh = items.filter((envelope) => bound === null || instantOf(envelope) < bound || !seen.has(referenceOf(envelope) ?? ''));
	if (items.length === 0 || (items.length < LIST_PAGE_SIZE_MAX && items.length >= total)) {
		window.finished = true;
		return fresh;
	}
	const oldest = Math.min(...items.map(instantOf));
	if (oldest === bound) {
		// A page of the instant the walk stands at: page 1 again would be the same. The instant is read by its pages.
		window.seen = [...new Set([...window.seen, ...referencesAt(items, oldest)])];
		window.instant = { count: null, size: items.length, page: 2, round: 0 };
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
	const { items, total } = await requestPage(context, route, qs, window, instant.page, options);
	const seen = new Set(window.seen);
	const fresh: IDataObject[] = [];
	for (const envelope of items) {
		const reference = referenceOf(envelope);
		if (instantOf(envelope) !== at || reference === null || seen.has(reference)) continue;
		seen.add(reference);
		fresh.push(envelope);
	}
	window.seen = [...seen];
	// The page where the older transactions start (or the list ends, by its length or by the API's count) counts the instant as the API holds it now.
	const olderFrom = items.findIndex((envelope) => instantOf(envelope) < at);
	const counts = olderFrom >= 0 || items.length < size || instant.page * size >= total;
	if (counts) {
		if (instant.count === null) {
			const older = olderFrom >= 0 ? items.slice(olderFrom) : [];
			fresh.push(...older);
			if (older.length === 0 || items.length < size) instant.after = null;
			else {
				const oldest = Math.min(...older.map(instantOf));
				instant.after = { end: oldest, seen: referencesAt(older, oldest) };
			}
		}
		instant.count = (instant.page - 1) * size + (olderFrom >= 0 ? olderFrom : items.length);
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
	const pages = Math.max(1, Math.ceil(instant.count / size));
	// As many read as the instant held when last counted: going forwards, the page that counts it next tells whether it grew since.
	if (forwards && window.seen.length >= instant.count) instant.page = Math.max(instant.page, pages);
	if (forwards ? instant.page > pages && counts : instant.page < 1) {
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
		instant.page = instant.round % 2 === 0 ? 1 : pages;
	}
	return fresh;
}

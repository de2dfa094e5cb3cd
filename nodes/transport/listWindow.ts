import type { IDataObject } from 'n8n-workflow';

import { apiTime, createdAtMs, zonelessCreatedAt } from '../api/time';
import { LIST_PAGE_SIZE_MAX } from '../api/values';
import { type MoneyApiContext, moneyApiRequest, type MoneyApiRequestOptions } from './request';

/**
 * Reading a list whole while it changes (docs/decisions.md#d11). Lists are ordered newest first
 * and paged by number, so a transaction created between two pages pushes the older ones a place
 * down (a row read twice), and one that leaves a status-filtered list pulls them a place up (a row
 * never read). A window keeps its pages still: its upper bound on created_at is fixed by its first
 * page, and its query holds no status, so a status change moves nothing. What can still enter it
 * (a transaction created within the bound's margin, a row listed late) only moves rows down: the
 * reader drops repeats by reference.
 */

export interface MoneyListPage {
	items: IDataObject[];
	page: number;
	pages: number;
	total?: number;
}

/** Pages of a list route, fetched one at a time, following `pagination.pages`. */
export async function* moneyApiPages(
	this: MoneyApiContext,
	route: string,
	qs: IDataObject,
	options: Omit<MoneyApiRequestOptions, 'qs' | 'body'> & { pageSize?: number; startPage?: number } = {},
): AsyncGenerator<MoneyListPage> {
	const pageSize = Math.min(Math.max(1, options.pageSize ?? LIST_PAGE_SIZE_MAX), LIST_PAGE_SIZE_MAX);
	for (let page = options.startPage ?? 1; ; page++) {
		const response = await moneyApiRequest.call(this, 'GET', route, { ...options, qs: { ...qs, page, limit: pageSize } });
		const items = response.data as IDataObject[];
		const pagination = response.pagination as IDataObject;
		const pages = typeof pagination.pages === 'number' ? pagination.pages : page;
		yield { items, page, pages, total: typeof pagination.total === 'number' ? pagination.total : undefined };
		if (items.length === 0 || page >= pages) return;
	}
}

/**
 * Added beyond a bound read from created_at, whatever else: the spec does not say whether
 * start_date and end_date include their own instant, and created_at may be given to the second, so
 * a transaction created at the same instant as the newest one read is read again, never skipped.
 */
export const BOUND_MARGIN_MS = 1000;

/**
 * The part of a list a window reads: created_at from `start` (null: no bound, or the query's own
 * start_date) to `end` (null until the first page fixes it, unless the query has its own
 * end_date), from page `page` on. Times are the API's (api/time.ts).
 */
export interface ListWindow extends IDataObject {
	start: number | null;
	end: number | null;
	page: number;
}

export interface WindowPage extends MoneyListPage {
	/** The last page of the window. */
	finished: boolean;
}

/**
 * The window's pages from `window.page` on, newest first, one request each; the window is updated
 * as they are read (its end fixed by the first page, `page` the next one to read), so a reader that
 * stops early can keep it and resume. `zoneless`: how the API writes created_at, as far as known
 * (bounds are written back the same way); learnt from the pages read.
 */
export async function* windowPages(
	this: MoneyApiContext,
	route: string,
	qs: IDataObject,
	window: ListWindow,
	options: Omit<MoneyApiRequestOptions, 'qs' | 'body'> & { zoneless?: boolean } = {},
): AsyncGenerator<WindowPage> {
	const { zoneless: knownNotation, ...requestOptions } = options;
	let zoneless = knownNotation ?? false;
	const fixesEnd = qs.end_date === undefined;
	for (;;) {
		const query: IDataObject = { ...qs };
		if (window.start !== null) query.start_date = apiTime(Math.max(0, window.start), zoneless);
		if (window.end !== null) query.end_date = apiTime(window.end, zoneless);
		const pages = moneyApiPages.call(this, route, query, { ...requestOptions, pageSize: LIST_PAGE_SIZE_MAX, startPage: window.page });
		const page: MoneyListPage = (await pages.next()).value ?? { items: [], page: window.page, pages: window.page };
		const newest = page.items.reduce((max, envelope) => Math.max(max, createdAtMs(envelope) ?? 0), 0);
		const notation = page.items.map(zonelessCreatedAt).find((value) => value !== null);
		if (notation !== undefined && notation !== null) zoneless = notation;
		if (fixesEnd && window.end === null && newest > 0) window.end = newest + BOUND_MARGIN_MS;
		const finished = page.items.length === 0 || page.page >= page.pages;
		window.page = page.page + 1;
		yield { ...page, finished };
		if (finished) return;
	}
}

import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { listRoute } from '../../api/routes';
import { LIST_PAGE_SIZE_MAX, type TransactionResource } from '../../api/values';
import type { MoneyEventItem } from '../../events/item';
import { lastKnownStatus } from '../../events/memory';
import { moneyApiPages, type MoneyListPage } from '../../transport/request';
import { apiTime, createdAtMs, zonelessCreatedAt } from './apiTime';
import { observe } from './observe';
import type { PollSettings } from './settings';
import { type ListingWindow, noteTimeNotation, type PollState, watchKey } from './state';

/**
 * New transactions of one resource, read as a window that may span several polls
 * (docs/webhook-memory.md, "The Poll Trigger"). The first page, read without an upper bound,
 * fixes the window's `end` at the newest created_at it shows; later pages keep that bound, so
 * transactions created meanwhile cannot shift the pages (they belong to the next window, which
 * starts an overlap before the cursor). A poll that reaches Max Pages keeps the window and the
 * next poll resumes at the next page: nothing of the window is skipped.
 */

/**
 * Added beyond both bounds of a window, whatever the Overlap: the spec does not say whether
 * start_date and end_date include their own instant, and created_at may be given to the second, so
 * a transaction created at the same instant as the newest one read is read again, never skipped.
 */
export const BOUND_MARGIN_MS = 1000;

/** One page of a resource's list. */
export async function listPage(
	context: IPollFunctions,
	resource: TransactionResource,
	qs: IDataObject,
	page: number,
): Promise<MoneyListPage> {
	const pages = moneyApiPages.call(context, listRoute(resource), qs, { pageSize: LIST_PAGE_SIZE_MAX, startPage: page });
	const { value } = await pages.next();
	return value ?? { items: [], page, pages: page };
}

/**
 * The window's query holds no filter of the trigger: its pages must stay the same pages when
 * Channels is changed while a window is unfinished (the filters apply to what is read).
 */
function windowQuery(window: ListingWindow, zoneless: boolean): IDataObject {
	const qs: IDataObject = {};
	if (window.start !== null) qs.start_date = apiTime(Math.max(0, window.start), zoneless);
	if (window.end !== null) qs.end_date = apiTime(window.end, zoneless);
	return qs;
}

export async function pollNewTransactions(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	resource: TransactionResource,
	listed: Set<string>,
): Promise<MoneyEventItem[]> {
	const cursor = state.cursors[resource];
	const resumed = state.windows[resource];
	const window: ListingWindow = resumed
		? { ...resumed, recent: { ...(resumed.recent ?? {}) } }
		: { start: cursor > 0 ? cursor - settings.overlapMs - BOUND_MARGIN_MS : null, end: null, page: 1, recent: {} };
	const items: MoneyEventItem[] = [];
	let newest = cursor;
	let finished = false;
	for (let pagesRead = 0; pagesRead < settings.maxPages && !finished; pagesRead++) {
		const page = await listPage(context, resource, windowQuery(window, state.zonelessTimes), window.page);
		const newestOnPage = page.items.reduce((max, envelope) => Math.max(max, createdAtMs(envelope) ?? 0), 0);
		if (window.end === null && newestOnPage > 0) window.end = newestOnPage + BOUND_MARGIN_MS;
		const recentFrom = window.end === null ? Number.POSITIVE_INFINITY : window.end - 2 * BOUND_MARGIN_MS - settings.overlapMs;
		for (const envelope of page.items) {
			noteTimeNotation(state, zonelessCreatedAt(envelope));
			const reference = typeof envelope.reference === 'string' ? envelope.reference : null;
			if (reference) listed.add(watchKey(resource, reference));
			const item = observe(state, settings, resource, envelope, true);
			if (item) items.push(item);
			const known = reference ? lastKnownStatus(state, resource, reference) : undefined;
			if (reference && known && (createdAtMs(envelope) ?? 0) >= recentFrom) window.recent[reference] = known;
		}
		newest = Math.max(newest, newestOnPage);
		finished = page.items.length === 0 || page.page >= page.pages;
		window.page = page.page + 1;
	}
	state.cursors = { ...state.cursors, [resource]: newest };
	const windows = { ...state.windows };
	if (finished) {
		delete windows[resource];
		state.recent = { ...state.recent, [resource]: window.recent };
	} else {
		windows[resource] = window;
	}
	state.windows = windows;
	if (!finished) {
		context.logger.info('Money Poll Trigger read its Max Pages; the next poll resumes this window', {
			resource,
			nextPage: window.page,
			maxPages: settings.maxPages,
		});
	}
	return items;
}

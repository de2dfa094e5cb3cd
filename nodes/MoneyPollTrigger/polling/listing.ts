import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { LIST_PAGE_SIZE_MAX, listRoute, type TransactionResource } from '../../api/values';
import type { MoneyEventItem } from '../../events/item';
import { lastKnownStatus } from '../../events/memory';
import { createdAtMs, zonelessCreatedAt } from '../../api/time';
import { BOUND_MARGIN_MS, moneyApiPages, type MoneyListPage, windowPages } from '../../transport/listWindow';
import { observe } from './observe';
import type { PollSettings } from './settings';
import { type ListingWindow, noteTimeNotation, type PollState, watchKey } from './state';

/**
 * New transactions of one resource, read as a window that may span several polls
 * (docs/webhook-memory.md, "The Poll Trigger"; transport/listWindow.ts). The first page fixes the
 * window's end; transactions created after it belong to the next window, which starts an overlap
 * before the cursor. A poll that reaches Max Pages keeps the window and the next poll resumes at
 * the next page: nothing of the window is skipped. The window's query holds no filter of the
 * trigger: its pages must stay the same pages when Channels is changed while a window is
 * unfinished (the filters apply to what is read).
 */

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
	let pagesRead = 0;
	for await (const page of windowPages.call(context, listRoute(resource), {}, window, { zoneless: state.zonelessTimes })) {
		const recentFrom = window.end === null ? Number.POSITIVE_INFINITY : window.end - 2 * BOUND_MARGIN_MS - settings.overlapMs;
		for (const envelope of page.items) {
			noteTimeNotation(state, zonelessCreatedAt(envelope));
			const reference = typeof envelope.reference === 'string' ? envelope.reference : null;
			if (reference) listed.add(watchKey(resource, reference));
			const item = observe(state, settings, resource, envelope, true);
			if (item) items.push(item);
			const known = reference ? lastKnownStatus(state, resource, reference) : undefined;
			const created = createdAtMs(envelope) ?? 0;
			if (reference && known && created >= recentFrom) window.recent[reference] = known;
			newest = Math.max(newest, created);
		}
		finished = page.finished;
		if (++pagesRead >= settings.maxPages) break;
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

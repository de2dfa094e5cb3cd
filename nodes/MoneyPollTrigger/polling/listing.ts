import type { IPollFunctions } from 'n8n-workflow';

import { listRoute, type TransactionResource } from '../../api/values';
import type { MoneyEventItem } from '../../events/item';
import { lastKnownStatus } from '../../events/memory';
import { apiTime, createdAtMs, zonelessCreatedAt } from '../../api/time';
import { BOUND_MARGIN_MS, newWindow, windowStep } from '../../transport/listWindow';
import { observe } from './observe';
import type { PollSettings } from './settings';
import { type ListingWindow, noteTimeNotation, type PollState, watchKey } from './state';

/**
 * New transactions of one resource, read as a window that may span several polls
 * (docs/webhook-memory.md, "The Poll Trigger"; transport/listWindow.ts). The window starts an
 * overlap before the cursor and ends a margin after the newest transaction its first page shows;
 * transactions created after it belong to the next window. A poll that reaches Max Pages keeps the
 * window and the next poll resumes its walk: nothing of the window is skipped, also where
 * transactions created in the same second straddle two pages. The window's query holds no filter
 * of the trigger: the filters apply to what is read.
 */

/** The window a poll reads from the cursor on (null: the first poll, which reads back from the newest transaction). */
export function listingWindow(state: PollState, settings: PollSettings, cursor: number | null): ListingWindow {
	const start = cursor === null ? null : apiTime(Math.max(0, cursor - settings.overlapMs - BOUND_MARGIN_MS), state.zonelessTimes);
	return { ...newWindow(start, null, state.zonelessTimes), newest: cursor ?? 0, recent: {} };
}

/**
 * Reads the window on, at most `maxRequests` requests (null: to its end), observing every
 * transaction. Returns the events to emit. The window's `recent` records the status of each
 * transaction created within the overlap of its newest, which the next window reads again.
 */
export async function readListingWindow(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	resource: TransactionResource,
	window: ListingWindow,
	options: { maxRequests: number | null; listed?: Set<string>; skipHistory: boolean; startFromFirstPage?: (newest: number) => number },
): Promise<MoneyEventItem[]> {
	const items: MoneyEventItem[] = [];
	for (let requests = 0; !window.finished && (options.maxRequests === null || requests < options.maxRequests); requests++) {
		const fresh = await windowStep.call(context, listRoute(resource), {}, window);
		for (const envelope of fresh) {
			noteTimeNotation(state, zonelessCreatedAt(envelope));
			window.newest = Math.max(window.newest, createdAtMs(envelope) ?? 0);
		}
		if (window.start === null && options.startFromFirstPage) {
			// The first poll's window: its first page, read without start_date, shows where it starts.
			const start = options.startFromFirstPage(window.newest);
			window.start = apiTime(start, state.zonelessTimes);
			if (typeof window.end === 'number' && window.end < start) window.finished = true;
		}
		const recentFrom = window.newest - BOUND_MARGIN_MS - settings.overlapMs;
		for (const envelope of fresh) {
			const reference = typeof envelope.reference === 'string' ? envelope.reference : null;
			if (reference) options.listed?.add(watchKey(resource, reference));
			const item = observe(state, settings, resource, envelope, options.skipHistory);
			if (item) items.push(item);
			const known = reference ? lastKnownStatus(state, resource, reference) : undefined;
			if (reference && known && (createdAtMs(envelope) ?? 0) >= recentFrom) window.recent[reference] = known;
		}
	}
	return items;
}

export async function pollNewTransactions(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	resource: TransactionResource,
	listed: Set<string>,
): Promise<MoneyEventItem[]> {
	const resumed = state.windows[resource];
	const window = resumed ? { ...resumed, recent: { ...(resumed.recent ?? {}) } } : listingWindow(state, settings, state.cursors[resource]);
	const items = await readListingWindow(context, state, settings, resource, window, { maxRequests: settings.maxPages, listed, skipHistory: true });
	state.cursors = { ...state.cursors, [resource]: Math.max(state.cursors[resource], window.newest) };
	const windows = { ...state.windows };
	if (window.finished) {
		delete windows[resource];
		state.recent = { ...state.recent, [resource]: window.recent };
	} else {
		windows[resource] = window;
		context.logger.info('Money Poll Trigger read its Max Pages; the next poll resumes this window', { resource, maxPages: settings.maxPages });
	}
	state.windows = windows;
	return items;
}

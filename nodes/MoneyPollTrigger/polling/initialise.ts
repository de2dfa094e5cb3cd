import type { IPollFunctions } from 'n8n-workflow';

import { LIST_PAGE_SIZE_MAX, listRoute, PENDING_STATUS, type TransactionResource } from '../../api/values';
import { apiTime, createdAtMs, zonelessCreatedAt } from '../../api/time';
import { BOUND_MARGIN_MS, moneyApiPages } from '../../transport/listWindow';
import { listPage } from './listing';
import { observe } from './observe';
import { recentReversals, wantsReversals } from './reversals';
import { type PollSettings, tooManyToWatch } from './settings';
import { noteTimeNotation, type PollState } from './state';

/**
 * First poll for a resource: records the state of what already exists without emitting it, and
 * sets the cursor and the history floor at the newest transaction. It reads the newest pages (back
 * to where the next poll's window starts), then every transaction still PENDING, however old, to watch it: a payout sent
 * before the trigger started and completed after it is an event the trigger reports.
 */
export async function initialiseResource(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	resource: TransactionResource,
): Promise<void> {
	let newest = 0;
	let pagesRead = 0;
	let windowCovered = false;
	for await (const page of moneyApiPages.call(context, listRoute(resource), {}, { pageSize: LIST_PAGE_SIZE_MAX })) {
		pagesRead++;
		for (const envelope of page.items) {
			noteTimeNotation(state, zonelessCreatedAt(envelope));
			const created = createdAtMs(envelope) ?? 0;
			newest = Math.max(newest, created);
			if (created < newest - settings.overlapMs - BOUND_MARGIN_MS) windowCovered = true;
			observe(state, settings, resource, envelope);
		}
		if (windowCovered || pagesRead >= settings.maxPages) break;
	}
	state.cursors = { ...state.cursors, [resource]: newest };
	state.floors = { ...state.floors, [resource]: newest };
	if (newest > 0) await watchPendingUpTo(context, state, settings, resource, newest + BOUND_MARGIN_MS);
	if (resource === 'payout' && wantsReversals(settings)) await recentReversals(context, state, settings, new Set());
}

/**
 * Watches every PENDING transaction created up to `end`. The PENDING list shrinks as transactions
 * become final, which moves the older ones toward page 1: it is read from its last page back to
 * page 1, so a move only makes a transaction read twice, never skipped (its upper bound keeps new
 * transactions, which the next windows read, from moving it the other way).
 */
async function watchPendingUpTo(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	resource: TransactionResource,
	end: number,
): Promise<void> {
	const qs = { status: PENDING_STATUS, end_date: apiTime(end, state.zonelessTimes) };
	const first = await listPage(context, resource, qs, 1);
	const count = Math.max(first.total ?? 0, state.watch.length);
	if (count > settings.maxWatched) throw tooManyToWatch(context, count, settings);
	for (let page = first.items.length === 0 ? 0 : first.pages; page >= 1; page--) {
		const { items } = await listPage(context, resource, qs, page);
		for (const envelope of items) observe(state, settings, resource, envelope);
	}
}

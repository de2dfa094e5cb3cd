import type { IPollFunctions } from 'n8n-workflow';

import { REVERSED_STATUS } from '../../api/values';
import type { MoneyEventItem } from '../../events/item';
import { lastKnownStatus } from '../../events/memory';
import { listPage } from './listing';
import { observe, timeMs } from './observe';
import { listQuery, type PollSettings } from './settings';
import { type PollState, type ReversalScan, watchKey } from './state';

/**
 * Reversals of payouts the listing window no longer covers. The REVERSED list is ordered by
 * created_at, so the reversal of an old payout lands deep in it; its `total` only grows (REVERSED
 * is final). A scan reads the list from page 1 until it has found as many reversals made since the
 * last scan (updated_at after `since`) as the total grew, or the list ends; at Max Pages it resumes
 * next poll. A reversal older than `since` less the overlap, of a payout whose status is no longer
 * in the bounded memory, was handled by an earlier scan: it is not emitted again.
 */

export function wantsReversals(settings: PollSettings): boolean {
	return (
		settings.resources.includes('payout') &&
		(settings.filters.statuses.length === 0 || settings.filters.statuses.includes(REVERSED_STATUS))
	);
}

export async function recentReversals(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	listed: Set<string>,
): Promise<MoneyEventItem[]> {
	const scan: ReversalScan = state.reversals ? { ...state.reversals, found: [...state.reversals.found] } : { total: null, since: 0, page: 1, found: [] };
	const qs = { ...listQuery(settings.filters), status: REVERSED_STATUS };
	const items: MoneyEventItem[] = [];
	let newestUpdate = scan.since;
	let done = false;
	for (let pagesRead = 0; pagesRead < settings.maxPages && !done; pagesRead++) {
		const page = await listPage(context, 'payout', qs, scan.page);
		for (const envelope of page.items) {
			if (typeof envelope.reference !== 'string') continue;
			const updated = timeMs(envelope, 'updated_at');
			const unknownTime = updated === null;
			const known = lastKnownStatus(state, 'payout', envelope.reference);
			if (!unknownTime && updated < scan.since - settings.overlapMs && known === undefined) continue;
			listed.add(watchKey('payout', envelope.reference));
			const wasReversed = known === REVERSED_STATUS;
			if ((unknownTime ? !wasReversed : updated > scan.since) && !scan.found.includes(envelope.reference)) {
				scan.found.push(envelope.reference);
			}
			if (!unknownTime) newestUpdate = Math.max(newestUpdate, updated);
			const item = observe(state, settings, 'payout', envelope);
			if (item) items.push(item);
		}
		const total = page.total ?? null;
		const allFound = scan.total !== null && total !== null && scan.found.length >= total - scan.total;
		done = page.items.length === 0 || page.page >= page.pages || allFound || scan.total === null;
		if (done) state.reversals = { total, since: newestUpdate, page: 1, found: [] };
		scan.page = page.page + 1;
	}
	if (!done) state.reversals = scan;
	return items;
}

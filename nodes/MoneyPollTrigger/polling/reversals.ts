import type { IPollFunctions } from 'n8n-workflow';

import { REVERSED_STATUS } from '../../api/values';
import type { MoneyEventItem } from '../../events/item';
import { listPage } from './listing';
import { observe } from './observe';
import type { PollSettings } from './settings';
import { type PollState, type ReversalMemory, watchKey } from './state';

/**
 * Reversals of payouts the listing window no longer covers. The REVERSED list is ordered by the
 * payout's created_at, so the reversal of an old payout lands deep in it, and REVERSED is final:
 * the list only grows. The trigger keeps the reference of every REVERSED payout it knows (the
 * whole list, read to its end in one poll when it starts, whatever Max Pages: those predate it).
 * Its `total` then says how many are unknown; a read goes from page 1 until the known ones are as
 * many as the total, or the list ends, and resumes at the next page when it reaches Max Pages. Nothing here depends on
 * `updated_at`, which the spec does not name among the envelope's fields, nor on the bounded status
 * memory, nor on the Channels filter (applied to what is read).
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
	const memory: ReversalMemory = state.reversals ?? { known: [], page: 1, complete: false };
	const known = new Set(memory.known);
	state.reversals = memory;
	const items: MoneyEventItem[] = [];
	let page = memory.page;
	let done = false;
	let complete = memory.complete;
	for (let pagesRead = 0; (pagesRead < settings.maxPages || !complete) && !done; pagesRead++) {
		const result = await listPage(context, 'payout', { status: REVERSED_STATUS }, page);
		for (const envelope of result.items) {
			const reference = typeof envelope.reference === 'string' ? envelope.reference : null;
			if (!reference) continue;
			listed.add(watchKey('payout', reference));
			if (known.has(reference)) continue;
			known.add(reference);
			if (!complete) continue;
			const item = observe(state, settings, 'payout', envelope);
			if (item) items.push(item);
		}
		const listEnded = result.items.length === 0 || result.page >= result.pages;
		const allKnown = complete && result.total !== undefined && known.size >= result.total;
		complete = complete || listEnded;
		done = listEnded || allKnown;
		page = done ? 1 : result.page + 1;
	}
	state.reversals = { known: [...known], page, complete };
	return items;
}

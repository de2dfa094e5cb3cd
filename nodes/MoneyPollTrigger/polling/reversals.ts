import type { IPollFunctions } from 'n8n-workflow';

import { listRoute, REVERSED_STATUS } from '../../api/values';
import type { MoneyEventItem } from '../../events/item';
import { newWindow, windowStep } from '../../transport/listWindow';
import { observe } from './observe';
import type { PollSettings } from './settings';
import { type PollState, type ReversalMemory, watchKey } from './state';

/**
 * Reversals of payouts the listing window no longer covers. The REVERSED list is ordered by the
 * payout's created_at, so the reversal of an old payout lands deep in it, and REVERSED is final:
 * the list only grows. The trigger keeps the reference of every REVERSED payout it knows (the
 * whole list, read to its end in one poll when it starts, whatever Max Pages: those predate it).
 * Its `total` then says how many are unknown; a read walks the list from its newest
 * (transport/listWindow.ts) until the known ones are as many as the total, or the list ends, and
 * the next poll resumes the walk when it reaches Max Pages. Nothing here depends on
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
	const memory: ReversalMemory = state.reversals ?? { known: [], window: null, complete: false };
	const known = new Set(memory.known);
	state.reversals = memory;
	const items: MoneyEventItem[] = [];
	const window = memory.window ?? newWindow(null, null, state.zonelessTimes);
	let complete = memory.complete;
	let allKnown = false;
	for (let requests = 0; (requests < settings.maxPages || !complete) && !window.finished && !allKnown; requests++) {
		for (const envelope of await windowStep.call(context, listRoute('payout'), { status: REVERSED_STATUS }, window)) {
			const reference = typeof envelope.reference === 'string' ? envelope.reference : null;
			if (!reference) continue;
			listed.add(watchKey('payout', reference));
			if (known.has(reference)) continue;
			known.add(reference);
			if (!complete) continue;
			const item = observe(state, settings, 'payout', envelope);
			if (item) items.push(item);
		}
		allKnown = complete && known.size >= (window.total ?? Number.POSITIVE_INFINITY);
		complete = complete || window.finished;
	}
	const done = window.finished || allKnown;
	state.reversals = { known: [...known], window: done ? null : window, complete };
	return items;
}

import type { IPollFunctions } from 'n8n-workflow';

import { listRoute, PENDING_STATUS, type TransactionResource } from '../../api/values';
import { apiTime } from '../../api/time';
import { BOUND_MARGIN_MS, newWindow, windowStep } from '../../transport/listWindow';
import { listingWindow, readListingWindow } from './listing';
import { observe } from './observe';
import { recentReversals, wantsReversals } from './reversals';
import { type PollSettings, tooManyToWatch } from './settings';
import { watchKey, type PollState } from './state';

/**
 * First poll for a resource: records the state of what already exists without emitting it. It
 * reads, whole whatever Max Pages, the window the next poll starts from (back an overlap from the
 * newest transaction), and every transaction still PENDING, however old, to watch it: a payout
 * sent before the trigger started and completed after it is an event the trigger reports. The
 * cursor is the newest transaction; the history floor is where that first window starts: a
 * transaction created before it and first seen already final predates the trigger, while one
 * created after it that the first poll did not read was listed later, and is new. What it reads
 * joins `listed`: the same poll does not read it again one by one.
 */
export async function initialiseResource(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	resource: TransactionResource,
	listed: Set<string>,
): Promise<void> {
	const reach = (newest: number) => Math.max(0, newest - settings.overlapMs - BOUND_MARGIN_MS);
	const window = listingWindow(state, settings, null);
	await readListingWindow(context, state, settings, resource, window, { maxRequests: null, listed, skipHistory: false, startFromFirstPage: reach });
	const { newest } = window;
	state.cursors = { ...state.cursors, [resource]: newest };
	state.floors = { ...state.floors, [resource]: newest > 0 ? reach(newest) : 0 };
	state.recent = { ...state.recent, [resource]: window.recent };
	if (newest > 0) await watchPendingUpTo(context, state, settings, resource, newest + BOUND_MARGIN_MS, listed);
	if (resource === 'payout' && wantsReversals(settings)) await recentReversals(context, state, settings, new Set());
}

/**
 * Watches every PENDING transaction created up to `end`, read whole by created_at
 * (transport/listWindow.ts): a transaction leaving the PENDING list moves no other.
 */
async function watchPendingUpTo(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	resource: TransactionResource,
	end: number,
	listed: Set<string>,
): Promise<void> {
	const window = newWindow(null, apiTime(end, state.zonelessTimes), state.zonelessTimes);
	while (!window.finished) {
		const envelopes = await windowStep.call(context, listRoute(resource), { status: PENDING_STATUS }, window);
		const count = Math.max(window.total ?? 0, state.watch.length);
		if (count > settings.maxWatched) throw tooManyToWatch(context, count, settings);
		for (const envelope of envelopes) {
			observe(state, settings, resource, envelope);
			if (typeof envelope.reference === 'string') listed.add(watchKey(resource, envelope.reference));
		}
	}
}

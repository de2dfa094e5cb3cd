import type { IDataObject } from 'n8n-workflow';

import { isFinalStatus, PENDING_STATUS, REVERSED_STATUS, type TransactionResource } from '../../api/values';
import { channelOfEnvelope, statusOfEnvelope } from '../../events/envelope';
import { passesFilters } from '../../events/filters';
import { buildEventItem, type MoneyEventItem } from '../../events/item';
import { knownStatuses, rememberStatus } from '../../events/memory';
import { judgeTransition } from '../../events/statusOrder';
import { createdAtMs } from '../../api/time';
import type { PollSettings } from './settings';
import { type PollState, rememberReversal, unwatch, watch, watchKey } from './state';

/** One transaction as a poll sees it: what to remember and whether it is an event to emit. */

export function eventItem(resource: TransactionResource, envelope: IDataObject, status: string): MoneyEventItem {
	const reference = typeof envelope.reference === 'string' ? envelope.reference : 'unknown';
	return buildEventItem({
		id: `poll_${reference}_${status.toLowerCase()}`,
		source: 'poll',
		resource,
		envelope,
		confirmed: true,
	});
}

/**
 * Records what a list or Get says about one transaction and returns the item to emit, if any:
 * a status not yet seen for this reference, not a PENDING after another status (docs/decisions.md#d2),
 * that passes the filters.
 * Pending transactions are kept on the watch list so a later poll re-reads them. With
 * `skipHistory`, a transaction first seen already final that predates the trigger is recorded
 * but not emitted.
 */
export function observe(
	state: PollState,
	settings: PollSettings,
	resource: TransactionResource,
	envelope: IDataObject,
	skipHistory = false,
): MoneyEventItem | null {
	const reference = typeof envelope.reference === 'string' ? envelope.reference : null;
	const status = statusOfEnvelope(envelope);
	if (!reference || !status) return null;
	const key = watchKey(resource, reference);
	const recent = state.recent[resource]?.[reference];
	if (recent && knownStatuses(state, resource, reference).length === 0) rememberStatus(state, resource, reference, recent, Number.POSITIVE_INFINITY);
	// A watched transaction was read before at a status not final. A state saved while a watched
	// transaction's statuses could still be forgotten (polling/state.ts) may no longer know it: read
	// again at PENDING, which only ever comes first, it is not new.
	if (status === PENDING_STATUS && state.watch.includes(key) && knownStatuses(state, resource, reference).length === 0) {
		rememberStatus(state, resource, reference, status, Number.POSITIVE_INFINITY);
	}
	const verdict = judgeTransition(knownStatuses(state, resource, reference), status);
	if (verdict === 'stale') return null;
	rememberStatus(state, resource, reference, status, Number.POSITIVE_INFINITY);
	keepRecentCurrent(state, resource, reference, status);
	const reversal = resource === 'payout' && status === REVERSED_STATUS;
	const history = skipHistory && verdict === 'new' && isFinalStatus(status) && predatesTrigger(state, resource, envelope, reversal);
	if (reversal) rememberReversal(state, reference);
	const channel = channelOfEnvelope(envelope);
	if (isFinalStatus(status)) unwatch(state, key);
	else if (passesFilters({ ...settings.filters, statuses: [] }, { resource, status, channel })) watch(state, key);
	if (verdict === 'duplicate') return null;
	if (history) return null;
	return passesFilters(settings.filters, { resource, status, channel }) ? eventItem(resource, envelope, status) : null;
}

/**
 * A status observed also replaces the one the windows' `recent` hold for the transaction: the next
 * window's overlap reads them where the bounded status memory has forgotten it, and a status older
 * than one a re-check emitted would make it an event again.
 */
function keepRecentCurrent(state: PollState, resource: TransactionResource, reference: string, status: string): void {
	const recent = state.recent[resource];
	if (recent?.[reference] !== undefined) state.recent = { ...state.recent, [resource]: { ...recent, [reference]: status } };
	const window = state.windows[resource];
	if (window?.recent?.[reference] !== undefined) state.windows = { ...state.windows, [resource]: { ...window, recent: { ...window.recent, [reference]: status } } };
}

/**
 * Whether a transaction first seen already final reached that status before the trigger started.
 * A reversal is known exactly: the REVERSED list read to its end when the trigger started holds
 * every payout reversed before (polling/reversals.ts). Any other status is judged by the creation:
 * created before the window the first poll read whole (polling/initialise.ts), the transaction
 * existed before the trigger. One created within that window that the first poll did not read was
 * listed after it: it is new.
 */
function predatesTrigger(state: PollState, resource: TransactionResource, envelope: IDataObject, reversal: boolean): boolean {
	if (reversal && state.reversals?.complete) return state.reversals.known.includes(envelope.reference as string);
	const floor = state.floors[resource];
	const created = createdAtMs(envelope);
	return typeof floor === 'number' && created !== null && created <= floor;
}

export function byOccurrence(a: MoneyEventItem, b: MoneyEventItem): number {
	const left = Date.parse(a.occurred_at ?? a.created_at ?? '') || 0;
	const right = Date.parse(b.occurred_at ?? b.created_at ?? '') || 0;
	return left - right;
}

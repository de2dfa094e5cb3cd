import { PENDING_STATUS, REVERSED_STATUS } from '../api/values';

/**
 * The order of statuses (docs/decisions.md#d2). The specification shows neither every label nor
 * every move, so only what it does show is used: PENDING comes before any other status, and a
 * payout's REVERSED after its COMPLETED. Any other label is a status of its own.
 */

export type TransitionVerdict = 'new' | 'advance' | 'duplicate' | 'stale';

/**
 * A status the transaction had already (`seen`: every label it came with, whatever came after) is a
 * duplicate; PENDING after any other status is stale; any other status runs.
 */
export function judgeTransition(seen: readonly string[], next: string): TransitionVerdict {
	if (seen.length === 0) return 'new';
	if (seen.includes(next)) return 'duplicate';
	if (next === PENDING_STATUS && seen.some((status) => status !== PENDING_STATUS)) return 'stale';
	return 'advance';
}

/** Whether `earlier` is known to come before `later` (D2: PENDING before any other status, COMPLETED before REVERSED). */
function comesBefore(earlier: string, later: string): boolean {
	if (earlier === later) return false;
	return earlier === PENDING_STATUS || (earlier === 'COMPLETED' && later === REVERSED_STATUS);
}

/**
 * What a read of the transaction says of an event: `confirms` when it shows the event's status or
 * one known to come after it; `lags` when it shows one known to come before it (the API's reads can
 * lag its webhooks); `unordered` when it shows another status whose order against the event's is
 * not known (D2): the transaction may have moved on since the event, or the read may lag it.
 */
export type ReadVerdict = 'confirms' | 'lags' | 'unordered';

export function judgeRead(readStatus: string, eventStatus: string): ReadVerdict {
	if (readStatus === eventStatus || comesBefore(eventStatus, readStatus)) return 'confirms';
	return comesBefore(readStatus, eventStatus) ? 'lags' : 'unordered';
}

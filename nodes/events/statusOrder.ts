import { CHARGE_STATUSES, PENDING_STATUS, REVERSED_STATUS } from '../api/values';

/** The order of statuses (docs/decisions.md#d2): which status may follow which. */

/** Final before any reversal: COMPLETED, FAILED, CANCELLED. */
const FINAL_STATUSES = new Set<string>(CHARGE_STATUSES.filter((status) => status !== PENDING_STATUS));

export function isFinalStatus(status: string): boolean {
	return FINAL_STATUSES.has(status) || status === REVERSED_STATUS;
}

/**
 * PENDING, then any label outside the specification's five (one status, "other": D2), then the
 * final statuses, then REVERSED.
 */
function statusRank(status: string): number {
	if (status === PENDING_STATUS) return 0;
	if (status === REVERSED_STATUS) return 3;
	if (FINAL_STATUSES.has(status)) return 2;
	return 1;
}

export type TransitionVerdict = 'new' | 'advance' | 'duplicate' | 'stale';

/**
 * docs/decisions.md#d2: a status never goes back. Each status may move to any later one, except
 * that only COMPLETED among the final statuses may move on to REVERSED; two labels outside the five
 * are the same status.
 */
export function judgeTransition(previous: string | undefined, next: string): TransitionVerdict {
	if (previous === undefined) return 'new';
	const from = statusRank(previous);
	const to = statusRank(next);
	if (previous === next || (from === 1 && to === 1)) return 'duplicate';
	if (to <= from || (to === 3 && from === 2 && previous !== 'COMPLETED')) return 'stale';
	return 'advance';
}

/**
 * Whether a read of the transaction shows a status the event has already moved past (the read
 * lags the event: PENDING for a COMPLETED event, COMPLETED for a REVERSED one).
 */
export function isBehind(readStatus: string, eventStatus: string): boolean {
	return statusRank(readStatus) < statusRank(eventStatus);
}

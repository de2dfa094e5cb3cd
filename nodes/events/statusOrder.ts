import { CHARGE_STATUSES, PENDING_STATUS, REVERSED_STATUS } from '../api/values';

/** The order of statuses (docs/decisions.md#d2): which status may follow which. */

/** Final before any reversal: COMPLETED, FAILED, CANCELLED. */
const FINAL_STATUSES = new Set<string>(CHARGE_STATUSES.filter((status) => status !== PENDING_STATUS));

export function isFinalStatus(status: string): boolean {
	return FINAL_STATUSES.has(status) || status === REVERSED_STATUS;
}

function statusRank(status: string): number {
	if (status === REVERSED_STATUS) return 2;
	if (FINAL_STATUSES.has(status)) return 1;
	return 0;
}

export type TransitionVerdict = 'new' | 'advance' | 'duplicate' | 'stale';

/**
 * docs/decisions.md#d2: a status never goes back. PENDING (or an unknown, non-final label) may move to a final
 * status; COMPLETED may move on to REVERSED; a final status never returns to PENDING and never
 * turns into another final status.
 */
export function judgeTransition(previous: string | undefined, next: string): TransitionVerdict {
	if (previous === undefined) return 'new';
	if (previous === next) return 'duplicate';
	const from = statusRank(previous);
	const to = statusRank(next);
	if (to === 2) return previous === 'COMPLETED' || from === 0 ? 'advance' : 'stale';
	if (from === 0) return 'advance';
	return 'stale';
}

/**
 * Whether a read of the transaction shows a status the event has already moved past (the read
 * lags the event: PENDING for a COMPLETED event, COMPLETED for a REVERSED one).
 */
export function isBehind(readStatus: string, eventStatus: string): boolean {
	return statusRank(readStatus) < statusRank(eventStatus);
}

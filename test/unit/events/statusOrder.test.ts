import { judgeRead, judgeTransition } from '../../../nodes/events/statusOrder';

describe('judgeTransition (D2): a status runs unless the transaction had it already, or it is PENDING after a later one', () => {
	it.each([
		[[], 'PENDING', 'new'],
		[[], 'COMPLETED', 'new'],
		[[], 'PROCESSING', 'new'],
		[['PENDING'], 'COMPLETED', 'advance'],
		[['PENDING'], 'FAILED', 'advance'],
		[['PENDING'], 'CANCELLED', 'advance'],
		[['PENDING'], 'REVERSED', 'advance'],
		[['COMPLETED'], 'REVERSED', 'advance'],
		[['PENDING'], 'PROCESSING', 'advance'],
		[['PROCESSING'], 'COMPLETED', 'advance'],
		[['PROCESSING'], 'REVERSED', 'advance'],
		// Labels outside the five are each a status of their own (before, PROCESSING then SUCCESSFUL was a duplicate).
		[['PROCESSING'], 'SUCCESSFUL', 'advance'],
		[['PENDING', 'PROCESSING'], 'SUCCESSFUL', 'advance'],
		// Nothing is known of their order against the final statuses (before, each of these was stale).
		[['COMPLETED'], 'REFUNDED', 'advance'],
		[['COMPLETED'], 'SUCCESSFUL', 'advance'],
		[['REVERSED'], 'SUCCESSFUL', 'advance'],
		[['COMPLETED'], 'FAILED', 'advance'],
		[['FAILED'], 'REVERSED', 'advance'],
		[['CANCELLED'], 'COMPLETED', 'advance'],
		[['REVERSED'], 'COMPLETED', 'advance'],
		// An exact repeat, whatever came after it.
		[['SUCCESSFUL'], 'SUCCESSFUL', 'duplicate'],
		[['COMPLETED'], 'COMPLETED', 'duplicate'],
		[['PENDING', 'COMPLETED', 'REFUNDED'], 'COMPLETED', 'duplicate'],
		[['PROCESSING', 'SUCCESSFUL'], 'PROCESSING', 'duplicate'],
		[['PENDING', 'COMPLETED'], 'PENDING', 'duplicate'],
		// PENDING after any later status.
		[['COMPLETED'], 'PENDING', 'stale'],
		[['FAILED'], 'PENDING', 'stale'],
		[['CANCELLED'], 'PENDING', 'stale'],
		[['REVERSED'], 'PENDING', 'stale'],
		[['SUCCESSFUL'], 'PENDING', 'stale'],
	])('%j then %s is %s', (seen, next, verdict) => {
		expect(judgeTransition(seen, next)).toBe(verdict);
	});
});

describe('judgeRead: a read confirms an event at its status or one known to come after it, lags it at one known to come before it', () => {
	it.each([
		['COMPLETED', 'COMPLETED', 'confirms'],
		['COMPLETED', 'PENDING', 'confirms'],
		['PROCESSING', 'PENDING', 'confirms'],
		['REVERSED', 'COMPLETED', 'confirms'],
		['PENDING', 'COMPLETED', 'lags'],
		['PENDING', 'PROCESSING', 'lags'],
		['COMPLETED', 'REVERSED', 'lags'],
		// Two statuses after PENDING whose order D2 does not give: the transaction may have moved on, or the read may lag.
		['PROCESSING', 'COMPLETED', 'unordered'],
		['COMPLETED', 'REFUNDED', 'unordered'],
		['SUCCESSFUL', 'PROCESSING', 'unordered'],
		['FAILED', 'COMPLETED', 'unordered'],
		['REFUNDED', 'COMPLETED', 'unordered'],
	])('a read at %s for an event at %s: %s', (read, event, verdict) => {
		expect(judgeRead(read, event)).toBe(verdict);
	});
});

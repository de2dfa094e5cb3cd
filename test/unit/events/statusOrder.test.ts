import { judgeTransition } from '../../../nodes/events/statusOrder';

describe('judgeTransition (D2)', () => {
	it.each([
		[undefined, 'PENDING', 'new'],
		[undefined, 'COMPLETED', 'new'],
		['PENDING', 'COMPLETED', 'advance'],
		['PENDING', 'FAILED', 'advance'],
		['PENDING', 'CANCELLED', 'advance'],
		['PENDING', 'REVERSED', 'advance'],
		['COMPLETED', 'REVERSED', 'advance'],
		['PROCESSING', 'COMPLETED', 'advance'],
		['PENDING', 'PROCESSING', 'advance'],
		['PROCESSING', 'REVERSED', 'advance'],
		['SUCCESSFUL', 'PENDING', 'stale'],
		['SUCCESSFUL', 'SUCCESSFUL', 'duplicate'],
		['PROCESSING', 'SUCCESSFUL', 'duplicate'],
		['COMPLETED', 'SUCCESSFUL', 'stale'],
		['REVERSED', 'SUCCESSFUL', 'stale'],
		['COMPLETED', 'COMPLETED', 'duplicate'],
		['COMPLETED', 'PENDING', 'stale'],
		['FAILED', 'PENDING', 'stale'],
		['REVERSED', 'PENDING', 'stale'],
		['REVERSED', 'COMPLETED', 'stale'],
		['COMPLETED', 'FAILED', 'stale'],
		['FAILED', 'REVERSED', 'stale'],
		['CANCELLED', 'COMPLETED', 'stale'],
	])('%s → %s is %s', (previous, next, verdict) => {
		expect(judgeTransition(previous, next)).toBe(verdict);
	});
});

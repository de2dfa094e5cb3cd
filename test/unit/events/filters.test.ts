import { passesFilters } from '../../../nodes/events/filters';

describe('filters', () => {
	it('treats empty lists as "any"', () => {
		const item = { resource: 'payout' as const, status: 'FAILED', channel: 'platform' };
		expect(passesFilters({ resources: [], statuses: [], channels: [] }, item)).toBe(true);
		expect(passesFilters({ resources: ['charge'], statuses: [], channels: [] }, item)).toBe(false);
		expect(passesFilters({ resources: [], statuses: ['COMPLETED'], channels: [] }, item)).toBe(false);
		expect(passesFilters({ resources: [], statuses: [], channels: ['psp-a-tg'] }, item)).toBe(false);
		expect(passesFilters({ resources: ['payout'], statuses: ['FAILED'], channels: ['platform'] }, item)).toBe(true);
		expect(passesFilters({ resources: ['payout'], statuses: [], channels: [] }, { ...item, resource: null } as never)).toBe(
			false,
		);
	});
});

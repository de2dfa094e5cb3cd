import { apiTime, createdAtMs, toIsoTimestamp, zonelessCreatedAt } from '../../../nodes/api/time';

describe('date filters', () => {
	it('reads picker wall time in the workflow time zone', () => {
		expect(toIsoTimestamp('2024-03-01T10:00:00', 'Africa/Lome')).toBe('2024-03-01T10:00:00.000Z');
		expect(toIsoTimestamp('2024-07-01T10:00:00', 'Europe/Paris')).toBe('2024-07-01T08:00:00.000Z');
		expect(toIsoTimestamp('2024-01-01T10:00:00', 'Europe/Paris')).toBe('2024-01-01T09:00:00.000Z');
		expect(toIsoTimestamp('2024-01-01', 'UTC')).toBe('2024-01-01T00:00:00.000Z');
	});

	it('keeps an explicit offset and accepts dates and DateTime-like objects', () => {
		expect(toIsoTimestamp('2024-01-01T10:00:00+02:00', 'UTC')).toBe('2024-01-01T08:00:00.000Z');
		expect(toIsoTimestamp(new Date('2024-01-01T00:00:00Z'), 'UTC')).toBe('2024-01-01T00:00:00.000Z');
		expect(toIsoTimestamp({ toISO: () => '2024-01-01T00:00:00.000Z' }, 'UTC')).toBe('2024-01-01T00:00:00.000Z');
	});

	it('refuses what is not a date', () => {
		expect(toIsoTimestamp('yesterday', 'UTC')).toBeUndefined();
		expect(toIsoTimestamp(42, 'UTC')).toBeUndefined();
	});
});

describe('the API timestamps', () => {
	it('reads a created_at without a zone as UTC, and writes a bound back in the same notation', () => {
		const zoneless = { created_at: '2024-05-01 10:00:00' };
		expect(createdAtMs(zoneless)).toBe(Date.parse('2024-05-01T10:00:00Z'));
		expect(zonelessCreatedAt(zoneless)).toBe(true);
		expect(zonelessCreatedAt({ created_at: '2024-05-01T10:00:00+01:00' })).toBe(false);
		expect(createdAtMs({ created_at: '2024-05-01T10:00:00+01:00' })).toBe(Date.parse('2024-05-01T09:00:00Z'));
		expect(apiTime(Date.parse('2024-05-01T10:00:00Z'), true)).toBe('2024-05-01T10:00:00.000');
		expect(apiTime(Date.parse('2024-05-01T10:00:00Z'), false)).toBe('2024-05-01T10:00:00.000Z');
		expect(createdAtMs({})).toBeNull();
		expect(zonelessCreatedAt({ created_at: 'soon' })).toBeNull();
	});
});

import type { IDataObject } from 'n8n-workflow';

import { eventMemoryOf, forgetEventId, hasSeenEventId, lastKnownStatus, rememberEventId, EVENT_ID_REPLAY_WINDOW_SECONDS, EVENT_ID_RETENTION_SECONDS, rememberStatus } from '../../../nodes/events/memory';

describe('event memory in static data', () => {
	it('forgets old event ids only once they are outside the replay window', () => {
		const staticData: IDataObject = {};
		const caps = { soft: 10, hard: 15 };
		const start = 1_700_000_000;
		for (let index = 0; index < 12; index++) {
			expect(rememberEventId(staticData, `evt_${index}`, start + index, caps)).toBe(true);
		}
		expect(eventMemoryOf(staticData).seenEventCount).toBe(12);
		expect(hasSeenEventId(staticData, 'evt_0')).toBe(true);

		const later = start + EVENT_ID_REPLAY_WINDOW_SECONDS + 100;
		expect(rememberEventId(staticData, 'evt_late', later, caps)).toBe(true);
		expect(hasSeenEventId(staticData, 'evt_0')).toBe(false);
		expect(hasSeenEventId(staticData, 'evt_late')).toBe(true);
		expect(eventMemoryOf(staticData).seenEventCount).toBe(10);
		expect(Object.keys(eventMemoryOf(staticData).seenEvents)).toHaveLength(10);

		forgetEventId(staticData, 'evt_late');
		expect(hasSeenEventId(staticData, 'evt_late')).toBe(false);
	});

	it('refuses to remember (so the delivery is refused) when every id is still inside the replay window', () => {
		const staticData: IDataObject = {};
		const caps = { soft: 3, hard: 5 };
		for (let index = 0; index < 5; index++) rememberEventId(staticData, `evt_${index}`, 1_700_000_000, caps);
		expect(rememberEventId(staticData, 'evt_next', 1_700_000_010, caps)).toBe(false);
		expect(hasSeenEventId(staticData, 'evt_next')).toBe(false);
		expect(hasSeenEventId(staticData, 'evt_0')).toBe(true);
	});

	it('keeps ids that look like numbers in acceptance order across a JSON round trip', () => {
		let staticData: IDataObject = {};
		rememberEventId(staticData, '900', 1_700_000_000);
		rememberEventId(staticData, '100', 1_700_000_001);
		staticData = JSON.parse(JSON.stringify(staticData)) as IDataObject;
		expect(Object.keys(eventMemoryOf(staticData).seenEvents)).toEqual(['e:900', 'e:100']);
		expect(hasSeenEventId(staticData, '100')).toBe(true);
	});

	it('drops ids older than the retention period', () => {
		const staticData: IDataObject = {};
		rememberEventId(staticData, 'evt_old', 1_700_000_000);
		rememberEventId(staticData, 'evt_new', 1_700_000_000 + EVENT_ID_RETENTION_SECONDS + 1);
		expect(hasSeenEventId(staticData, 'evt_old')).toBe(false);
		expect(hasSeenEventId(staticData, 'evt_new')).toBe(true);
	});

	it('keeps the last status per reference with a cap, least recently updated evicted first', () => {
		const staticData: IDataObject = {};
		rememberStatus(staticData, 'charge', 'a', 'PENDING', 3);
		rememberStatus(staticData, 'charge', 'b', 'PENDING', 3);
		rememberStatus(staticData, 'payout', 'a', 'FAILED', 3);
		rememberStatus(staticData, 'charge', 'a', 'COMPLETED', 3);
		rememberStatus(staticData, 'charge', 'c', 'PENDING', 3);
		expect(lastKnownStatus(staticData, 'charge', 'b')).toBeUndefined();
		expect(lastKnownStatus(staticData, 'charge', 'a')).toBe('COMPLETED');
		expect(lastKnownStatus(staticData, 'payout', 'a')).toBe('FAILED');
		expect(lastKnownStatus(staticData, 'charge', 'c')).toBe('PENDING');
		expect(Object.keys(eventMemoryOf(staticData).statuses)).toHaveLength(3);
	});

	it('survives a JSON round trip (n8n stores static data as JSON)', () => {
		const staticData: IDataObject = {};
		rememberEventId(staticData, 'evt_x');
		rememberStatus(staticData, 'charge', '__proto__', 'COMPLETED');
		const restored = JSON.parse(JSON.stringify(staticData)) as IDataObject;
		expect(hasSeenEventId(restored, 'evt_x')).toBe(true);
		expect(lastKnownStatus(restored, 'charge', '__proto__')).toBe('COMPLETED');
		expect(lastKnownStatus(restored, 'charge', 'constructor')).toBeUndefined();
	});
});

import type { IDataObject } from 'n8n-workflow';

import { knownStatuses, lastKnownStatus, rememberStatus } from '../../../nodes/events/memory';

describe('statuses kept in a trigger\'s state', () => {
	it('keeps the statuses per reference with a cap, least recently updated evicted first', () => {
		const state: IDataObject = {};
		rememberStatus(state, 'charge', 'a', 'PENDING', 3);
		rememberStatus(state, 'charge', 'b', 'PENDING', 3);
		rememberStatus(state, 'payout', 'a', 'FAILED', 3);
		rememberStatus(state, 'charge', 'a', 'COMPLETED', 3);
		rememberStatus(state, 'charge', 'c', 'PENDING', 3);
		expect(lastKnownStatus(state, 'charge', 'b')).toBeUndefined();
		expect(lastKnownStatus(state, 'charge', 'a')).toBe('COMPLETED');
		expect(lastKnownStatus(state, 'payout', 'a')).toBe('FAILED');
		expect(lastKnownStatus(state, 'charge', 'c')).toBe('PENDING');
		expect(Object.keys(state.statuses as IDataObject)).toHaveLength(3);
	});

	it('keeps every label a transaction was seen at, each as it came and once, the last one last', () => {
		const state: IDataObject = {};
		for (const status of ['PROCESSING', 'SUCCESSFUL', 'PROCESSING', 'REFUNDED']) rememberStatus(state, 'payout', 'a', status, 10);
		expect(knownStatuses(state, 'payout', 'a')).toEqual(['PROCESSING', 'SUCCESSFUL', 'REFUNDED']);
		expect(lastKnownStatus(state, 'payout', 'a')).toBe('REFUNDED');
		expect(knownStatuses(state, 'charge', 'a')).toEqual([]);
	});

	it('survives a JSON round trip (n8n stores static data as JSON), whatever the reference', () => {
		const state: IDataObject = {};
		rememberStatus(state, 'charge', '__proto__', 'COMPLETED', 10);
		const restored = JSON.parse(JSON.stringify(state)) as IDataObject;
		expect(lastKnownStatus(restored, 'charge', '__proto__')).toBe('COMPLETED');
		expect(lastKnownStatus(restored, 'charge', 'constructor')).toBeUndefined();
		expect(lastKnownStatus(restored, null, 'toString')).toBeUndefined();
	});
});

import { EventClaims } from '../../../nodes/MoneyTrigger/eventClaims';

describe('EventClaims: the deliveries this process is handling now', () => {
	it('lets one delivery of an event go on at a time, per node', () => {
		const claims = new EventClaims(100);
		expect(claims.take(['wf:node:evt_1'], 1_000, 60_000)).toBe(true);
		expect(claims.take(['wf:node:evt_1'], 1_001, 60_000)).toBe(false);
		expect(claims.take(['wf:node:evt_2'], 1_002, 60_000)).toBe(true);
		expect(claims.take(['wf:other-node:evt_1'], 1_003, 60_000)).toBe(true);
	});

	it('takes all keys or none: an event whose reference is busy waits, and takes nothing', () => {
		const claims = new EventClaims(100);
		expect(claims.take(['evt_1', 'ref:A'], 0, 60_000)).toBe(true);
		expect(claims.take(['evt_2', 'ref:A'], 1, 60_000)).toBe(false);
		expect(claims.take(['evt_2'], 2, 60_000)).toBe(true);
	});

	it('frees a key when released, and when its hold ends', () => {
		const claims = new EventClaims(100);
		expect(claims.take(['k'], 0, 10_000)).toBe(true);
		expect(claims.take(['k'], 9_999, 10_000)).toBe(false);
		expect(claims.take(['k'], 10_000, 10_000)).toBe(true);
		claims.release(['k']);
		expect(claims.take(['k'], 10_001, 10_000)).toBe(true);
	});

	it('extends a claim still held (its execution exists), and takes none it does not hold', () => {
		const claims = new EventClaims(100);
		claims.take(['k'], 0, 600_000);
		claims.extend(['k', 'never-taken'], 86_400_000);
		expect(claims.take(['k'], 86_399_999, 1)).toBe(false);
		expect(claims.size).toBe(1);
		expect(claims.take(['k'], 86_400_000, 1)).toBe(true);
		claims.release(['k']);
		expect(claims.take(['k'], 86_400_001, 1)).toBe(true);
	});

	it('stays within its capacity: expired claims make room, live ones are never dropped', () => {
		const claims = new EventClaims(3);
		for (let index = 0; index < 3; index++) expect(claims.take([`k${index}`], 0, 1_000)).toBe(true);
		expect(claims.take(['k3'], 10, 1_000)).toBe(false);
		expect(claims.size).toBe(3);
		expect(claims.take(['k3'], 1_000, 1_000)).toBe(true);
		expect(claims.size).toBe(1);
	});
});

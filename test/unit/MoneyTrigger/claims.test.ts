import { Claims } from '../../../nodes/MoneyTrigger/memory/claims';

describe('Claims: the deliveries this process is handling now', () => {
	const first = {};
	const second = {};

	it('lets one delivery of an event go on at a time, per node', () => {
		const claims = new Claims(100);
		expect(claims.take(first, ['wf:node:evt_1'], 1_000, 60_000)).toBe(true);
		expect(claims.take(second, ['wf:node:evt_1'], 1_001, 60_000)).toBe(false);
		expect(claims.take(second, ['wf:node:evt_2'], 1_002, 60_000)).toBe(true);
		expect(claims.take({}, ['wf:other-node:evt_1'], 1_003, 60_000)).toBe(true);
	});

	it('takes all keys or none: an event whose reference is busy waits, and takes nothing', () => {
		const claims = new Claims(100);
		expect(claims.take(first, ['evt_1', 'ref:A'], 0, 60_000)).toBe(true);
		expect(claims.take(second, ['evt_2', 'ref:A'], 1, 60_000)).toBe(false);
		expect(claims.take(second, ['evt_2'], 2, 60_000)).toBe(true);
	});

	it('frees a key when released, and when its hold ends', () => {
		const claims = new Claims(100);
		expect(claims.take(first, ['k'], 0, 10_000)).toBe(true);
		expect(claims.take(second, ['k'], 9_999, 10_000)).toBe(false);
		expect(claims.take(second, ['k'], 10_000, 10_000)).toBe(true);
		claims.release(second, ['k']);
		expect(claims.take(first, ['k'], 10_001, 10_000)).toBe(true);
	});

	it('extends and releases only the keys a delivery still holds: an expired claim taken by another delivery stays theirs', () => {
		const claims = new Claims(100);
		claims.take(first, ['k'], 0, 600_000);
		claims.extend(first, ['k', 'never-taken'], 86_400_000);
		expect(claims.take(second, ['k'], 86_399_999, 1)).toBe(false);
		expect(claims.size).toBe(1);
		expect(claims.take(second, ['k'], 86_400_000, 10)).toBe(true);
		claims.release(first, ['k']);
		claims.extend(first, ['k'], 99_999_999);
		expect(claims.take(first, ['k'], 86_400_005, 1)).toBe(false);
		expect(claims.take(first, ['k'], 86_400_010, 1)).toBe(true);
	});

	it('stays within its capacity: expired claims make room, live ones are never dropped', () => {
		const claims = new Claims(3);
		for (let index = 0; index < 3; index++) expect(claims.take(first, [`k${index}`], 0, 1_000)).toBe(true);
		expect(claims.take(first, ['k3'], 10, 1_000)).toBe(false);
		expect(claims.size).toBe(3);
		expect(claims.take(first, ['k3'], 1_000, 1_000)).toBe(true);
		expect(claims.size).toBe(1);
	});
});

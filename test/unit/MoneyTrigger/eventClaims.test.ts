import { EventClaims } from '../../../nodes/MoneyTrigger/eventClaims';

describe('EventClaims: the process-wide memory of recently accepted events', () => {
	it('lets the first of two deliveries of one event go on and refuses the second inside the window', () => {
		const claims = new EventClaims(600_000, 100);
		expect(claims.claim('wf:node:evt_1', 1_000)).toBe(true);
		expect(claims.claim('wf:node:evt_1', 1_001)).toBe(false);
		expect(claims.claim('wf:node:evt_2', 1_002)).toBe(true);
		expect(claims.claim('wf:other-node:evt_1', 1_003)).toBe(true);
	});

	it('accepts the event again once the window has passed, and after a release', () => {
		const claims = new EventClaims(10_000, 100);
		expect(claims.claim('k', 0)).toBe(true);
		expect(claims.claim('k', 9_999)).toBe(false);
		expect(claims.claim('k', 10_000)).toBe(true);
		claims.release('k');
		expect(claims.claim('k', 10_001)).toBe(true);
	});

	it('stays within its capacity, dropping the oldest claims first', () => {
		const claims = new EventClaims(600_000, 3);
		for (let index = 0; index < 10; index++) expect(claims.claim(`k${index}`, index)).toBe(true);
		expect(claims.size).toBeLessThanOrEqual(3);
		expect(claims.claim('k9', 20)).toBe(false);
		expect(claims.claim('k0', 20)).toBe(true);
	});

	it('forgets expired claims as new ones arrive', () => {
		const claims = new EventClaims(1_000, 100);
		for (let index = 0; index < 50; index++) claims.claim(`old${index}`, 0);
		claims.claim('new', 5_000);
		expect(claims.size).toBe(1);
	});
});

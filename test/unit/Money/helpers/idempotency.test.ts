import { deriveIdempotencyKey, stableStringify, uuidFromText } from '../../../../nodes/Money/helpers/idempotency';

const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const scope = {
	resource: 'payout' as const,
	runAnchor: 'exec-1',
	nodeId: 'node-1',
	runIndex: 0,
	itemIndex: 0,
	payload: { amount: 5000, currency: 'XOF', beneficiary_identifier: { identifier: 'GM-1', type: 'gm_account' } },
};

describe('idempotency keys (D4)', () => {
	it('is a UUID and stable for the same run anchor, node, run, item and payload', () => {
		const key = deriveIdempotencyKey(scope);
		expect(key).toMatch(UUID_V5);
		expect(deriveIdempotencyKey({ ...scope, payload: { ...scope.payload } })).toBe(key);
	});

	it('does not depend on key order in the payload', () => {
		const reordered = { beneficiary_identifier: { type: 'gm_account', identifier: 'GM-1' }, currency: 'XOF', amount: 5000 };
		expect(deriveIdempotencyKey({ ...scope, payload: reordered })).toBe(deriveIdempotencyKey(scope));
	});

	it.each([
		['run anchor', { runAnchor: 'exec-2' }],
		['run index (a node inside a loop)', { runIndex: 1 }],
		['node', { nodeId: 'node-2' }],
		['item', { itemIndex: 1 }],
		['payload', { payload: { ...scope.payload, amount: 5001 } }],
		['resource', { resource: 'charge' as const }],
	])('changes with the %s', (_name, change) => {
		expect(deriveIdempotencyKey({ ...scope, ...change })).not.toBe(deriveIdempotencyKey(scope));
	});

	it('depends only on resource and business reference when one is given', () => {
		const key = deriveIdempotencyKey({ ...scope, businessReference: 'order-1' });
		expect(key).toMatch(UUID_V5);
		expect(
			deriveIdempotencyKey({ ...scope, runAnchor: 'other', runIndex: 3, nodeId: 'other', itemIndex: 9, payload: { amount: 1 }, businessReference: ' order-1 ' }),
		).toBe(key);
		expect(deriveIdempotencyKey({ ...scope, businessReference: 'order-2' })).not.toBe(key);
		expect(deriveIdempotencyKey({ ...scope, resource: 'charge', businessReference: 'order-1' })).not.toBe(key);
	});

	it('treats a blank business reference as none', () => {
		expect(deriveIdempotencyKey({ ...scope, businessReference: '  ' })).toBe(deriveIdempotencyKey(scope));
	});

	it('serialises canonically', () => {
		expect(stableStringify({ b: 1, a: [{ d: 2, c: undefined }] })).toBe('{"a":[{"d":2}],"b":1}');
		expect(uuidFromText('x')).toBe(uuidFromText('x'));
	});
});

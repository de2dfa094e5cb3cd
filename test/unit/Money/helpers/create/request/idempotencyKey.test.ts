import { deriveIdempotencyKey, type IdempotencyScope, stableStringify, uuidFromText } from '../../../../../../nodes/Money/helpers/create/request/idempotencyKey';

const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const scope: IdempotencyScope = {
	resource: 'payout',
	runAnchor: 'exec-1',
	nodeId: 'node-1',
	runIndex: 0,
	itemIndex: 0,
};

describe('idempotency keys (D4)', () => {
	it('without a Business Reference, depends on the anchor, node, run, item and resource only: a row keeps its key whatever its values become', () => {
		const key = deriveIdempotencyKey(scope);
		expect(key).toMatch(UUID_V5);
		expect(key).toBe(uuidFromText(stableStringify(['n8n-nodes-money/idempotency/v1', 'run', 'payout', 'exec-1', 'node-1', 0, 0])));
		for (const change of [{ runAnchor: 'exec-2' }, { runIndex: 1 }, { nodeId: 'node-2' }, { itemIndex: 1 }, { resource: 'charge' as const }]) {
			expect(deriveIdempotencyKey({ ...scope, ...change })).not.toBe(key);
		}
	});

	it('depends only on resource and business reference when one is given', () => {
		const key = deriveIdempotencyKey({ ...scope, businessReference: 'order-1' });
		expect(key).toMatch(UUID_V5);
		expect(key).toBe(uuidFromText(stableStringify(['n8n-nodes-money/idempotency/v1', 'reference', 'payout', 'order-1'])));
		expect(deriveIdempotencyKey({ ...scope, runAnchor: 'other', runIndex: 3, nodeId: 'other', itemIndex: 9, businessReference: ' order-1 ' })).toBe(key);
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

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { deriveIdempotencyKey, idempotencyKeyOf, type IdempotencyScope, stableStringify, uuidFromText } from '../../../../../../nodes/Money/helpers/create/request/idempotencyKey';

const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const scope: IdempotencyScope = {
	resource: 'payout',
	runAnchor: 'anchor-1',
	runIndex: 0,
	itemIndex: 0,
};

describe('idempotency keys (D4)', () => {
	it('without a Business Reference, depends on the run anchor, run, item and resource only: a row keeps its key whatever its values become', () => {
		const key = deriveIdempotencyKey(scope);
		expect(key).toMatch(UUID_V5);
		expect(key).toBe(uuidFromText(stableStringify(['n8n-nodes-money/idempotency/v1', 'run', 'payout', 'anchor-1', 0, 0])));
		for (const change of [{ runAnchor: 'anchor-2' }, { runIndex: 1 }, { itemIndex: 1 }, { resource: 'charge' as const }]) {
			expect(deriveIdempotencyKey({ ...scope, ...change })).not.toBe(key);
		}
	});

	it('depends only on resource and business reference when one is given', () => {
		const key = deriveIdempotencyKey({ ...scope, businessReference: 'order-1' });
		expect(key).toMatch(UUID_V5);
		expect(key).toBe(uuidFromText(stableStringify(['n8n-nodes-money/idempotency/v1', 'reference', 'payout', 'order-1'])));
		expect(deriveIdempotencyKey({ ...scope, runAnchor: 'other', runIndex: 3, itemIndex: 9, businessReference: ' order-1 ' })).toBe(key);
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

	describe('the run anchor', () => {
		/** A node run of execution 1, node n1, with this node context (n8n's getContext('node')). */
		const nodeRun = (nodeContext: IDataObject) =>
			({
				getContext: () => nodeContext,
				getExecutionId: () => '1',
				getNode: () => ({ id: 'n1', name: 'Pay' }),
				getWorkflowDataProxy: () => ({ $thisRunIndex: 0 }),
			}) as unknown as IExecuteFunctions;

		it('is made once per execution and kept in the node context, which a Retry brings back', () => {
			const nodeContext: IDataObject = {};
			const key = idempotencyKeyOf(nodeRun(nodeContext), 'payout', '', 0);
			expect(idempotencyKeyOf(nodeRun(nodeContext), 'payout', '', 0)).toBe(key);
			expect(idempotencyKeyOf(nodeRun(JSON.parse(JSON.stringify(nodeContext)) as IDataObject), 'payout', '', 0)).toBe(key);
		});

		it('is not the execution id nor the node id, which repeat on another n8n instance with the same imported workflow', () => {
			expect(idempotencyKeyOf(nodeRun({}), 'payout', '', 0)).not.toBe(idempotencyKeyOf(nodeRun({}), 'payout', '', 0));
		});
	});
});

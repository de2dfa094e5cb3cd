import { createHash } from 'node:crypto';

import { deriveIdempotencyKey, type IdempotencyScope, movementChanges, movementOf, stableStringify, uuidFromText } from '../../../../nodes/Money/helpers/idempotency';

const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const body = {
	amount: 5000,
	currency: 'XOF',
	beneficiary_identifier: { identifier: 'GM-1', type: 'gm_account' },
	channel: 'psp-a-tg',
	beneficiary_account_type: 'Driver',
	account_number: 'WAL-1',
	message: 'Run 41',
	metadata: { sent_at: '1700000000000' },
	payment_reference: { ref_number: 'INV-1' },
};

const scope: IdempotencyScope = {
	resource: 'payout',
	runAnchor: 'exec-1',
	nodeId: 'node-1',
	runIndex: 0,
	itemIndex: 0,
	body,
	derivation: 2,
};

describe('idempotency keys (D4)', () => {
	it('is a UUID and stable for the same run anchor, node, run, item and movement', () => {
		const key = deriveIdempotencyKey(scope);
		expect(key).toMatch(UUID_V5);
		expect(deriveIdempotencyKey({ ...scope, body: { ...body } })).toBe(key);
	});

	it('does not depend on free text a Retry evaluates again (Message, Metadata, payment reference) nor on key order', () => {
		const retried = { ...body, message: 'Run 42', metadata: { sent_at: '1700000009999', extra: 'x' }, payment_reference: { ref_number: 'INV-2' } };
		expect(deriveIdempotencyKey({ ...scope, body: retried })).toBe(deriveIdempotencyKey(scope));
		const { message: _message, metadata: _metadata, payment_reference: _reference, ...bare } = body;
		expect(deriveIdempotencyKey({ ...scope, body: bare })).toBe(deriveIdempotencyKey(scope));
		const reordered = Object.fromEntries(Object.entries(body).reverse());
		expect(deriveIdempotencyKey({ ...scope, body: reordered })).toBe(deriveIdempotencyKey(scope));
	});

	it.each([
		['run anchor', { runAnchor: 'exec-2' }],
		['run index (a node inside a loop)', { runIndex: 1 }],
		['node', { nodeId: 'node-2' }],
		['item', { itemIndex: 1 }],
		['resource', { resource: 'charge' as const }],
		['amount', { body: { ...body, amount: 5001 } }],
		['currency', { body: { ...body, currency: 'XAF' } }],
		['party identifier', { body: { ...body, beneficiary_identifier: { identifier: 'GM-2', type: 'gm_account' } } }],
		['party identifier type', { body: { ...body, beneficiary_identifier: { identifier: 'GM-1', type: 'phone' } } }],
		['channel', { body: { ...body, channel: 'platform' } }],
		['account type', { body: { ...body, beneficiary_account_type: 'Client' } }],
		['account number', { body: { ...body, account_number: 'WAL-2' } }],
	])('changes with the %s', (_name, change) => {
		expect(deriveIdempotencyKey({ ...scope, ...change })).not.toBe(deriveIdempotencyKey(scope));
	});

	describe('runs anchored by this version (derivation 3)', () => {
		const placed: IdempotencyScope = { ...scope, derivation: 3 };

		it('depends on the anchor, node, run, item and resource only: a row keeps its key whatever its values become', () => {
			const key = deriveIdempotencyKey(placed);
			expect(key).toMatch(UUID_V5);
			expect(key).toBe(uuidFromText(stableStringify(['n8n-nodes-money/idempotency/v3', 'run', 'payout', 'exec-1', 'node-1', 0, 0])));
			const otherValues = { ...body, amount: 5001, account_number: 'WAL-2', beneficiary_account_type: 'Client', channel: 'platform', message: 'Run 42' };
			expect(deriveIdempotencyKey({ ...placed, body: otherValues })).toBe(key);
			for (const change of [{ runAnchor: 'exec-2' }, { runIndex: 1 }, { nodeId: 'node-2' }, { itemIndex: 1 }, { resource: 'charge' as const }]) {
				expect(deriveIdempotencyKey({ ...placed, ...change })).not.toBe(key);
			}
			expect([deriveIdempotencyKey({ ...placed, derivation: 2 }), deriveIdempotencyKey({ ...placed, derivation: 1 })]).not.toContain(key);
		});

		it('lists the fields of the movement that changed, by their API names', () => {
			expect(movementChanges('charge', { amount: 1, payer_identifier: { identifier: 'GM-1', type: 'gm_account' } }, { amount: 1, payer_identifier: { identifier: 'GM-2', type: 'gm_account' }, payer_account_type: 'Client', message: 'x' })).toEqual([
				{ field: 'payer_identifier', before: { identifier: 'GM-1', type: 'gm_account' }, now: { identifier: 'GM-2', type: 'gm_account' } },
				{ field: 'payer_account_type', before: null, now: 'Client' },
			]);
		});
	});

	it('names the party by the resource: payer for a charge, beneficiary for a payout', () => {
		expect(movementOf('charge', { payer_identifier: { identifier: 'GM-1', type: 'gm_account' }, payer_account_type: 'Client' })).toMatchObject({
			party: { identifier: 'GM-1', type: 'gm_account' },
			account_type: 'Client',
		});
	});

	it('keeps the first release\'s keys for a run it anchored (the whole body, free text included)', () => {
		const legacy = deriveIdempotencyKey({ ...scope, derivation: 1 });
		const payloadHash = createHash('sha256').update(stableStringify(body)).digest('hex');
		expect(legacy).toBe(uuidFromText(stableStringify(['n8n-nodes-money/idempotency/v1', 'run', 'payout', 'exec-1', 'node-1', 0, 0, payloadHash])));
		expect(legacy).not.toBe(deriveIdempotencyKey(scope));
		expect(deriveIdempotencyKey({ ...scope, derivation: 1, body: { ...body, message: 'Run 42' } })).not.toBe(legacy);
	});

	it('depends only on resource and business reference when one is given, as in the first release', () => {
		const key = deriveIdempotencyKey({ ...scope, businessReference: 'order-1' });
		expect(key).toMatch(UUID_V5);
		expect(key).toBe(uuidFromText(stableStringify(['n8n-nodes-money/idempotency/v1', 'reference', 'payout', 'order-1'])));
		expect(
			deriveIdempotencyKey({ ...scope, runAnchor: 'other', runIndex: 3, nodeId: 'other', itemIndex: 9, body: { amount: 1 }, derivation: 1, businessReference: ' order-1 ' }),
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

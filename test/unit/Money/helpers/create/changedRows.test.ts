import type { IExecuteFunctions, INode } from 'n8n-workflow';

import { paidWithOtherValues, sentUnderAnotherKey } from '../../../../../nodes/Money/helpers/create/changedRows';

const node: INode = { id: 'n1', name: 'Pay', type: 'n8n-nodes-money.money', typeVersion: 1, position: [0, 0], parameters: {} };
const context = { getNode: () => node } as unknown as IExecuteFunctions;
const stamped = (reference: string) => ({ amount: 5000, metadata: { n8n_business_reference: reference } });

describe('rows sent before in this execution, run again as another payment', () => {
	it('names each change of a paid row and says nothing was sent', () => {
		const error = paidWithOtherValues(context, 'payout', 1, 'key-2', [
			{ field: 'amount', before: 5000, now: 5500 },
			{ field: 'account_number', before: null, now: 'WAL-XOF-2' },
		]);
		expect(error.message).toBe('Not sent: item 2 was already paid in this execution with other values (amount 5000 → 5500, account_number none → WAL-XOF-2)');
		expect(error.description).toContain('Nothing was sent');
		expect(error.context).toMatchObject({ attempted: false, field: 'amount', idempotency_key: 'key-2', itemIndex: 1 });
	});

	it.each([
		[{ amount: 5000 }, 'order-7', 'with no Business Reference, and now has Business Reference "order-7"'],
		[stamped('order-7'), 'order-8', 'with Business Reference "order-7", and now has Business Reference "order-8"'],
		[stamped('order-7'), '', 'with Business Reference "order-7", and now has no Business Reference'],
	])('says how the key of a row sent as %j changed (now %j)', (earlierBody, reference, said) => {
		const error = sentUnderAnotherKey(context, 'payout', 0, 'key-1', earlierBody, reference);
		expect(error.message).toBe(`Not sent: item 1 was already sent in this execution ${said}`);
		expect(error.context).toMatchObject({ attempted: false, field: 'idempotency-key', idempotency_key: 'key-1' });
	});
});

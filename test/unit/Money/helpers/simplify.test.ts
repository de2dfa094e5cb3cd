import { simplifyAccount, simplifyTransaction } from '../../../../nodes/Money/helpers/simplify';

const ORDER = ['status', 'amount', 'currency', 'counterpart_identifier', 'counterpart_name', 'channel', 'business_reference', 'reference', 'type', 'account_identifier', 'shared_note', 'created_at'];

describe('simplifyTransaction', () => {
	it('reads as a create item does: status, amount, with whom, the Business Reference, then the reference and the rest', () => {
		const simple = simplifyTransaction({
			reference: 'po_1',
			status: { code: 0, label: 'PENDING' },
			type: 'payout',
			amount: { value: -2500, currency: 'XOF' },
			counterpart_account: { identifier: 'GM-1002', channel: 'platform', name: null },
			account: { identifier: 'ACC-1', channel: 'platform', name: 'Shop' },
			metadata: { n8n_business_reference: 'ord-1' },
			shared_note: null,
			created_at: '2026-01-01T00:00:00Z',
		});
		expect(simple).toEqual({
			status: 'PENDING',
			amount: -2500,
			currency: 'XOF',
			counterpart_identifier: 'GM-1002',
			counterpart_name: null,
			channel: 'platform',
			business_reference: 'ord-1',
			reference: 'po_1',
			type: 'payout',
			account_identifier: 'ACC-1',
			shared_note: null,
			created_at: '2026-01-01T00:00:00Z',
		});
		expect(Object.keys(simple)).toEqual(ORDER);
	});

	it('gives null for what the envelope lacks', () => {
		expect(simplifyTransaction({ reference: 'ch_1' })).toMatchObject({ reference: 'ch_1', status: null, amount: null, business_reference: null });
	});
});


describe('simplifyAccount', () => {
	it('names the merchant, its status and balance first', () => {
		const simple = simplifyAccount({ id: 'M-1', name: 'Shop', type: 'business', status: 'active', account: { number: 'ACC-1', balance: { value: 900, currency: 'XOF' }, payment_link: null } });
		expect(Object.entries(simple)).toEqual([
			['name', 'Shop'],
			['status', 'active'],
			['balance', 900],
			['currency', 'XOF'],
			['account_number', 'ACC-1'],
			['id', 'M-1'],
			['type', 'business'],
			['payment_link', null],
		]);
	});
});

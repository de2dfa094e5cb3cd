import { findOverdraft, walletFromAccount } from '../../../../../../nodes/Money/helpers/create/run/balanceCheck';

const WALLET = { number: 'WAL-XOF-1', value: 10_000, currency: 'XOF' };

describe('balance check', () => {
	it('totals the payouts that debit the primary wallet and reports the shortfall', () => {
		const planned = [
			{ amount: 6000, currency: 'XOF' },
			{ amount: '3000', currency: 'XOF', accountNumber: 'WAL-XOF-1' },
			{ amount: 2000, currency: 'XOF', accountNumber: ' ' },
		];
		expect(findOverdraft(planned, WALLET)).toEqual({ currency: 'XOF', total: 11_000, balance: 10_000, shortfall: 1000, wallet: 'WAL-XOF-1', items: 3 });
	});

	it('leaves out other currencies, other wallets and invalid amounts', () => {
		const planned = [
			{ amount: 10_000, currency: 'XOF' },
			{ amount: 50_000, currency: 'XAF' },
			{ amount: 50_000, currency: 'XOF', accountNumber: 'WAL-XOF-2' },
			{ amount: 12.5, currency: 'XOF' },
			{ amount: -4, currency: 'XOF' },
			{ amount: undefined, currency: 'XOF' },
		];
		expect(findOverdraft(planned, WALLET)).toBeUndefined();
	});

	it('reads the primary wallet from the account answer', () => {
		expect(walletFromAccount({ account: { number: 'WAL-1', balance: { value: 5, currency: 'XOF' } } })).toEqual({ number: 'WAL-1', value: 5, currency: 'XOF' });
		expect(walletFromAccount({ account: { number: 'WAL-1' } })).toBeUndefined();
		expect(walletFromAccount({})).toBeUndefined();
	});
});

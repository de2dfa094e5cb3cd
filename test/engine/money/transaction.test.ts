import { FAST, useMoneyNode } from './setup';

/** The Money node's Transaction operation against the sandbox. */
const env = useMoneyNode();
const { run, json, payout, expectFailure } = env;

describe('Money node against the sandbox', () => {
	describe('transaction details', () => {
		it('gets details by reference and by unique id', async () => {
			const created = json(await run(payout({ amount: 1212 })));
			const ledger = await env.sb.control.ledger();
			const stored = ledger.payouts.find((entry) => entry.reference === created.reference);
			const byReference = json(await run({ resource: 'transaction', operation: 'get', transactionId: created.reference, simplify: false, options: FAST }));
			expect(byReference).toMatchObject({ reference: created.reference, status: { label: 'PENDING' } });
			expect(byReference.success).toBeUndefined();
			const byUniqueId = json(
				await run({ resource: 'transaction', operation: 'get', transactionId: stored?.unique_id, options: FAST }),
			);
			expect(byUniqueId).toMatchObject({ reference: created.reference, amount: -1212 });
		});

		it('maps transaction_not_found and merchant_not_linked', async () => {
			await expectFailure({ resource: 'transaction', operation: 'get', transactionId: 'missing-1', options: FAST }, 'transaction_not_found', 404);
			await env.sb.control.updateClient(env.sb.info.clientId, { linked: false });
			await expectFailure({ resource: 'transaction', operation: 'get', transactionId: 'missing-1', options: FAST }, 'merchant_not_linked', 403);
		});
	});
});

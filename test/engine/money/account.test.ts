import type { IDataObject } from 'n8n-workflow';

import { FAST, useMoneyNode } from './setup';

/** The Money node's Account operations against the sandbox. */
const env = useMoneyNode();
const { run, json, expectFailure } = env;

describe('Money node against the sandbox', () => {
	describe('account', () => {
		it('gets the merchant account, raw and simplified', async () => {
			const raw = json(await run({ resource: 'account', operation: 'get', simplify: false, options: FAST }));
			expect(raw).toMatchObject({ id: expect.any(String), name: expect.any(String), status: 'active' });
			expect((raw.account as IDataObject).number).toBe(env.sb.info.merchantAccountNumber);
			expect(raw.success).toBeUndefined();

			const simple = json(await run({ resource: 'account', operation: 'get', options: FAST }));
			expect(simple).toMatchObject({ account_number: env.sb.info.merchantAccountNumber, currency: 'XOF', balance: expect.any(Number) });
		});

		it.each([
			[{ hasPrimaryWallet: false }, 'merchant_account_not_configured', 400],
			[{ profileIncomplete: true }, 'merchant_profile_incomplete', 400],
			[{ linked: false }, 'merchant_not_linked', 403],
			[{ merchantResolvable: false }, 'merchant_not_resolved', 403],
			[{ walletRetrievable: false }, 'account_not_found', 404],
		])('maps %j to %s', async (patch, code, status) => {
			await env.sb.control.updateClient(env.sb.info.clientId, patch);
			await expectFailure({ resource: 'account', operation: 'get', options: FAST }, code, status);
		});

		it('retries 502 service_unavailable and gives up with the code after the retries', async () => {
			await env.sb.control.addFault({ route: 'get_money_v1_account', kind: '502', count: 1 });
			expect(json(await run({ resource: 'account', operation: 'get', options: FAST })).id).toBeDefined();

			await env.sb.control.addFault({ route: 'get_money_v1_account', kind: '502' });
			const before = (await env.sb.control.counters()).requests.get_money_v1_account ?? 0;
			const item = await expectFailure({ resource: 'account', operation: 'get', options: FAST }, 'service_unavailable', 502);
			expect(String(item.description)).toContain('retried');
			expect((await env.sb.control.counters()).requests.get_money_v1_account - before).toBe(4);
		});

		it('reports forbidden when the client is not entitled (new token)', async () => {
			await env.sb.control.updateClient(env.sb.info.clientId, { entitlements: ['post_money_v1_charge'] });
			await env.sb.control.revokeTokens();
			await expectFailure({ resource: 'account', operation: 'get', options: FAST }, 'forbidden', 403);
		});
	});
});

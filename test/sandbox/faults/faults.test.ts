import { randomUUID } from 'node:crypto';
import type { Sandbox } from '../../../sandbox';
import { ApiTestClient, chargeBody, payoutBody, rawRequest, startTestSandbox, useTestSandbox } from '../helpers';

describe('fault injection', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('each', (started) => ({ sandbox, api } = started));
	beforeEach(() => api.fetchToken());

	it('429 with Retry-After for the next N calls of a route, then normal service', async () => {
		await sandbox.control.addFault({ route: 'get_money_v1_charge_list', kind: '429', count: 2, retryAfterSeconds: 7 });
		for (let call = 0; call < 2; call++) {
			const limited = await api.call('GET', '/money/v1/charge');
			expect(limited.status).toBe(429);
			expect(limited.headers['retry-after']).toBe('7');
			expect(limited.json).toMatchObject({ success: false, error_code: 'rate_limit_exceeded' });
		}
		expect((await api.call('GET', '/money/v1/charge')).status).toBe(200);
		expect((await api.call('GET', '/money/v1/account')).status).toBe(200);
	});

	it('502 UPSTREAM_ERROR on charge/payout routes and service_unavailable on details/account', async () => {
		await sandbox.control.addFault({ route: '*', kind: '502', count: 3 });
		const charge = await api.call('POST', '/money/v1/charge', { body: chargeBody() });
		expect(charge.status).toBe(502);
		expect(charge.json).toMatchObject({ success: false, error_code: 'UPSTREAM_ERROR' });
		const account = await api.call('GET', '/money/v1/account');
		expect(account.status).toBe(502);
		expect(account.json).toEqual({ success: false, message: expect.any(String), error_code: 'service_unavailable' });
		expect((await api.call('GET', '/money/v1/transaction-details/x')).json.error_code).toBe('service_unavailable');
		expect((await sandbox.control.ledger()).charges).toHaveLength(0);
	});

	it('503 PROVIDER_UNAVAILABLE commits nothing', async () => {
		await sandbox.control.addFault({ route: 'post_money_v1_payout', kind: '503' });
		const response = await api.call('POST', '/money/v1/payout', { body: payoutBody() });
		expect(response.status).toBe(503);
		expect(response.json.error_code).toBe('PROVIDER_UNAVAILABLE');
		expect((await sandbox.control.ledger()).payouts).toHaveLength(0);
		await sandbox.control.clearFaults();
		expect((await api.call('POST', '/money/v1/payout', { body: payoutBody() })).status).toBe(201);
	});

	it('404 answers a read as a lagging replica would (the transaction exists), then normal service', async () => {
		const created = await api.call('POST', '/money/v1/charge', { body: chargeBody() });
		const reference = created.json.reference;
		await sandbox.control.addFault({ route: 'get_money_v1_charge_reference', kind: '404', count: 1 });
		const lagging = await api.call('GET', `/money/v1/charge/${reference}`);
		expect(lagging.status).toBe(404);
		expect(lagging.json).toMatchObject({ success: false, error_code: 'TRANSACTION_NOT_FOUND' });
		expect((await api.call('GET', `/money/v1/charge/${reference}`)).status).toBe(200);
	});

	it('500 INTERNAL_ERROR', async () => {
		await sandbox.control.addFault({ route: 'get_money_v1_payout_list', kind: '500', count: 1 });
		const response = await api.call('GET', '/money/v1/payout');
		expect(response.status).toBe(500);
		expect(response.json.error_code).toBe('INTERNAL_ERROR');
	});

	it('delay holds the answer for at least delayMs', async () => {
		await sandbox.control.addFault({ route: 'get_money_v1_account', kind: 'delay', delayMs: 300, count: 1 });
		const started = Date.now();
		const response = await api.call('GET', '/money/v1/account');
		expect(response.status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(290);
	});

	it('drop closes the connection and commits nothing', async () => {
		await sandbox.control.addFault({ route: 'post_money_v1_charge', kind: 'drop', count: 1 });
		await expect(api.call('POST', '/money/v1/charge', { body: chargeBody() })).rejects.toThrow();
		expect((await sandbox.control.ledger()).charges).toHaveLength(0);
	});

	it('drop-after-commit really commits: a retry with the same key gets the original reference', async () => {
		await sandbox.control.addFault({ route: 'post_money_v1_payout', kind: 'drop-after-commit', count: 1 });
		const before = (await sandbox.control.ledger()).balance.value;
		const key = randomUUID();
		await expect(api.call('POST', '/money/v1/payout', { body: payoutBody({ amount: 3000 }), idempotencyKey: key })).rejects.toThrow();
		const committed = await sandbox.control.ledger();
		expect(committed.payouts).toHaveLength(1);
		expect(committed.balance.value).toBe(before - 3000);
		const retry = await api.call('POST', '/money/v1/payout', { body: payoutBody({ amount: 3000 }), idempotencyKey: key });
		expect(retry.status).toBe(201);
		expect(retry.json.reference).toBe(committed.payouts[0].reference);
		expect((await sandbox.control.ledger()).payouts).toHaveLength(1);
		expect((await sandbox.control.counters()).createsByIdempotencyKey[key]).toBe(1);
	});

	it('drop-after-commit ignores read routes', async () => {
		await sandbox.control.addFault({ route: '*', kind: 'drop-after-commit', count: 1 });
		expect((await api.call('GET', '/money/v1/charge')).status).toBe(200);
		await expect(api.call('POST', '/money/v1/charge', { body: chargeBody() })).rejects.toThrow();
		expect((await sandbox.control.ledger()).charges).toHaveLength(1);
	});

	it('page-200 answers a web page in place of the API and runs nothing; page-200-after-commit runs the create, then answers the page', async () => {
		await sandbox.control.addFault({ route: 'post_money_v1_payout', kind: 'page-200', count: 1 });
		const page = await api.call('POST', '/money/v1/payout', { body: payoutBody({ amount: 3100 }), idempotencyKey: randomUUID() });
		expect(page.status).toBe(200);
		expect(page.headers['content-type']).toContain('text/html');
		expect((await sandbox.control.ledger()).payouts.filter((entry) => entry.amount.value === -3100)).toHaveLength(0);

		const key = randomUUID();
		await sandbox.control.addFault({ route: 'post_money_v1_payout', kind: 'page-200-after-commit', count: 1 });
		expect((await api.call('POST', '/money/v1/payout', { body: payoutBody({ amount: 3200 }), idempotencyKey: key })).headers['content-type']).toContain('text/html');
		const again = await api.call('POST', '/money/v1/payout', { body: payoutBody({ amount: 3200 }), idempotencyKey: key });
		expect(again.status).toBe(201);
		expect((await sandbox.control.ledger()).payouts.filter((entry) => entry.amount.value === -3200)).toHaveLength(1);
	});

	it('not-success-200 answers 200 with success: false and runs nothing', async () => {
		await sandbox.control.addFault({ route: 'get_money_v1_account', kind: 'not-success-200', count: 1 });
		const answer = await api.call('GET', '/money/v1/account');
		expect(answer.status).toBe(200);
		expect(answer.json).toMatchObject({ success: false, error_code: 'PROVIDER_UNAVAILABLE' });
	});

	it('an after-commit fault is not used up by a request refused before it runs (a 401)', async () => {
		await sandbox.control.addFault({ route: 'post_money_v1_payout', kind: 'drop-after-commit', count: 1 });
		await api.call('GET', '/money/v1/account');
		await sandbox.control.revokeTokens();
		const refused = await api.call('POST', '/money/v1/payout', { body: payoutBody({ amount: 3300 }), idempotencyKey: randomUUID() });
		api.forgetToken();
		expect(refused.status).toBe(401);
		expect(await sandbox.control.listFaults()).toHaveLength(1);
		await sandbox.control.clearFaults();
	});

	it('a rate is reproducible for the same seed', async () => {
		const pattern = async (target: Sandbox): Promise<number[]> => {
			const client = new ApiTestClient(target);
			await target.control.addFault({ route: 'get_money_v1_charge_list', kind: '503', rate: 0.5 });
			const statuses: number[] = [];
			for (let call = 0; call < 16; call++) statuses.push((await client.call('GET', '/money/v1/charge')).status);
			return statuses;
		};
		const twin = await startTestSandbox({ config: { seed: 1 } });
		try {
			const first = await pattern(sandbox);
			const second = await pattern(twin);
			expect(first).toEqual(second);
			expect(first).toContain(503);
			expect(first).toContain(200);
		} finally {
			await twin.close();
		}
	});

	it('faults can target the token host', async () => {
		await sandbox.control.addFault({ route: 'post_oauth2_token', kind: '503', count: 1 });
		await expect(api.fetchToken()).rejects.toThrow(/503/);
		await expect(api.fetchToken()).resolves.toEqual(expect.any(String));
	});

	it('faults are listed, removable and validated', async () => {
		const { id } = await sandbox.control.addFault({ route: '*', kind: '503' });
		expect(await sandbox.control.listFaults()).toEqual([expect.objectContaining({ id, kind: '503', route: '*' })]);
		await sandbox.control.removeFault(id);
		expect(await sandbox.control.listFaults()).toEqual([]);
		await expect(sandbox.control.addFault({ route: '*', kind: 'explode' as never })).rejects.toMatchObject({ code: 'invalid_fault' });
		const http = await rawRequest({ origin: sandbox.info.controlUrl, method: 'POST', path: '/_control/faults', body: JSON.stringify({ route: '*', kind: '503', rate: 2 }) });
		expect(http.status).toBe(400);
	});
});

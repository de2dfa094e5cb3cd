import { randomUUID } from 'node:crypto';
import { INELIGIBLE_IDENTIFIERS, UNKNOWN_IDENTIFIERS, type Sandbox } from '../../../sandbox';
import { ApiTestClient, payoutBody, startTestSandbox, useTestSandbox } from '../helpers';

describe('payouts (spec 2.2, 4, 7.1, 8)', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('each', (started) => ({ sandbox, api } = started));

	const create = (overrides: Record<string, unknown> = {}, idempotencyKey?: string) =>
		api.call('POST', '/money/v1/payout', { body: payoutBody(overrides), idempotencyKey });
	const balance = async () => (await sandbox.control.ledger()).balance.value;

	it('answers 201 { success, reference } and debits the wallet at once', async () => {
		const before = await balance();
		const response = await create({ amount: 4000 });
		expect(response.status).toBe(201);
		expect(response.json).toEqual({ success: true, reference: expect.stringMatching(/^pay_/) });
		expect(await balance()).toBe(before - 4000);
		const read = await api.call('GET', `/money/v1/payout/${response.json.reference}`);
		expect(read.json.data).toMatchObject({
			type: 'payout',
			status: { code: 0, label: 'PENDING' },
			amount: { value: -4000, currency: 'XOF' },
			balance_after: { value: before - 4000, currency: 'XOF' },
			counterpart_account: { identifier: '+22890000002', channel: 'psp-b-tg', name: 'Yao Dossou' },
		});
	});

	it.each(['FAILED', 'CANCELLED'] as const)('%s refunds the debit', async (status) => {
		const before = await balance();
		const response = await create({ amount: 4000 });
		await sandbox.control.setStatus(response.json.reference, status);
		expect(await balance()).toBe(before);
	});

	it('REVERSED is allowed only after COMPLETED, shows code 4 and refunds', async () => {
		const before = await balance();
		const response = await create({ amount: 4000 });
		await expect(sandbox.control.setStatus(response.json.reference, 'REVERSED')).rejects.toMatchObject({ code: 'invalid_transition' });
		await sandbox.control.setStatus(response.json.reference, 'COMPLETED');
		expect(await balance()).toBe(before - 4000);
		await sandbox.control.setStatus(response.json.reference, 'REVERSED');
		expect(await balance()).toBe(before);
		const read = await api.call('GET', `/money/v1/payout/${response.json.reference}`);
		expect(read.json.data.status).toEqual({ code: 4, label: 'REVERSED' });
	});

	it('402 INSUFFICIENT_FUNDS with available_balance', async () => {
		await sandbox.control.updateClient(sandbox.info.clientId, { balance: 3000 });
		const response = await create({ amount: 3001 });
		expect(response.status).toBe(402);
		expect(response.json).toMatchObject({ success: false, error_code: 'INSUFFICIENT_FUNDS', details: { available_balance: 3000 } });
		expect((await create({ amount: 3000 })).status).toBe(201);
	});

	it.each([
		[{ minAmount: 500 }, { amount: 499 }, 'min_amount'],
		[{ maxAmount: 10_000 }, { amount: 10_001 }, 'max_amount'],
	])('403 LIMIT_EXCEEDED for %j with %j', async (limits, overrides, limit) => {
		await sandbox.control.updateClient(sandbox.info.clientId, { limits });
		const response = await create(overrides);
		expect(response.status).toBe(403);
		expect(response.json).toMatchObject({
			success: false,
			error_code: 'LIMIT_EXCEEDED',
			details: { limit, min_amount: expect.any(Number), max_amount: expect.any(Number), daily_cap: expect.any(Number), monthly_cap: expect.any(Number), velocity_limit: 20 },
		});
	});

	it('403 LIMIT_EXCEEDED when the daily cap would be passed', async () => {
		await sandbox.control.updateClient(sandbox.info.clientId, { limits: { dailyCap: 10_000 } });
		expect((await create({ amount: 6000 })).status).toBe(201);
		const response = await create({ amount: 6000 });
		expect(response.status).toBe(403);
		expect(response.json.details).toMatchObject({ limit: 'daily_cap', daily_cap: 10_000, daily_used: 6000 });
	});

	it('403 LIMIT_EXCEEDED when the monthly cap would be passed; failed payouts do not count', async () => {
		await sandbox.control.updateClient(sandbox.info.clientId, { limits: { monthlyCap: 10_000 } });
		const first = await create({ amount: 6000 });
		const second = await create({ amount: 6000 });
		expect(second.json.details).toMatchObject({ limit: 'monthly_cap', monthly_cap: 10_000 });
		await sandbox.control.setStatus(first.json.reference, 'FAILED');
		expect((await create({ amount: 6000 })).status).toBe(201);
	});

	it('the 21st payout within 5 minutes breaches velocity; the window rolls', async () => {
		for (let index = 0; index < 20; index++) expect((await create({ amount: 100 })).status).toBe(201);
		const breach = await create({ amount: 100 });
		expect(breach.status).toBe(403);
		expect(breach.json).toMatchObject({ error_code: 'LIMIT_EXCEEDED', details: { limit: 'velocity_limit', velocity_limit: 20, velocity_window_seconds: 300 } });
		const shift = 301;
		await sandbox.control.setClockOffset(shift);
		const later = await api.call('POST', '/money/v1/payout', { body: payoutBody({ amount: 100 }), timestamp: Math.floor(Date.now() / 1000) + shift });
		expect(later.status).toBe(201);
	});

	it('rejected payouts do not consume the velocity budget', async () => {
		await sandbox.control.updateClient(sandbox.info.clientId, { limits: { velocityLimit: 2 } });
		expect((await create({ amount: 1 })).status).toBe(403);
		expect((await create()).status).toBe(201);
		expect((await create()).status).toBe(201);
		expect((await create()).json.details.limit).toBe('velocity_limit');
	});

	it.each([
		[{ beneficiary_identifier: { identifier: UNKNOWN_IDENTIFIERS.gm_account, type: 'gm_account' } }],
		[{ beneficiary_identifier: { identifier: UNKNOWN_IDENTIFIERS.phone, type: 'phone' } }],
	])('404 BENEFICIARY_NOT_FOUND for %j', async (overrides) => {
		const response = await create(overrides);
		expect(response.status).toBe(404);
		expect(response.json.error_code).toBe('BENEFICIARY_NOT_FOUND');
	});

	it.each([
		[{ beneficiary_identifier: { identifier: INELIGIBLE_IDENTIFIERS.gm_account, type: 'gm_account' } }],
		[{ beneficiary_identifier: { identifier: INELIGIBLE_IDENTIFIERS.phone, type: 'phone' }, beneficiary_account_type: 'Client' }],
	])('400 BENEFICIARY_NOT_ELIGIBLE for %j', async (overrides) => {
		const response = await create(overrides);
		expect(response.status).toBe(400);
		expect(response.json.error_code).toBe('BENEFICIARY_NOT_ELIGIBLE');
	});

	it.each([
		[{ beneficiary_identifier: { identifier: 'IBAN-1', type: 'bank_account' } }, 'beneficiary_identifier.type'],
		[{ channel: 'platform', beneficiary_account_type: undefined }, 'beneficiary_account_type'],
		[{ amount: 0 }, 'amount'],
		[{ currency: 'USD' }, 'currency'],
		[{ message: 'm'.repeat(256) }, 'message'],
		[{ pin: '' }, 'pin'],
	])('%j fails with VALIDATION_ERROR naming %s', async (overrides, field) => {
		const response = await create(overrides);
		expect(response.status).toBe(400);
		expect(response.json.error_code).toBe('VALIDATION_ERROR');
		expect(response.json.details).toHaveProperty([field]);
	});

	it('CHANNEL_NOT_SUPPORTED for an unknown channel', async () => {
		expect((await create({ channel: 'bank-transfer' })).json.error_code).toBe('CHANNEL_NOT_SUPPORTED');
	});

	it('idempotency: replay debits once, a different body conflicts', async () => {
		const before = await balance();
		const key = randomUUID();
		const first = await create({ amount: 1500 }, key);
		const replay = await create({ amount: 1500 }, key);
		expect(replay.json.reference).toBe(first.json.reference);
		expect(await balance()).toBe(before - 1500);
		expect((await sandbox.control.ledger()).payouts).toHaveLength(1);
		const conflict = await create({ amount: 1600 }, key);
		expect(conflict.status).toBe(409);
		expect(conflict.json.error_code).toBe('IDEMPOTENCY_CONFLICT');
	});

	it('404 PAYOUT_NOT_FOUND for an unknown reference or a charge reference', async () => {
		expect((await api.call('GET', '/money/v1/payout/pay_unknown')).json).toMatchObject({ success: false, error_code: 'PAYOUT_NOT_FOUND' });
		const charge = await api.call('POST', '/money/v1/charge', { body: { amount: 100, currency: 'XOF', payer_identifier: { identifier: 'GM-1001', type: 'gm_account' }, channel: 'psp-a-tg', pin: '1234' } });
		const response = await api.call('GET', `/money/v1/payout/${charge.json.reference}`);
		expect(response.status).toBe(404);
		expect(response.json.error_code).toBe('PAYOUT_NOT_FOUND');
	});

	it('the payout type label can be configured as "transfer"', async () => {
		const transferSandbox = await startTestSandbox({ config: { payoutTypeLabel: 'transfer' } });
		try {
			const client = new ApiTestClient(transferSandbox);
			const created = await client.call('POST', '/money/v1/payout', { body: payoutBody() });
			expect((await client.call('GET', `/money/v1/payout/${created.json.reference}`)).json.data.type).toBe('transfer');
		} finally {
			await transferSandbox.close();
		}
	});
});

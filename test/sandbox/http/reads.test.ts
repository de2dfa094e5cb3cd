import { SECONDARY_CLIENT_ID, type Sandbox } from '../../../sandbox';
import { ApiTestClient, chargeBody, payoutBody, pendingChargeEnvelope, startTestSandbox, useTestSandbox } from '../helpers';

describe('lists (spec 2.5, 4 list query)', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('all', (started) => ({ sandbox, api } = started));
	beforeAll(async () => {
		await sandbox.control.seed({ resource: 'charge', count: 30, status: 'COMPLETED', channel: 'psp-a-tg', createdAtFrom: '2024-03-01T00:00:00Z', createdAtTo: '2024-03-30T00:00:00Z' });
		await sandbox.control.seed({ resource: 'charge', count: 10, status: 'FAILED', channel: 'platform', createdAtFrom: '2024-04-01T00:00:00Z', createdAtTo: '2024-04-10T00:00:00Z' });
		await sandbox.control.seed({ resource: 'payout', count: 5, status: 'REVERSED', channel: 'psp-b-tg', createdAtFrom: '2024-05-01T00:00:00Z', createdAtTo: '2024-05-05T00:00:00Z' });
	});

	const list = (path: string) => api.call('GET', path);

	it('defaults to page 1, limit 20, newest first, with the pagination object', async () => {
		const response = await list('/money/v1/charge');
		expect(response.status).toBe(200);
		expect(response.json.success).toBe(true);
		expect(response.json.pagination).toEqual({ page: 1, limit: 20, total: 40, pages: 2 });
		expect(response.json.data).toHaveLength(20);
		const times = response.json.data.map((item: any) => Date.parse(item.created_at));
		expect([...times].sort((a, b) => b - a)).toEqual(times);
		expect(response.json.data[0].created_at).toBe('2024-04-10T00:00:00.000Z');
	});

	it('pages without gaps or overlap', async () => {
		const seen = new Set<string>();
		for (let page = 1; page <= 3; page++) {
			const response = await list(`/money/v1/charge?page=${page}&limit=15`);
			expect(response.json.pagination).toEqual({ page, limit: 15, total: 40, pages: 3 });
			for (const item of response.json.data) seen.add(item.reference);
		}
		expect(seen.size).toBe(40);
		expect((await list('/money/v1/charge?page=9&limit=15')).json.data).toEqual([]);
	});

	it('filters by status and channel with totals across filters', async () => {
		const failed = await list('/money/v1/charge?status=FAILED&limit=100');
		expect(failed.json.pagination.total).toBe(10);
		expect(failed.json.data.every((item: any) => item.status.label === 'FAILED')).toBe(true);
		const psp = await list('/money/v1/charge?channel=psp-a-tg&limit=5&page=2');
		expect(psp.json.pagination).toEqual({ page: 2, limit: 5, total: 30, pages: 6 });
		expect(psp.json.data.every((item: any) => item.channel === 'psp-a-tg')).toBe(true);
		expect((await list('/money/v1/charge?status=FAILED&channel=psp-a-tg')).json.pagination.total).toBe(0);
	});

	it('filters by start_date and end_date (inclusive; a date-only end_date covers its day)', async () => {
		const march = await list('/money/v1/charge?start_date=2024-03-01T00:00:00Z&end_date=2024-03-31&limit=100');
		expect(march.json.pagination.total).toBe(30);
		const april = await list('/money/v1/charge?start_date=2024-04-01&limit=100');
		expect(april.json.pagination.total).toBe(10);
		const single = await list(`/money/v1/charge?start_date=${encodeURIComponent('2024-04-10T00:00:00+00:00')}&end_date=2024-04-10T00:00:00.000Z`);
		expect(single.json.pagination.total).toBe(1);
	});

	it('REVERSED is a payout status only', async () => {
		expect((await list('/money/v1/payout?status=REVERSED')).json.pagination.total).toBe(5);
		const charge = await list('/money/v1/charge?status=REVERSED');
		expect(charge.status).toBe(400);
		expect(charge.json.details).toHaveProperty('status');
	});

	it.each([
		['limit=0', 'limit'],
		['limit=101', 'limit'],
		['limit=ten', 'limit'],
		['page=0', 'page'],
		['page=-1', 'page'],
		['status=pending', 'status'],
		['channel=psp-x', 'channel'],
		['start_date=yesterday', 'start_date'],
		['end_date=2024-13-45', 'end_date'],
		['start_date=2024-05-01&end_date=2024-04-01', 'end_date'],
	])('?%s answers 400 VALIDATION_ERROR naming %s', async (query, field) => {
		const response = await list(`/money/v1/charge?${query}`);
		expect(response.status).toBe(400);
		expect(response.json).toMatchObject({ success: false, error_code: 'VALIDATION_ERROR' });
		expect(response.json.details).toHaveProperty(field);
	});

	it('limit 100 and limit 1 are accepted', async () => {
		expect((await list('/money/v1/charge?limit=100')).json.data).toHaveLength(40);
		expect((await list('/money/v1/charge?limit=1')).json.data).toHaveLength(1);
	});

	it('is scoped to the calling client', async () => {
		const other = new ApiTestClient(sandbox, { clientId: SECONDARY_CLIENT_ID, clientSecret: 'sandbox-only-client-secret-2', apiKey: 'sandbox-only-api-key-2', hmacSecret: 'sandbox-only-hmac-secret-2' });
		expect((await other.call('GET', '/money/v1/charge')).json.pagination.total).toBe(0);
	});

	it('a newly created charge comes first', async () => {
		const created = await api.call('POST', '/money/v1/charge', { body: chargeBody() });
		expect((await list('/money/v1/charge?limit=1')).json.data[0].reference).toBe(created.json.reference);
	});
});

describe('a large seeded ledger', () => {
	let sandbox: Sandbox;
	beforeAll(async () => (sandbox = await startTestSandbox()));
	afterAll(() => sandbox.close());

	it('serves 100,000 seeded charges with pagination and filters', async () => {
		const api = new ApiTestClient(sandbox);
		await sandbox.control.seed({ resource: 'charge', count: 100_000 });
		const first = await api.call('GET', '/money/v1/charge?limit=100');
		expect(first.json.pagination).toEqual({ page: 1, limit: 100, total: 100_000, pages: 1000 });
		const last = await api.call('GET', '/money/v1/charge?limit=100&page=1000');
		expect(last.json.data).toHaveLength(100);
		const completed = await api.call('GET', '/money/v1/charge?status=COMPLETED&page=250&limit=100');
		expect(completed.json.pagination.total).toBe(25_000);
		expect(completed.json.data).toHaveLength(100);
	});
});

describe('transaction details and account (spec 2.6, 2.7, 4 rules 4-5)', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;
	useTestSandbox('all', (started) => ({ sandbox, api } = started), { config: { paymentLinkBase: 'https://pay.example.test/w/' } });

	it('details by reference: a flat body beside success and message', async () => {
		const created = await api.call('POST', '/money/v1/charge', { body: chargeBody({ message: 'for order 7' }) });
		const response = await api.call('GET', `/money/v1/transaction-details/${created.json.reference}`);
		expect(response.status).toBe(200);
		expect(response.json).toMatchObject({
			success: true,
			message: expect.any(String),
			...pendingChargeEnvelope(sandbox, created.json.reference, 'for order 7'),
			created_at: expect.any(String),
		});
		expect(response.json).not.toHaveProperty('data');
	});

	it('details by unique_id, for a payout too', async () => {
		const created = await api.call('POST', '/money/v1/payout', { body: payoutBody() });
		const read = await api.call('GET', `/money/v1/payout/${created.json.reference}`);
		const response = await api.call('GET', `/money/v1/transaction-details/${read.json.data.unique_id}`);
		expect(response.json).toMatchObject({ success: true, reference: created.json.reference, type: 'payout', amount: { value: -2500 } });
	});

	it('404 transaction_not_found when unknown or another client', async () => {
		const unknown = await api.call('GET', '/money/v1/transaction-details/TXN-NOPE');
		expect(unknown.status).toBe(404);
		expect(unknown.json).toEqual({ success: false, message: expect.any(String), error_code: 'transaction_not_found' });
		const other = new ApiTestClient(sandbox, { clientId: SECONDARY_CLIENT_ID, clientSecret: 'sandbox-only-client-secret-2', apiKey: 'sandbox-only-api-key-2', hmacSecret: 'sandbox-only-hmac-secret-2' });
		const theirs = await other.call('POST', '/money/v1/charge', { body: chargeBody({ pin: '5678' }) });
		expect((await api.call('GET', `/money/v1/transaction-details/${theirs.json.reference}`)).json.error_code).toBe('transaction_not_found');
	});

	it('400 validation_failed for a malformed transaction id', async () => {
		const response = await api.call('GET', `/money/v1/transaction-details/${'x'.repeat(129)}`);
		expect(response.status).toBe(400);
		expect(response.json).toEqual({ success: false, message: expect.any(String), error_code: 'validation_failed' });
	});

	it('account: the flat merchant profile with its primary wallet', async () => {
		const response = await api.call('GET', '/money/v1/account');
		expect(response.status).toBe(200);
		expect(response.json).toEqual({
			success: true,
			message: expect.any(String),
			id: 'MRC-10001',
			name: 'Sandbox Merchant 1',
			type: 'business',
			status: 'active',
			country_code: 'TG',
			phone_number: expect.any(String),
			account: {
				number: sandbox.info.merchantAccountNumber,
				balance: { value: expect.any(Number), currency: 'XOF' },
				primary: true,
				payment_link: `https://pay.example.test/w/${sandbox.info.merchantAccountNumber}`,
			},
			created_at: expect.any(String),
			updated_at: expect.any(String),
		});
	});
});

describe('envelopes without updated_at (SandboxConfig.envelopeUpdatedAt false)', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('all', (started) => ({ sandbox, api } = started), { config: { envelopeUpdatedAt: false } });

	it('lists and reads charges and payouts with created_at and no updated_at', async () => {
		await sandbox.control.seed({ resource: 'payout', count: 2, status: 'REVERSED' });
		const listed = await api.call('GET', '/money/v1/payout');
		expect(listed.json.data).toHaveLength(2);
		for (const envelope of listed.json.data) {
			expect(envelope.created_at).toEqual(expect.any(String));
			expect(envelope).not.toHaveProperty('updated_at');
		}
		const read = await api.call('GET', `/money/v1/payout/${listed.json.data[0].reference}`);
		expect(read.json.data).not.toHaveProperty('updated_at');
	});
});

describe('list rows without metadata (SandboxConfig.listRowMetadata false)', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('all', (started) => ({ sandbox, api } = started), { config: { listRowMetadata: false } });

	it('lists charges without metadata and still reads it with Get', async () => {
		await sandbox.control.seed({ resource: 'charge', count: 2, status: 'COMPLETED', metadata: { n8n_business_reference: 'ord-1' } });
		const listed = await api.call('GET', '/money/v1/charge');
		expect(listed.json.data).toHaveLength(2);
		for (const envelope of listed.json.data) expect(envelope).not.toHaveProperty('metadata');
		const read = await api.call('GET', `/money/v1/charge/${listed.json.data[0].reference}`);
		expect(read.json.data.metadata).toEqual({ n8n_business_reference: 'ord-1' });
	});
});

describe('timestamps without a zone designator (SandboxConfig.naiveTimestampsOffsetMinutes)', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('all', (started) => ({ sandbox, api } = started), { config: { naiveTimestampsOffsetMinutes: 60 } });

	it('writes the wall time of UTC+1 without a zone and reads zoneless list bounds in it, zoned ones as instants', async () => {
		await sandbox.control.seed({ resource: 'charge', count: 3, status: 'COMPLETED', createdAtFrom: '2024-03-01T10:00:00Z', createdAtTo: '2024-03-01T12:00:00Z' });
		const createdAt = async (query: string) =>
			(await api.call('GET', `/money/v1/charge?${query}`)).json.data.map((envelope: { created_at: string }) => envelope.created_at);
		expect(await createdAt('start_date=2024-03-01T12:00:00.000')).toEqual(['2024-03-01T13:00:00.000', '2024-03-01T12:00:00.000']);
		expect(await createdAt('start_date=2024-03-01T12:00:00.000Z')).toEqual(['2024-03-01T13:00:00.000']);
	});
});

describe('list bounds that exclude their own instant (SandboxConfig.listBoundsExclusive)', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('all', (started) => ({ sandbox, api } = started), { config: { listBoundsExclusive: true } });

	it('leaves out a transaction created exactly at start_date or end_date', async () => {
		await sandbox.control.seed({ resource: 'charge', count: 3, status: 'COMPLETED', createdAtFrom: '2024-03-01T10:00:00Z', createdAtTo: '2024-03-01T12:00:00Z' });
		const listed = await api.call('GET', '/money/v1/charge?start_date=2024-03-01T10:00:00Z&end_date=2024-03-01T12:00:00Z');
		expect(listed.json.data.map((envelope: { created_at: string }) => envelope.created_at)).toEqual(['2024-03-01T11:00:00.000Z']);
	});
});

describe('created_at written to the second, stored and compared to the millisecond (SandboxConfig.createdAtWrittenToSecond)', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('all', (started) => ({ sandbox, api } = started), { config: { createdAtWrittenToSecond: true } });

	const seedAt = async (...instants: string[]) => {
		for (const instant of instants) await sandbox.control.seed({ resource: 'charge', count: 1, status: 'COMPLETED', createdAtFrom: instant, createdAtTo: instant });
	};
	const createdAt = async (query: string) => (await api.call('GET', `/money/v1/charge?${query}`)).json.data.map((envelope: { created_at: string }) => envelope.created_at);

	it('writes created_at without its fraction, and end_date at a second lists only those of that second stored at its whole millisecond', async () => {
		await seedAt('2024-03-01T10:00:00.000Z', '2024-03-01T10:00:00.400Z', '2024-03-01T10:00:01.000Z', '2024-03-01T10:00:01.999Z');
		expect(await createdAt('')).toEqual(['2024-03-01T10:00:01Z', '2024-03-01T10:00:01Z', '2024-03-01T10:00:00Z', '2024-03-01T10:00:00Z']);
		expect(await createdAt('end_date=2024-03-01T10:00:00Z')).toEqual(['2024-03-01T10:00:00Z']);
		expect(await createdAt('end_date=2024-03-01T10:00:01Z')).toEqual(['2024-03-01T10:00:01Z', '2024-03-01T10:00:00Z', '2024-03-01T10:00:00Z']);
		expect(await createdAt('start_date=2024-03-01T10:00:00.001Z')).toEqual(['2024-03-01T10:00:01Z', '2024-03-01T10:00:01Z', '2024-03-01T10:00:00Z']);
	});
});

describe('created_at written to the second, compared to the millisecond by bounds that exclude their instant', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('all', (started) => ({ sandbox, api } = started), { config: { createdAtWrittenToSecond: true, listBoundsExclusive: true, naiveTimestampsOffsetMinutes: 60 } });

	it('writes the zoneless wall time to the second, and end_date at a second lists none of it, start_date all but its whole millisecond', async () => {
		for (const instant of ['2024-03-01T10:00:00.000Z', '2024-03-01T10:00:00.400Z', '2024-03-01T10:00:01.250Z']) {
			await sandbox.control.seed({ resource: 'charge', count: 1, status: 'COMPLETED', createdAtFrom: instant, createdAtTo: instant });
		}
		const createdAt = async (query: string) => (await api.call('GET', `/money/v1/charge?${query}`)).json.data.map((envelope: { created_at: string }) => envelope.created_at);
		expect(await createdAt('')).toEqual(['2024-03-01T11:00:01', '2024-03-01T11:00:00', '2024-03-01T11:00:00']);
		expect(await createdAt('end_date=2024-03-01T11:00:01')).toEqual(['2024-03-01T11:00:00', '2024-03-01T11:00:00']);
		expect(await createdAt('end_date=2024-03-01T11:00:00')).toEqual([]);
		expect(await createdAt('start_date=2024-03-01T11:00:00')).toEqual(['2024-03-01T11:00:01', '2024-03-01T11:00:00']);
	});
});

describe('ties ordered differently from one list request to the next (SandboxConfig.listTieOrder alternating)', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('all', (started) => ({ sandbox, api } = started), { config: { listTieOrder: 'alternating' } });

	it('reverses transactions created at the same instant on every other request, and keeps newest first', async () => {
		await sandbox.control.seed({ resource: 'charge', count: 3, status: 'COMPLETED', createdAtFrom: '2024-03-01T10:00:00Z', createdAtTo: '2024-03-01T10:00:00Z' });
		await sandbox.control.seed({ resource: 'charge', count: 1, status: 'COMPLETED', createdAtFrom: '2024-03-01T11:00:00Z', createdAtTo: '2024-03-01T11:00:00Z' });
		const references = async () => (await api.call('GET', '/money/v1/charge')).json.data.map((envelope: { reference: string }) => envelope.reference);
		const first = await references();
		const second = await references();
		expect(second).toEqual([first[0], ...first.slice(1).reverse()]);
		expect(await references()).toEqual(first);
	});
});

describe('ties shuffled on every list request (SandboxConfig.listTieOrder shuffled, switched at run time)', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('all', (started) => ({ sandbox, api } = started));

	it('lists transactions of one instant in more than one order over a few requests, and keeps newest first', async () => {
		await sandbox.control.seed({ resource: 'charge', count: 20, status: 'COMPLETED', createdAtFrom: '2024-03-01T10:00:00Z', createdAtTo: '2024-03-01T10:00:00Z' });
		await sandbox.control.seed({ resource: 'charge', count: 1, status: 'COMPLETED', createdAtFrom: '2024-03-01T11:00:00Z', createdAtTo: '2024-03-01T11:00:00Z' });
		const references = async () => (await api.call('GET', '/money/v1/charge?limit=100')).json.data.map((envelope: { reference: string }) => envelope.reference);
		const stable = await references();
		await sandbox.control.setListTieOrder('shuffled');
		const orders = [await references(), await references(), await references()];
		expect(orders.every((order) => order[0] === stable[0] && new Set(order).size === 21 && [...order].sort().join() === [...stable].sort().join())).toBe(true);
		expect(new Set(orders.map((order) => order.join())).size).toBeGreaterThan(1);
		await sandbox.control.setListTieOrder('stable');
		expect(await references()).toEqual(stable);
	});
});


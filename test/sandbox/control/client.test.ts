import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Sandbox } from '../../../sandbox';
import { SandboxControlClient, SandboxControlError } from '../../../sandbox/control/client';
import { ApiTestClient, chargeBody, payoutBody, rawRequest, startTestSandbox, useTestSandbox } from '../helpers';

describe('control API over HTTP (SandboxControlClient)', () => {
	let sandbox: Sandbox;
	let control: SandboxControlClient;
	let api: ApiTestClient;

	useTestSandbox('each', (started) => ({ sandbox, api } = started));
	beforeEach(() => (control = new SandboxControlClient(sandbox.info.controlUrl)));

	it('health and info', async () => {
		expect(await control.health()).toMatchObject({ ok: true, transactions: 0 });
		expect(await control.info()).toEqual(sandbox.info);
	});

	it('switches how a repeated idempotency key is compared (raw bytes by default, or fields)', async () => {
		expect((await control.health()).idempotencyFingerprint).toBe('raw');
		await control.setIdempotencyFingerprint('semantic');
		expect((await control.health()).idempotencyFingerprint).toBe('semantic');
		await expect(control.setIdempotencyFingerprint('loose' as never)).rejects.toThrow(SandboxControlError);
	});

	it('counters: token requests, requests per slug, creates per idempotency key, accepted and 401s; reset', async () => {
		await api.call('POST', '/money/v1/charge', { body: chargeBody(), idempotencyKey: 'key-1' });
		await api.call('POST', '/money/v1/charge', { body: chargeBody(), idempotencyKey: 'key-1' });
		await api.call('GET', '/money/v1/charge', { sign: false });
		const counters = await control.counters();
		expect(counters).toMatchObject({
			tokenRequests: 1,
			requests: { post_money_v1_charge: 2, get_money_v1_charge_list: 1 },
			createsByIdempotencyKey: { 'key-1': 1 },
			idempotentReplays: 1,
			accepted: 2,
			rejected401: 1,
		});
		await control.resetCounters();
		expect(await control.counters()).toMatchObject({ tokenRequests: 0, requests: {}, accepted: 0, rejected401: 0 });
	});

	it('ledger, setStatus and transitions over HTTP', async () => {
		const created = await api.call('POST', '/money/v1/payout', { body: payoutBody({ amount: 1000 }) });
		const ledger = await control.ledger();
		expect(ledger.payouts).toEqual([expect.objectContaining({ reference: created.json.reference, client_id: sandbox.info.clientId })]);
		expect(ledger.balance).toEqual({ value: 10_000_000 - 1000, currency: 'XOF' });
		expect((await control.setStatus(created.json.reference, 'COMPLETED')).status.label).toBe('COMPLETED');
		expect((await control.setStatus(created.json.reference, 'REVERSED')).status).toEqual({ code: 4, label: 'REVERSED' });
		await expect(control.setStatus(created.json.reference, 'COMPLETED')).rejects.toMatchObject({ status: 409, code: 'invalid_transition' });
		await expect(control.setStatus('nope', 'COMPLETED')).rejects.toBeInstanceOf(SandboxControlError);
	});

	it('updateClient and getClient', async () => {
		const view = await control.updateClient(sandbox.info.clientId, { limits: { velocityLimit: 5 }, balance: 42 });
		expect(view.limits).toMatchObject({ velocityLimit: 5, velocityWindowSeconds: 300, minAmount: 100 });
		expect((await control.getClient(sandbox.info.clientId)).wallets[0]).toMatchObject({ balance: 42, primary: true });
		await expect(control.updateClient('nobody', {})).rejects.toMatchObject({ status: 404 });
		await expect(control.updateClient(sandbox.info.clientId, { clientSecret: 'stolen' } as never)).rejects.toMatchObject({ status: 400 });
	});

	it('revokeTokens and setRevokeEvery', async () => {
		await api.fetchToken();
		await control.revokeTokens(sandbox.info.clientId);
		expect((await api.call('GET', '/money/v1/account')).status).toBe(401);
		await api.fetchToken();
		await control.setRevokeEvery(1);
		expect((await api.call('GET', '/money/v1/account')).status).toBe(200);
		expect((await api.call('GET', '/money/v1/account')).status).toBe(401);
		await control.setRevokeEvery(null);
		await api.fetchToken();
		expect((await api.call('GET', '/money/v1/account')).status).toBe(200);
		expect((await api.call('GET', '/money/v1/account')).status).toBe(200);
	});

	it('seed validates its input', async () => {
		expect(await control.seed({ resource: 'payout', count: 3, status: 'REVERSED' })).toEqual({ count: 3 });
		await expect(control.seed({ resource: 'charge', count: 3, status: 'REVERSED' })).rejects.toMatchObject({ status: 400 });
		await expect(control.seed({ resource: 'refund' as never, count: 3 })).rejects.toMatchObject({ status: 400 });
		await expect(control.seed({ resource: 'charge', count: 1, amount: 12.5 })).rejects.toMatchObject({ status: 400 });
		await expect(control.seed({ resource: 'charge', count: 1, metadata: ['x'] as never })).rejects.toMatchObject({ status: 400 });
	});

	it('seeds a given amount and metadata', async () => {
		const at = '2020-02-02T10:00:00.000Z';
		await control.seed({ resource: 'charge', count: 2, amount: 4200, metadata: { order: 'A-1' }, createdAtFrom: at, createdAtTo: at });
		const seeded = (await control.ledger()).charges.filter((entry) => entry.created_at === at);
		expect(seeded.map((entry) => [entry.amount.value, entry.metadata])).toEqual([
			[4200, { order: 'A-1' }],
			[4200, { order: 'A-1' }],
		]);
	});

	it('setClockOffset and setFinalizeAfter', async () => {
		await control.setClockOffset(-1000);
		const response = await api.call('GET', '/money/v1/account');
		expect(response.status).toBe(401);
		expect(Date.now() - Date.parse(String(response.headers.date))).toBeGreaterThan(900_000);
		await control.setClockOffset(0);
		await control.setFinalizeAfter(0);
		const created = await api.call('POST', '/money/v1/charge', { body: chargeBody() });
		let label = 'PENDING';
		for (let attempt = 0; attempt < 200 && label === 'PENDING'; attempt++) {
			await new Promise((resolve) => setTimeout(resolve, 10));
			label = (await api.call('GET', `/money/v1/charge/${created.json.reference}`)).json.data.status.label;
		}
		expect(label).toBe('COMPLETED');
	});

	it('control is not under the API auth, answers JSON errors, and unknown control routes 404', async () => {
		expect((await rawRequest({ origin: sandbox.info.controlUrl, method: 'GET', path: '/_control/nothing' })).status).toBe(404);
		const badJson = await rawRequest({ origin: sandbox.info.controlUrl, method: 'POST', path: '/_control/faults', body: '{' });
		expect(badJson.status).toBe(400);
		expect(badJson.json.error).toBe('invalid_json');
	});

	it('the ledger reports idempotency keys so tests can assert exactly-once', async () => {
		await api.call('POST', '/money/v1/charge', { body: chargeBody(), idempotencyKey: 'order-77' });
		expect((await control.ledger()).charges.map((charge) => charge.idempotency_key)).toEqual(['order-77']);
	});
});

describe('memory bounds', () => {
	it('the idempotency store is a bounded LRU: the oldest key is forgotten', async () => {
		const sandbox = await startTestSandbox({ config: { idempotencyCapacity: 2 } });
		try {
			const api = new ApiTestClient(sandbox);
			const first = await api.call('POST', '/money/v1/charge', { body: chargeBody(), idempotencyKey: 'a' });
			await api.call('POST', '/money/v1/charge', { body: chargeBody(), idempotencyKey: 'b' });
			await api.call('POST', '/money/v1/charge', { body: chargeBody(), idempotencyKey: 'c' });
			expect((await sandbox.control.health()).idempotencyRecords).toBe(2);
			const again = await api.call('POST', '/money/v1/charge', { body: chargeBody(), idempotencyKey: 'a' });
			expect(again.json.reference).not.toBe(first.json.reference);
			expect(Object.keys((await sandbox.control.counters()).createsByIdempotencyKey).length).toBeLessThanOrEqual(2);
		} finally {
			await sandbox.close();
		}
	});
});

/** What the client took over from the scripts' former JavaScript copy: `call`, a per-call bound, tolerant parsing. */
describe('SandboxControlClient: call, timeout, answers that are not JSON', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startTestSandbox();
	});
	afterAll(() => sandbox.close());

	it('call reaches any control route (here the one behind setRevokeEvery)', async () => {
		const control = new SandboxControlClient(`${sandbox.info.controlUrl}/`);
		await control.call('PUT', '/revoke-every', { every: null });
		expect(await control.call('GET', '/health')).toMatchObject({ ok: true });
		await expect(control.call('GET', '/nothing')).rejects.toMatchObject({ status: 404 });
	});

	describe('against a stand-in server', () => {
		let server: Server;
		let url: string;
		beforeAll(async () => {
			server = createServer((request, response) => {
				if (request.url === '/_control/hang') return;
				if (request.url === '/_control/text') return void response.writeHead(502).end('bad gateway');
				response.writeHead(200).end('plain words');
			});
			await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
			url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/_control`;
		});
		afterAll(async () => {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		});

		it('aborts a call that outlives timeoutMs', async () => {
			await expect(new SandboxControlClient(url, { timeoutMs: 50 }).call('GET', '/hang')).rejects.toThrow(/abort|timeout/i);
		});

		it('a text answer resolves as text; a text error rejects with its status and text', async () => {
			const control = new SandboxControlClient(url);
			expect(await control.call('GET', '/words')).toBe('plain words');
			const refused = control.call('GET', '/text');
			await expect(refused).rejects.toBeInstanceOf(SandboxControlError);
			await expect(refused).rejects.toMatchObject({ status: 502, code: 'error', message: expect.stringContaining('bad gateway') });
		});
	});
});

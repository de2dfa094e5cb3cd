import type { Sandbox } from '../../../sandbox';
import { ApiTestClient, chargeBody, rawRequest, useTestSandbox } from '../helpers';
import { specBodyHash, specSignature } from '../signer';

/** Computed by hand in a shell with python3 hmac/hashlib (and the empty-body hash also with `openssl dgst -sha256 -hmac ''`). */
const VECTOR = {
	secret: 'sandbox-only-hmac-secret-1',
	timestamp: '1700000000',
	post: {
		path: '/money/v1/charge',
		body: '{"amount":1000,"currency":"XOF"}',
		bodyHash: 'e9d1201bce542c4b25f755f2783cde3d1fdd7ce404ff5460ead8b708927963ae',
		signature: '86a2aa93999fb2dffa82baed43c3c788207d4bfcea60ec3f921281feede7d363',
	},
	get: {
		path: '/money/v1/charge?page=2&limit=5',
		emptyBodyHash: '140b47411f10521cc48851f43c9abe73016e1d45627c8523d25cbf7fe64f8b03',
		signature: 'aea8283e39a312e5e63a7aaa149d71ae8e81586357cf92ffa0d175f19eb17579',
	},
};

describe('request signature (spec 5.3)', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('all', (started) => ({ sandbox, api } = started));
	afterEach(() => sandbox.control.setClockOffset(0));

	it('the test signer reproduces the hand-computed vector', () => {
		expect(specBodyHash(VECTOR.post.body)).toBe(VECTOR.post.bodyHash);
		expect(specSignature(VECTOR.secret, VECTOR.timestamp, 'POST', VECTOR.post.path, VECTOR.post.body)).toBe(VECTOR.post.signature);
		expect(specBodyHash(undefined)).toBe(VECTOR.get.emptyBodyHash);
		expect(specSignature(VECTOR.secret, VECTOR.timestamp, 'get', VECTOR.get.path)).toBe(VECTOR.get.signature);
	});

	it('the sandbox accepts the literal vector signature when its clock reads the vector time', async () => {
		await sandbox.control.setClockOffset(Number(VECTOR.timestamp) - Date.now() / 1000);
		const token = await new ApiTestClient(sandbox).fetchToken();
		const response = await rawRequest({
			origin: sandbox.info.baseUrl,
			method: 'GET',
			path: VECTOR.get.path,
			headers: { authorization: `Bearer ${token}`, 'x-timestamp': VECTOR.timestamp, 'x-hmac-signature': VECTOR.get.signature },
		});
		expect(response.status).toBe(200);
		expect(response.json.pagination).toMatchObject({ page: 2, limit: 5 });
	});

	it('hashes a missing body as the two-character string "" and not as an empty string', async () => {
		const timestamp = String(Math.floor(Date.now() / 1000));
		const { createHmac } = await import('node:crypto');
		const zeroLengthHash = createHmac('sha256', '').update('').digest('hex');
		const canonical = `${timestamp}\nGET\n/money/v1/account\n${zeroLengthHash}`;
		const wrong = createHmac('sha256', sandbox.info.hmacSecret).update(canonical).digest('hex');
		const rejected = await api.call('GET', '/money/v1/account', { sign: false, headers: { 'x-timestamp': timestamp, 'x-hmac-signature': wrong } });
		expect(rejected.status).toBe(401);
		expect((await api.call('GET', '/money/v1/account')).status).toBe(200);
	});

	it('verifies the exact raw bytes, so unusual JSON formatting signed as sent is accepted', async () => {
		const rawBody = `{ "amount" : 5000,\n "currency":"XOF", "payer_identifier":{"identifier":"GM-1001","type":"gm_account"}, "channel":"psp-a-tg", "pin":"1234" }`;
		const response = await api.call('POST', '/money/v1/charge', { rawBody });
		expect(response.status).toBe(201);
	});

	it('rejects a body changed after signing', async () => {
		const signedBody = JSON.stringify(chargeBody());
		const timestamp = Math.floor(Date.now() / 1000);
		const response = await api.call('POST', '/money/v1/charge', {
			rawBody: JSON.stringify(chargeBody(), null, 1),
			sign: false,
			headers: { 'x-timestamp': String(timestamp), 'x-hmac-signature': specSignature(sandbox.info.hmacSecret, String(timestamp), 'POST', '/money/v1/charge', signedBody) },
		});
		expect(response.status).toBe(401);
		expect(response.json).toMatchObject({ success: false, error_code: 'unauthorized' });
	});

	it('rejects a signature over a dropped query string', async () => {
		const timestamp = String(Math.floor(Date.now() / 1000));
		const response = await api.call('GET', '/money/v1/charge?status=PENDING', {
			sign: false,
			headers: { 'x-timestamp': timestamp, 'x-hmac-signature': specSignature(sandbox.info.hmacSecret, timestamp, 'GET', '/money/v1/charge') },
		});
		expect(response.status).toBe(401);
	});

	it('rejects a signature over a normalized path or reordered query', async () => {
		const timestamp = String(Math.floor(Date.now() / 1000));
		const reordered = await api.call('GET', '/money/v1/charge?limit=5&page=1', {
			sign: false,
			headers: { 'x-timestamp': timestamp, 'x-hmac-signature': specSignature(sandbox.info.hmacSecret, timestamp, 'GET', '/money/v1/charge?page=1&limit=5') },
		});
		expect(reordered.status).toBe(401);
		const encoded = await api.call('GET', '/money/v1/charge/chg%5Fmissing', {
			sign: false,
			headers: { 'x-timestamp': timestamp, 'x-hmac-signature': specSignature(sandbox.info.hmacSecret, timestamp, 'GET', '/money/v1/charge/chg_missing') },
		});
		expect(encoded.status).toBe(401);
		const signedAsSent = await api.call('GET', '/money/v1/charge/chg%5Fmissing');
		expect(signedAsSent.status).toBe(404);
		expect(signedAsSent.json.error_code).toBe('CHARGE_NOT_FOUND');
	});

	it('rejects a wrong secret, a missing signature and a non-numeric timestamp', async () => {
		expect((await api.call('GET', '/money/v1/charge', { hmacSecret: 'not-the-secret' })).status).toBe(401);
		expect((await api.call('GET', '/money/v1/charge', { sign: false })).status).toBe(401);
		const badTimestamp = await api.call('GET', '/money/v1/account', { sign: false, headers: { 'x-timestamp': 'yesterday', 'x-hmac-signature': 'ab' } });
		expect(badTimestamp.status).toBe(401);
		expect(badTimestamp.json).toEqual({ success: false, message: expect.any(String), error_code: 'unauthenticated' });
	});

	it('accepts timestamps within 300 s and rejects those beyond, both directions', async () => {
		const now = Math.floor(Date.now() / 1000);
		expect((await api.call('GET', '/money/v1/charge', { timestamp: now - 240 })).status).toBe(200);
		expect((await api.call('GET', '/money/v1/charge', { timestamp: now + 240 })).status).toBe(200);
		expect((await api.call('GET', '/money/v1/charge', { timestamp: now - 360 })).status).toBe(401);
		expect((await api.call('GET', '/money/v1/account', { timestamp: now + 360 })).json.error_code).toBe('unauthenticated');
	});

	it('a shifted server clock moves the Date header and the window (clock skew, D5)', async () => {
		await sandbox.control.setClockOffset(600);
		const response = await api.call('GET', '/money/v1/charge');
		expect(response.status).toBe(401);
		const serverDate = Date.parse(String(response.headers.date));
		expect(serverDate - Date.now()).toBeGreaterThan(500_000);
		const signedWithServerTime = await api.call('GET', '/money/v1/charge', { timestamp: Math.floor(serverDate / 1000) });
		expect(signedWithServerTime.status).toBe(200);
	});
});

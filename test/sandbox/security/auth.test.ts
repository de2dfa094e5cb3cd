import { SECONDARY_CLIENT_ID, type Sandbox } from '../../../sandbox';
import { ApiTestClient, chargeBody, rawRequest, startTestSandbox, useTestSandbox } from '../helpers';

const tokenRequest = (sandbox: Sandbox, body: unknown) =>
	rawRequest({ origin: sandbox.info.authUrl, method: 'POST', path: '/oauth2/token', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('token host (spec 5.2, D3)', () => {
	let sandbox: Sandbox;
	beforeAll(async () => (sandbox = await startTestSandbox({ tokenTtlSeconds: 1800 })));
	afterAll(() => sandbox.close());

	it('issues a bearer token with the spec fields and counts the request', async () => {
		await sandbox.control.resetCounters();
		const response = await tokenRequest(sandbox, { grant_type: 'client_credentials', client_id: sandbox.info.clientId, client_secret: sandbox.info.clientSecret });
		expect(response.status).toBe(200);
		expect(response.json).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 1800, created_at: expect.any(String) });
		expect(Number.isNaN(Date.parse(response.json.created_at))).toBe(false);
		expect(response.headers.date).toBeDefined();
		expect((await sandbox.control.counters()).tokenRequests).toBe(1);
	});

	it('answers 400 invalid_grant for another grant type', async () => {
		const response = await tokenRequest(sandbox, { grant_type: 'password', client_id: sandbox.info.clientId, client_secret: sandbox.info.clientSecret });
		expect(response.status).toBe(400);
		expect(response.json).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
	});

	it('answers 401 invalid_client for wrong or missing credentials', async () => {
		const wrong = await tokenRequest(sandbox, { grant_type: 'client_credentials', client_id: sandbox.info.clientId, client_secret: 'nope' });
		expect(wrong.status).toBe(401);
		expect(wrong.json.error).toBe('invalid_client');
		const missing = await tokenRequest(sandbox, { grant_type: 'client_credentials' });
		expect(missing.status).toBe(401);
		expect(missing.json.error).toBe('invalid_client');
	});
});

describe('API authentication and authorization (spec 5.1, 5.2, 5.7)', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('each', (started) => ({ sandbox, api } = started));

	it('401 without credentials, in each envelope family, with a Date header', async () => {
		const charge = await api.call('GET', '/money/v1/charge', { auth: 'none' });
		expect(charge.status).toBe(401);
		expect(charge.json).toMatchObject({ success: false, error_code: 'unauthorized' });
		expect(charge.headers.date).toBeDefined();
		const account = await api.call('GET', '/money/v1/account', { auth: 'none' });
		expect(account.status).toBe(401);
		expect(account.json).toEqual({ success: false, message: expect.any(String), error_code: 'unauthenticated' });
	});

	it('401 for an unknown token', async () => {
		const response = await api.call('GET', '/money/v1/charge', { auth: 'none', headers: { authorization: 'Bearer not-a-token' } });
		expect(response.status).toBe(401);
	});

	it('401 for an expired token', async () => {
		await api.fetchToken();
		await sandbox.control.setClockOffset(3601);
		const serverNow = Math.floor(Date.now() / 1000) + 3601;
		const response = await api.call('GET', '/money/v1/charge', { timestamp: serverNow });
		expect(response.status).toBe(401);
		expect(response.json.message).toMatch(/expired/);
	});

	it('x-api-key authenticates alone (still signed)', async () => {
		expect((await api.call('GET', '/money/v1/account', { auth: 'api-key' })).status).toBe(200);
		expect((await api.call('GET', '/money/v1/account', { auth: 'api-key', sign: false })).status).toBe(401);
		expect((await api.call('GET', '/money/v1/account', { auth: 'none', headers: { 'x-api-key': 'wrong' } })).status).toBe(401);
	});

	it('the bearer token wins when both credentials are present', async () => {
		const response = await api.call('GET', '/money/v1/account', { auth: 'api-key', headers: { authorization: 'Bearer revoked-or-unknown' } });
		expect(response.status).toBe(401);
	});

	it('revoked tokens answer 401 and a new token works', async () => {
		await api.fetchToken();
		await sandbox.control.revokeTokens(sandbox.info.clientId);
		expect((await api.call('GET', '/money/v1/charge')).status).toBe(401);
		await api.fetchToken();
		expect((await api.call('GET', '/money/v1/charge')).status).toBe(200);
	});

	it('revokeEvery N revokes the client tokens after every N calls', async () => {
		await sandbox.control.setRevokeEvery(3);
		await api.fetchToken();
		for (let call = 0; call < 3; call++) expect((await api.call('GET', '/money/v1/charge')).status).toBe(200);
		expect((await api.call('GET', '/money/v1/charge')).status).toBe(401);
		await api.fetchToken();
		expect((await api.call('GET', '/money/v1/charge')).status).toBe(200);
	});

	it('a missing slug entitlement gives 403 SEC_ENDPOINT_NOT_AUTHORIZED, or forbidden on lower-case routes; tokens carry the access they were issued with', async () => {
		await api.fetchToken();
		await sandbox.control.updateClient(sandbox.info.clientId, { entitlements: ['get_money_v1_charge_list'] });
		expect((await api.call('POST', '/money/v1/charge', { body: chargeBody() })).status).toBe(201);
		await api.fetchToken();
		const charge = await api.call('POST', '/money/v1/charge', { body: chargeBody() });
		expect(charge.status).toBe(403);
		expect(charge.json).toMatchObject({ success: false, error_code: 'SEC_ENDPOINT_NOT_AUTHORIZED' });
		const account = await api.call('GET', '/money/v1/account');
		expect(account.status).toBe(403);
		expect(account.json.error_code).toBe('forbidden');
		expect((await api.call('GET', '/money/v1/charge')).status).toBe(200);
		expect((await api.call('GET', '/money/v1/account', { auth: 'api-key' })).json.error_code).toBe('forbidden');
	});

	it('checks entitlement before the signature, and the signature before merchant linkage (5.7 order)', async () => {
		await sandbox.control.updateClient(sandbox.info.clientId, { entitlements: [], linked: false });
		expect((await api.call('GET', '/money/v1/charge', { sign: false })).status).toBe(403);
		await sandbox.control.updateClient(sandbox.info.clientId, { entitlements: ['get_money_v1_charge_list'] });
		await api.fetchToken();
		expect((await api.call('GET', '/money/v1/charge', { sign: false })).status).toBe(401);
		const linked = await api.call('GET', '/money/v1/charge');
		expect(linked.status).toBe(403);
		expect(linked.json.error_code).toBe('SEC_ENDPOINT_NOT_AUTHORIZED');
	});

	it.each([
		[{ linked: false }, 403, 'SEC_ENDPOINT_NOT_AUTHORIZED', 'merchant_not_linked'],
		[{ merchantResolvable: false }, 403, 'MERCHANT_NOT_RESOLVED', 'merchant_not_resolved'],
		[{ hasPrimaryWallet: false }, 400, 'MERCHANT_ACCOUNT_NOT_CONFIGURED', 'merchant_account_not_configured'],
		[{ profileIncomplete: true }, 400, 'MERCHANT_PROFILE_INCOMPLETE', 'merchant_profile_incomplete'],
	])('merchant linkage %j gives %i %s / %s', async (patch, status, upperCode, lowerCode) => {
		await sandbox.control.updateClient(sandbox.info.clientId, patch);
		const charge = await api.call('POST', '/money/v1/charge', { body: chargeBody() });
		expect([charge.status, charge.json.error_code]).toEqual([status, upperCode]);
		const payouts = await api.call('GET', '/money/v1/payout');
		expect([payouts.status, payouts.json.error_code]).toEqual([status, upperCode]);
		const account = await api.call('GET', '/money/v1/account');
		expect(account.status).toBe(status);
		expect(account.json).toEqual({ success: false, message: expect.any(String), error_code: lowerCode });
		const details = await api.call('GET', '/money/v1/transaction-details/anything');
		expect([details.status, details.json.error_code]).toEqual([status, lowerCode]);
	});

	it('account answers 404 account_not_found when the wallet cannot be retrieved', async () => {
		await sandbox.control.updateClient(sandbox.info.clientId, { walletRetrievable: false });
		const response = await api.call('GET', '/money/v1/account');
		expect(response.status).toBe(404);
		expect(response.json).toEqual({ success: false, message: expect.any(String), error_code: 'account_not_found' });
	});

	it('a source-IP allowlist rejects other addresses with 403 forbidden', async () => {
		await sandbox.control.updateClient(sandbox.info.clientId, { ipAllowlist: ['10.9.8.7'] });
		const rejected = await api.call('GET', '/money/v1/account');
		expect(rejected.status).toBe(403);
		expect(rejected.json.error_code).toBe('forbidden');
		await sandbox.control.updateClient(sandbox.info.clientId, { ipAllowlist: ['127.0.0.1'] });
		expect((await api.call('GET', '/money/v1/account')).status).toBe(200);
	});

	it('a per-client rate limit answers 429 rate_limit_exceeded with Retry-After', async () => {
		await sandbox.control.updateClient(sandbox.info.clientId, { rateLimit: { requests: 2, windowSeconds: 60 } });
		expect((await api.call('GET', '/money/v1/charge')).status).toBe(200);
		expect((await api.call('GET', '/money/v1/charge')).status).toBe(200);
		const limited = await api.call('GET', '/money/v1/charge');
		expect(limited.status).toBe(429);
		expect(limited.json.error_code).toBe('rate_limit_exceeded');
		expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
	});

	it('unknown routes answer 404 not_found', async () => {
		const response = await api.call('GET', '/money/v1/nothing-here');
		expect(response.status).toBe(404);
		expect(response.json).toEqual({ success: false, message: expect.any(String), error_code: 'not_found' });
		expect((await api.call('DELETE', '/money/v1/charge')).status).toBe(404);
	});

	it('each client authenticates with its own credentials and secret', async () => {
		const other = new ApiTestClient(sandbox, {
			clientId: SECONDARY_CLIENT_ID,
			clientSecret: 'sandbox-only-client-secret-2',
			apiKey: 'sandbox-only-api-key-2',
			hmacSecret: 'sandbox-only-hmac-secret-2',
		});
		expect((await other.call('GET', '/money/v1/account')).json.account.number).toBe('WAL-XOF-200001');
		expect((await other.call('GET', '/money/v1/account', { hmacSecret: sandbox.info.hmacSecret })).status).toBe(401);
	});
});

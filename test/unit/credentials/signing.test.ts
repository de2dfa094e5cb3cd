import crypto from 'node:crypto';

import type { IHttpRequestOptions } from 'n8n-workflow';

import { MoneyApi, tokenEndpointOf } from '../../../credentials/MoneyApi.credentials';
import { canonicalRequestString, computeBodyHmacSignature, computeRequestSignature, EMPTY_BODY_STRING, hashBody, hexSignaturesEqual, isTimestampFresh } from '../../../credentials/signing/signature';
import { serializeQuery, signedPathOf } from '../../../credentials/signing/signRequest';

/*
 * Expected values were computed outside this code base, from the recipe in docs/signing.md, with
 * python3's hmac module:
 *   bodyHash  = hmac.new(b'', body, sha256).hexdigest()
 *   canonical = f"{ts}\n{METHOD}\n{path}\n{bodyHash}"
 *   signature = hmac.new(b'test-hmac-secret', canonical, sha256).hexdigest()
 * with ts = 1700000000.
 */
const HMAC_SECRET = 'test-hmac-secret';
const TIMESTAMP = 1700000000;
const EMPTY_BODY_HASH = '140b47411f10521cc48851f43c9abe73016e1d45627c8523d25cbf7fe64f8b03';
const GET_ACCOUNT_SIGNATURE = 'ed9c9dffc1b87976752626f38a05ebca54422dc694a37fd6088bb409b490ca97';
const LIST_QUERY =
	'page=2&limit=50&status=COMPLETED&start_date=2024-01-01T00%3A00%3A00.000Z';
const GET_LIST_SIGNATURE = '4729f01f47040696029eb88da450bf8c3306c3468e5efb7dc67994cdd6129f68';
const NON_ASCII_BODY = '{"amount":5000,"currency":"XOF","message":"Paiement reçu – merci ✓"}';
const NON_ASCII_BODY_HASH = '62ac2777c79ded83cf1f3c248d243b352a3d216818235d3105c76370c2df34a5';
const POST_PAYOUT_SIGNATURE = '3657f3f72952662a9d9936d168bd07fd57d56f3806167aa5ff91fdffea86fc35';

const credentialType = new MoneyApi();

function credentials(overrides: Record<string, string> = {}) {
	return {
		baseUrl: 'https://api.example.com',
		tokenUrl: 'https://auth.example.com',
		authentication: 'clientCredentials',
		clientId: 'client-1',
		clientSecret: 'client-secret-value',
		apiKey: '',
		hmacSecret: HMAC_SECRET,
		webhookSecret: 'webhook-secret-value',
		walletPinSecret: '1234',
		accessToken: 'access-token-value',
		...overrides,
	};
}

async function authenticate(
	request: Record<string, unknown>,
	overrides: Record<string, string> = {},
): Promise<IHttpRequestOptions & { uri?: string }> {
	return (await credentialType.authenticate(
		credentials(overrides),
		request as unknown as IHttpRequestOptions,
	)) as IHttpRequestOptions & { uri?: string };
}

beforeEach(() => {
	jest.spyOn(Date, 'now').mockReturnValue(TIMESTAMP * 1000 + 999);
});

afterEach(() => jest.restoreAllMocks());

describe('signature primitives (spec 5.3)', () => {
	it('hashes the two-character empty JSON string for a request without a body', () => {
		expect(EMPTY_BODY_STRING).toBe('""');
		expect(hashBody(EMPTY_BODY_STRING)).toBe(EMPTY_BODY_HASH);
	});

	it('builds the canonical string from timestamp, upper-case method, path and body hash', () => {
		expect(canonicalRequestString('1700000000', 'get', '/money/v1/account', '""')).toBe(
			`1700000000\nGET\n/money/v1/account\n${EMPTY_BODY_HASH}`,
		);
	});

	it('hashes non-ASCII bodies as UTF-8 bytes', () => {
		expect(hashBody(NON_ASCII_BODY)).toBe(NON_ASCII_BODY_HASH);
		expect(hashBody(Buffer.from(NON_ASCII_BODY, 'utf8'))).toBe(NON_ASCII_BODY_HASH);
		expect(
			computeRequestSignature(HMAC_SECRET, String(TIMESTAMP), 'POST', '/money/v1/payout', NON_ASCII_BODY),
		).toBe(POST_PAYOUT_SIGNATURE);
	});

	it('computes the body-hmac webhook scheme over timestamp + "." + raw body', () => {
		// python3: hmac.new(b'whsec', b'1700000000.{"id":"evt_1"}', sha256).hexdigest()
		expect(computeBodyHmacSignature('whsec', '1700000000', Buffer.from('{"id":"evt_1"}'))).toBe(
			'e7e846cdb96220c3674ade89e534304fc91f6f15064facee1e7a7096f5f57f62',
		);
	});

	it('compares signatures in constant time and rejects malformed ones', () => {
		expect(hexSignaturesEqual(GET_ACCOUNT_SIGNATURE, GET_ACCOUNT_SIGNATURE.toUpperCase())).toBe(true);
		expect(hexSignaturesEqual(GET_ACCOUNT_SIGNATURE, GET_LIST_SIGNATURE)).toBe(false);
		expect(hexSignaturesEqual(GET_ACCOUNT_SIGNATURE, GET_ACCOUNT_SIGNATURE.slice(2))).toBe(false);
		expect(hexSignaturesEqual(GET_ACCOUNT_SIGNATURE, 'zz' + GET_ACCOUNT_SIGNATURE.slice(2))).toBe(false);
		expect(hexSignaturesEqual(GET_ACCOUNT_SIGNATURE, '')).toBe(false);
	});

	it('accepts timestamps within 300 seconds only', () => {
		expect(isTimestampFresh('1700000000', 1700000300)).toBe(true);
		expect(isTimestampFresh('1700000000', 1700000301)).toBe(false);
		expect(isTimestampFresh('1700000301', 1700000000)).toBe(false);
		expect(isTimestampFresh('17e8', 1700000000)).toBe(false);
		expect(isTimestampFresh('', 1700000000)).toBe(false);
	});
});

describe('credential authenticate: hand-computed vectors', () => {
	it('signs a GET without a body', async () => {
		const signed = await authenticate({ method: 'GET', url: '/money/v1/account', json: true });
		expect(signed.url).toBe('https://api.example.com/money/v1/account');
		expect(signed.body).toBeUndefined();
		expect(signed.headers).toMatchObject({
			authorization: 'Bearer access-token-value',
			'x-timestamp': String(TIMESTAMP),
			'x-hmac-signature': GET_ACCOUNT_SIGNATURE,
		});
	});

	it('signs a GET with a query string, folded into the URL exactly as signed', async () => {
		const signed = await authenticate({
			method: 'GET',
			url: '/money/v1/charge',
			qs: { page: 2, limit: 50, status: 'COMPLETED', start_date: '2024-01-01T00:00:00.000Z' },
			json: true,
		});
		expect(signed.url).toBe(`https://api.example.com/money/v1/charge?${LIST_QUERY}`);
		expect(signed.qs).toBeUndefined();
		expect(signed.headers?.['x-hmac-signature']).toBe(GET_LIST_SIGNATURE);
	});

	it('signs a POST body with non-ASCII text, and sends the very string it signed', async () => {
		const signed = await authenticate({
			method: 'POST',
			url: '/money/v1/payout',
			body: { amount: 5000, currency: 'XOF', message: 'Paiement reçu – merci ✓' },
			json: true,
		});
		expect(signed.body).toBe(NON_ASCII_BODY);
		expect(signed.headers?.['x-hmac-signature']).toBe(POST_PAYOUT_SIGNATURE);
		expect(signed.headers?.['content-type']).toBe('application/json');
	});

	it('leaves a gateway prefix of the base URL out of the signed path', async () => {
		const signed = await authenticate(
			{ method: 'GET', url: '/money/v1/account', json: true },
			{ baseUrl: 'https://gw.example.com/partner/' },
		);
		expect(signed.url).toBe('https://gw.example.com/partner/money/v1/account');
		expect(signed.headers?.['x-hmac-signature']).toBe(GET_ACCOUNT_SIGNATURE);
	});

	it('sends x-api-key instead of a bearer token for an API-key credential', async () => {
		const signed = await authenticate(
			{ method: 'GET', url: '/money/v1/account', json: true },
			{ authentication: 'apiKey', apiKey: 'platform-api-key' },
		);
		expect(signed.headers?.['x-api-key']).toBe('platform-api-key');
		expect(signed.headers?.authorization).toBeUndefined();
		expect(signed.headers?.['x-hmac-signature']).toBe(GET_ACCOUNT_SIGNATURE);
	});

	it("signs the HTTP Request node's legacy shape (uri, qs, json) under a gateway prefix", async () => {
		const signed = await authenticate(
			{
				method: 'GET',
				uri: 'https://gw.example.com/partner/money/v1/charge',
				qs: { page: '2', limit: '50', status: 'COMPLETED', start_date: '2024-01-01T00:00:00.000Z' },
				json: true,
				headers: { 'X-Timestamp': 'stale', Authorization: 'Basic old' },
			},
			{ baseUrl: 'https://gw.example.com/partner' },
		);
		expect(signed.uri).toBe(`https://gw.example.com/partner/money/v1/charge?${LIST_QUERY}`);
		expect(signed.headers?.['x-hmac-signature']).toBe(GET_LIST_SIGNATURE);
		expect(Object.keys(signed.headers ?? {}).filter((name) => /timestamp|authorization/i.test(name))).toEqual([
			'authorization',
			'x-timestamp',
		]);
	});

	it('gives the same bytes when run again on its own output (the resend after a 401)', async () => {
		const first = await authenticate({
			method: 'POST',
			url: '/money/v1/payout',
			body: { amount: 5000, currency: 'XOF', message: 'Paiement reçu – merci ✓' },
			json: true,
		});
		const again = await authenticate({ ...first, headers: { ...first.headers } } as unknown as Record<string, unknown>, {
			accessToken: 'refreshed-token',
		});
		expect(again.url).toBe(first.url);
		expect(again.body).toBe(NON_ASCII_BODY);
		expect(again.headers?.['x-hmac-signature']).toBe(POST_PAYOUT_SIGNATURE);
		expect(again.headers?.authorization).toBe('Bearer refreshed-token');
	});

	it('signs the empty JSON string and sends no body when the body is empty', async () => {
		const signed = await authenticate({ method: 'POST', url: '/money/v1/account', body: {}, json: true });
		expect(signed.body).toBeUndefined();
		expect(signed.headers?.['x-hmac-signature']).toBe(
			computeRequestSignature(HMAC_SECRET, String(TIMESTAMP), 'POST', '/money/v1/account', '""'),
		);
	});

	it('signs a query string already present in the URL and appends qs after it', async () => {
		const signed = await authenticate({
			method: 'GET',
			url: 'https://api.example.com/money/v1/charge?page=2',
			qs: { limit: 50 },
		});
		expect(signed.url).toBe('https://api.example.com/money/v1/charge?page=2&limit=50');
	});
});

describe('what signing a request costs', () => {
	it('signs a request without a body with one HMAC: the hash of the empty body is the same for every request', async () => {
		const hmacs = jest.spyOn(crypto, 'createHmac');
		const signed = await authenticate({ method: 'GET', url: '/money/v1/account', json: true });
		expect(signed.headers?.['x-hmac-signature']).toBe(GET_ACCOUNT_SIGNATURE);
		expect(hashBody(EMPTY_BODY_STRING)).toBe(EMPTY_BODY_HASH);
		expect(hmacs).toHaveBeenCalledTimes(1);
	});

	it('still hashes every body it is given', async () => {
		const hmacs = jest.spyOn(crypto, 'createHmac');
		const signed = await authenticate({ method: 'POST', url: '/money/v1/payout', body: JSON.parse(NON_ASCII_BODY), json: true });
		expect(signed.headers?.['x-hmac-signature']).toBe(POST_PAYOUT_SIGNATURE);
		expect(hmacs).toHaveBeenCalledTimes(2);
	});

	it('keeps the headers it does not sign, in their order and case, and a content type it was given', async () => {
		const signed = await authenticate({
			method: 'POST',
			url: '/money/v1/payout',
			body: JSON.parse(NON_ASCII_BODY),
			headers: { 'Idempotency-Key': 'key-1', 'X-HMAC-Signature': 'forged', 'Content-Type': 'application/json; charset=utf-8', 'x-api-key': 'other' },
		});
		expect(signed.headers).toEqual({
			'Idempotency-Key': 'key-1',
			'Content-Type': 'application/json; charset=utf-8',
			authorization: 'Bearer access-token-value',
			'x-timestamp': String(TIMESTAMP),
			'x-hmac-signature': POST_PAYOUT_SIGNATURE,
		});
		expect(Object.keys(signed.headers ?? {})).toEqual(['Idempotency-Key', 'Content-Type', 'authorization', 'x-timestamp', 'x-hmac-signature']);
	});
});

describe('request shaping helpers', () => {
	it('serialises arrays as repeated keys and skips undefined values', () => {
		expect(serializeQuery({ status: ['PENDING', 'FAILED'], channel: undefined, q: 'a b&c' })).toBe(
			'status=PENDING&status=FAILED&q=a%20b%26c',
		);
	});

	it('strips the gateway prefix only on the base URL origin', () => {
		const base = 'https://gw.example.com/partner';
		expect(signedPathOf(new URL('https://gw.example.com/partner/money/v1/account?x=1'), base)).toBe(
			'/money/v1/account?x=1',
		);
		expect(signedPathOf(new URL('https://other.example.com/partner/money/v1/account'), base)).toBe(
			'/partner/money/v1/account',
		);
		expect(signedPathOf(new URL('https://gw.example.com/partnerx/money'), base)).toBe('/partnerx/money');
	});

	it('signs the whole path when the base URL has no path, or cannot be read', () => {
		const target = new URL('https://api.example.com/money/v1/account?x=1');
		for (const base of ['https://api.example.com', 'https://api.example.com/', 'HTTPS://api.example.com//', 'http://', 'not a url', '']) {
			expect(signedPathOf(target, base)).toBe('/money/v1/account?x=1');
		}
		expect(signedPathOf(new URL('https://api.example.com/v2/money/v1/account'), 'https://api.example.com/v2//')).toBe('/money/v1/account');
	});

	it('derives the token endpoint from the token host', () => {
		expect(tokenEndpointOf('https://auth.example.com')).toBe('https://auth.example.com/oauth2/token');
		expect(tokenEndpointOf('https://auth.example.com/')).toBe('https://auth.example.com/oauth2/token');
		expect(tokenEndpointOf('https://auth.example.com/oauth2/token')).toBe(
			'https://auth.example.com/oauth2/token',
		);
	});
});

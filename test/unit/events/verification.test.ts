import { createHmac } from 'node:crypto';

import { signedPathCandidates, singleHeader, verifyWebhookSignature, type VerificationInput } from '../../../nodes/events/verification';
import { BODY, event } from './fixtures';

/*
 * Signatures here are computed with node:crypto straight from the text of docs/decisions.md#d1, not with the
 * pack's signer, so a mistake shared by signer and verifier cannot hide.
 */
const SECRET = 'whsec_unit_test_secret_value';
const PATH = '/webhook/7f1c/money';
const NOW = 1_700_000_000;

function hmac(key: string, data: string | Buffer): string {
	return createHmac('sha256', key).update(data).digest('hex');
}

function requestStyle(body: Buffer, timestamp: number, path = PATH, secret = SECRET): string {
	const canonical = `${timestamp}\nPOST\n${path}\n${hmac('', body)}`;
	return hmac(secret, canonical);
}

function bodyHmac(body: Buffer, timestamp: number, secret = SECRET): string {
	return hmac(secret, Buffer.concat([Buffer.from(`${timestamp}.`), body]));
}

function input(overrides: Partial<VerificationInput>): VerificationInput {
	return {
		scheme: 'either',
		secret: SECRET,
		rawBody: BODY,
		headers: {},
		signedPaths: [PATH],
		nowSeconds: NOW,
		...overrides,
	};
}

describe('verifyWebhookSignature', () => {
	const requestHeaders = { 'x-timestamp': String(NOW), 'x-hmac-signature': requestStyle(BODY, NOW) };
	const bodyHeaders = { 'x-timestamp': String(NOW), 'x-webhook-signature': bodyHmac(BODY, NOW) };

	it('accepts a request-style signature over POST, the path and the body hash', () => {
		expect(verifyWebhookSignature(input({ headers: requestHeaders }))).toEqual({ ok: true, scheme: 'request-style' });
		expect(verifyWebhookSignature(input({ scheme: 'request-style', headers: requestHeaders }))).toEqual({
			ok: true,
			scheme: 'request-style',
		});
	});

	it('accepts a body-hmac signature over timestamp "." raw body', () => {
		expect(verifyWebhookSignature(input({ headers: bodyHeaders }))).toEqual({ ok: true, scheme: 'body-hmac' });
		expect(verifyWebhookSignature(input({ scheme: 'body-hmac', headers: bodyHeaders }))).toEqual({
			ok: true,
			scheme: 'body-hmac',
		});
	});

	it('refuses the other scheme when one is configured', () => {
		expect(verifyWebhookSignature(input({ scheme: 'request-style', headers: bodyHeaders }))).toEqual({
			ok: false,
			reason: 'missing-signature',
		});
		expect(verifyWebhookSignature(input({ scheme: 'body-hmac', headers: requestHeaders }))).toEqual({
			ok: false,
			reason: 'missing-signature',
		});
	});

	it('refuses a body-hmac value sent in the request-style header and vice versa', () => {
		const swapped = { 'x-timestamp': String(NOW), 'x-hmac-signature': bodyHmac(BODY, NOW) };
		expect(verifyWebhookSignature(input({ headers: swapped }))).toEqual({ ok: false, reason: 'invalid-signature' });
		const swappedBack = { 'x-timestamp': String(NOW), 'x-webhook-signature': requestStyle(BODY, NOW) };
		expect(verifyWebhookSignature(input({ headers: swappedBack }))).toEqual({ ok: false, reason: 'invalid-signature' });
	});

	it('fails closed without a secret', () => {
		expect(verifyWebhookSignature(input({ secret: '', headers: requestHeaders }))).toEqual({
			ok: false,
			reason: 'missing-secret',
		});
		const emptyKeySignature = {
			'x-timestamp': String(NOW),
			'x-hmac-signature': requestStyle(BODY, NOW, PATH, ''),
		};
		expect(verifyWebhookSignature(input({ secret: '', headers: emptyKeySignature })).ok).toBe(false);
	});

	it('refuses a missing signature or timestamp', () => {
		expect(verifyWebhookSignature(input({ headers: {} }))).toEqual({ ok: false, reason: 'missing-signature' });
		expect(verifyWebhookSignature(input({ headers: { 'x-hmac-signature': requestStyle(BODY, NOW) } }))).toEqual({
			ok: false,
			reason: 'missing-timestamp',
		});
		for (const timestamp of ['', 'abc', '17e8', '-1', '1700000000.5', ' ', '1234567890123']) {
			expect(
				verifyWebhookSignature(input({ headers: { ...requestHeaders, 'x-timestamp': timestamp } })).ok,
			).toBe(false);
		}
	});

	it('accepts timestamps up to 300 s away and refuses 301 s either way', () => {
		for (const skew of [-300, 0, 300]) {
			const headers = { 'x-timestamp': String(NOW + skew), 'x-hmac-signature': requestStyle(BODY, NOW + skew) };
			expect(verifyWebhookSignature(input({ headers })).ok).toBe(true);
		}
		for (const skew of [-301, 301, -86_400]) {
			const headers = { 'x-timestamp': String(NOW + skew), 'x-hmac-signature': requestStyle(BODY, NOW + skew) };
			expect(verifyWebhookSignature(input({ headers }))).toEqual({ ok: false, reason: 'stale-timestamp' });
		}
	});

	it('refuses a tampered body, path, timestamp or secret', () => {
		const tampered = Buffer.from(BODY);
		tampered[10] ^= 1;
		expect(verifyWebhookSignature(input({ rawBody: tampered, headers: requestHeaders })).ok).toBe(false);
		expect(verifyWebhookSignature(input({ rawBody: tampered, headers: bodyHeaders })).ok).toBe(false);
		expect(verifyWebhookSignature(input({ signedPaths: ['/webhook/7f1c/money?x=1'], headers: requestHeaders })).ok).toBe(
			false,
		);
		expect(
			verifyWebhookSignature(input({ headers: { ...requestHeaders, 'x-timestamp': String(NOW + 1) } })).ok,
		).toBe(false);
		expect(verifyWebhookSignature(input({ secret: `${SECRET}x`, headers: requestHeaders })).ok).toBe(false);
	});

	it('does not verify JSON that was re-serialised', () => {
		const reformatted = Buffer.from(JSON.stringify(event, null, 2));
		expect(verifyWebhookSignature(input({ rawBody: reformatted, headers: requestHeaders })).ok).toBe(false);
	});

	it('refuses malformed or repeated signature headers', () => {
		const good = requestStyle(BODY, NOW);
		for (const value of [good.slice(1), `${good}0`, `sha256=${good}`, 'z'.repeat(64), '']) {
			expect(verifyWebhookSignature(input({ headers: { ...requestHeaders, 'x-hmac-signature': value } })).ok).toBe(false);
		}
		expect(verifyWebhookSignature(input({ headers: { ...requestHeaders, 'x-hmac-signature': [good, good] } })).ok).toBe(
			false,
		);
	});

	it('accepts the upper-case hex of a valid signature and header names in any case', () => {
		const headers = { 'X-Timestamp': String(NOW), 'X-HMAC-Signature': requestStyle(BODY, NOW).toUpperCase() };
		expect(verifyWebhookSignature(input({ headers })).ok).toBe(true);
	});

	it('verifies against any signed-path candidate', () => {
		const headers = { 'x-timestamp': String(NOW), 'x-hmac-signature': requestStyle(BODY, NOW, '/n8n/webhook/7f1c/money') };
		expect(verifyWebhookSignature(input({ headers })).ok).toBe(false);
		expect(verifyWebhookSignature(input({ headers, signedPaths: [PATH, '/n8n/webhook/7f1c/money'] })).ok).toBe(true);
	});

	it('never returns anything derived from the secret', () => {
		const result = verifyWebhookSignature(input({ headers: { ...requestHeaders, 'x-hmac-signature': 'a'.repeat(64) } }));
		const text = JSON.stringify(result);
		expect(text).not.toContain(requestStyle(BODY, NOW));
		expect(text).not.toContain(SECRET);
	});
});

describe('signedPathCandidates', () => {
	it('uses the request path with its query, then the public URL path with that query', () => {
		expect(
			signedPathCandidates({
				requestUrl: '/webhook/abc/money?tenant=1',
				publicUrl: 'https://pay.example.com/n8n/webhook/abc/money',
			}),
		).toEqual(['/webhook/abc/money?tenant=1', '/n8n/webhook/abc/money?tenant=1']);
	});

	it('does not repeat a candidate', () => {
		expect(signedPathCandidates({ requestUrl: '/webhook/abc/money', publicUrl: 'http://127.0.0.1:5678/webhook/abc/money' })).toEqual(['/webhook/abc/money']);
	});

	it('takes a public URL given as a path (the Signed Path), with or without a host or a leading slash, keeping its own query', () => {
		const requestUrl = '/webhook/abc/money';
		expect(signedPathCandidates({ requestUrl, publicUrl: '/hooks/money?k=v' })).toEqual([requestUrl, '/hooks/money?k=v']);
		expect(signedPathCandidates({ requestUrl, publicUrl: 'https://gw.example.com/hooks/money' })).toEqual([requestUrl, '/hooks/money']);
		expect(signedPathCandidates({ requestUrl, publicUrl: ' hooks/money ' })).toEqual([requestUrl, '/hooks/money']);
	});
});

describe('singleHeader', () => {
	it('reads case-insensitively and rejects repeated values', () => {
		expect(singleHeader({ 'X-Timestamp': ' 12 ' }, 'x-timestamp')).toBe('12');
		expect(singleHeader({ 'x-timestamp': ['1', '2'] }, 'x-timestamp')).toBeUndefined();
		expect(singleHeader({}, 'x-timestamp')).toBeUndefined();
	});
});

import { createHmac, timingSafeEqual } from 'node:crypto';

import { TIMESTAMP_TOLERANCE_SECONDS } from '../../nodes/api/values';

/** docs/signing.md: a request without a body is signed as the JSON encoding of an empty string. */
export const EMPTY_BODY_STRING = '""';

export type SignedBody = string | Buffer;

function hmacHex(key: string, data: SignedBody): string {
	return createHmac('sha256', key).update(data).digest('hex');
}

/** Every request without a body hashes the same bytes: computed once, it spares a GET one of its two HMACs. */
const EMPTY_BODY_HASH = hmacHex('', EMPTY_BODY_STRING);

export function hashBody(body: SignedBody): string {
	return body === EMPTY_BODY_STRING ? EMPTY_BODY_HASH : hmacHex('', body);
}

export function canonicalRequestString(
	timestamp: string,
	method: string,
	path: string,
	body: SignedBody,
): string {
	return `${timestamp}\n${method.toUpperCase()}\n${path}\n${hashBody(body)}`;
}

/** docs/signing.md: the x-hmac-signature of a request; request-style webhooks use the same with the webhook secret. */
export function computeRequestSignature(
	secret: string,
	timestamp: string,
	method: string,
	path: string,
	body: SignedBody,
): string {
	return hmacHex(secret, canonicalRequestString(timestamp, method, path, body));
}

/** Body-HMAC webhook scheme (docs/signing.md): HMAC over `timestamp + "." + rawBody`. */
export function computeBodyHmacSignature(secret: string, timestamp: string, rawBody: Buffer): string {
	return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

export function hexSignaturesEqual(expected: string, received: string): boolean {
	if (!/^[0-9a-f]{64}$/i.test(received)) return false;
	const expectedBytes = Buffer.from(expected, 'hex');
	const receivedBytes = Buffer.from(received, 'hex');
	return expectedBytes.length === receivedBytes.length && timingSafeEqual(expectedBytes, receivedBytes);
}

export function unixSeconds(nowMs: number = Date.now()): number {
	return Math.floor(nowMs / 1000);
}

export function isTimestampFresh(timestamp: string, nowSeconds: number = unixSeconds()): boolean {
	if (!/^\d{1,12}$/.test(timestamp)) return false;
	return Math.abs(nowSeconds - Number(timestamp)) <= TIMESTAMP_TOLERANCE_SECONDS;
}

import { createHmac, timingSafeEqual } from 'node:crypto';

export const TIMESTAMP_WINDOW_SECONDS = 300;
const EMPTY_BODY_STRING = Buffer.from('""', 'utf8');

export function hmacHex(key: string, data: Buffer | string): string {
	return createHmac('sha256', key).update(data).digest('hex');
}

export function bodyHash(rawBody: Buffer): string {
	return hmacHex('', rawBody.length === 0 ? EMPTY_BODY_STRING : rawBody);
}

export function canonicalString(timestamp: string, method: string, path: string, rawBody: Buffer): string {
	return `${timestamp}\n${method.toUpperCase()}\n${path}\n${bodyHash(rawBody)}`;
}

export function constantTimeEqualHex(expectedHex: string, givenHex: string): boolean {
	const expected = Buffer.from(expectedHex, 'utf8');
	const given = Buffer.from(givenHex, 'utf8');
	if (expected.length !== given.length) {
		timingSafeEqual(expected, expected);
		return false;
	}
	return timingSafeEqual(expected, given);
}

export type SignatureCheck =
	| { ok: true }
	| { ok: false; reason: 'missing_headers' | 'bad_timestamp' | 'timestamp_outside_window' | 'signature_mismatch'; message: string };

export interface SignedRequest {
	method: string;
	/** The raw request target after the gateway prefix: path and query, byte for byte. */
	path: string;
	rawBody: Buffer;
	timestampHeader: string | undefined;
	signatureHeader: string | undefined;
}

export function verifyRequestSignature(request: SignedRequest, hmacSecret: string, serverNowSeconds: number): SignatureCheck {
	const { timestampHeader, signatureHeader } = request;
	if (!timestampHeader || !signatureHeader) {
		return { ok: false, reason: 'missing_headers', message: 'x-timestamp and x-hmac-signature headers are required' };
	}
	if (!/^\d{1,12}$/.test(timestampHeader)) {
		return { ok: false, reason: 'bad_timestamp', message: 'x-timestamp must be Unix time in seconds' };
	}
	const skew = Math.abs(serverNowSeconds - Number(timestampHeader));
	if (skew > TIMESTAMP_WINDOW_SECONDS) {
		return {
			ok: false,
			reason: 'timestamp_outside_window',
			message: `x-timestamp differs from server time by ${skew} seconds (max ${TIMESTAMP_WINDOW_SECONDS})`,
		};
	}
	const canonical = canonicalString(timestampHeader, request.method, request.path, request.rawBody);
	const expected = hmacHex(hmacSecret, canonical);
	if (!constantTimeEqualHex(expected, signatureHeader.trim().toLowerCase())) {
		return { ok: false, reason: 'signature_mismatch', message: 'x-hmac-signature does not match the request' };
	}
	return { ok: true };
}

import { createHmac } from 'node:crypto';

/**
 * Independent test signer, written from the recipe of docs/signing.md only (it shares no code with the sandbox):
 * bodyHash = hex HMAC-SHA256(key "", body or the two characters `""` when there is no body),
 * canonical = timestamp \n METHOD \n path(+query) \n bodyHash, signature = hex HMAC-SHA256(secret, canonical).
 */
export function specBodyHash(body: string | Buffer | undefined): string {
	const bodyString = body === undefined || body.length === 0 ? '""' : body;
	return createHmac('sha256', '').update(bodyString).digest('hex');
}

export function specCanonical(timestamp: string, method: string, path: string, body: string | Buffer | undefined): string {
	return [timestamp, method.toUpperCase(), path, specBodyHash(body)].join('\n');
}

export function specSignature(secret: string, timestamp: string, method: string, path: string, body?: string | Buffer): string {
	return createHmac('sha256', secret).update(specCanonical(timestamp, method, path, body)).digest('hex');
}

export function specSignedHeaders(secret: string, method: string, path: string, body?: string | Buffer, timestampSeconds?: number): Record<string, string> {
	const timestamp = String(timestampSeconds ?? Math.floor(Date.now() / 1000));
	return { 'x-timestamp': timestamp, 'x-hmac-signature': specSignature(secret, timestamp, method, path, body) };
}

/** docs/decisions.md#d1 webhook verification, also from the decision text only. */
export function verifyRequestStyleWebhook(secret: string, path: string, rawBody: Buffer, timestamp: string, signature: string): boolean {
	return specSignature(secret, timestamp, 'POST', path, rawBody) === signature;
}

export function verifyBodyHmacWebhook(secret: string, rawBody: Buffer, timestamp: string, signature: string): boolean {
	return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex') === signature;
}

import { constants, createHash, publicEncrypt } from 'node:crypto';

/** The Money API's PIN encryption: RSA-OAEP with SHA-256 under the client's public key, base64. */
export function encryptPin(pin: string, publicKeyPem: string): string {
	return publicEncrypt(
		{ key: publicKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
		Buffer.from(pin, 'utf8'),
	).toString('base64');
}

const CIPHERTEXT_CACHE_LIMIT = 5_000;
const ciphertextByRequest = new Map<string, string>();

/**
 * OAEP is randomised, so encrypting again gives another body. Reusing the ciphertext for the same
 * idempotency key keeps the bytes of a repeated create identical (n8n's Retry On Fail included),
 * which an API comparing raw bodies needs to recognise it as the same request.
 */
export function pinForRequest(pin: string, publicKeyPem: string | undefined, idempotencyKey: string): string {
	const key = publicKeyPem?.trim();
	if (!key) return pin;
	const cacheKey = createHash('sha256').update(`${idempotencyKey}\n${pin}\n${key}`).digest('hex');
	const cached = ciphertextByRequest.get(cacheKey);
	if (cached) return cached;
	const ciphertext = encryptPin(pin, key);
	if (ciphertextByRequest.size >= CIPHERTEXT_CACHE_LIMIT) {
		const oldest = ciphertextByRequest.keys().next().value;
		if (oldest !== undefined) ciphertextByRequest.delete(oldest);
	}
	ciphertextByRequest.set(cacheKey, ciphertext);
	return ciphertext;
}

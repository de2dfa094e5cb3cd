import { constants, privateDecrypt } from 'node:crypto';
import { constantTimeEqualHex } from './signature';

const PLAIN_PIN = /^\d{4,12}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export type PinReading = { kind: 'plain'; value: string } | { kind: 'decrypted'; value: string } | { kind: 'undecryptable' };

/** Auto-detects the form of `pin` (spec 5.5): plain digits, or base64 RSA-OAEP-SHA-256 ciphertext. */
export function readPin(pin: string, privateKeyPem: string): PinReading {
	const looksEncrypted = !PLAIN_PIN.test(pin) && pin.length >= 24 && BASE64.test(pin);
	if (!looksEncrypted) return { kind: 'plain', value: pin };
	try {
		const plain = privateDecrypt(
			{ key: privateKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
			Buffer.from(pin, 'base64'),
		);
		return { kind: 'decrypted', value: plain.toString('utf8') };
	} catch {
		return { kind: 'undecryptable' };
	}
}

export function pinMatches(given: string, expected: string): boolean {
	return constantTimeEqualHex(expected, given);
}

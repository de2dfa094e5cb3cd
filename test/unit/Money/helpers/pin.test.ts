import { constants, generateKeyPairSync, privateDecrypt } from 'node:crypto';

import { encryptPin, pinForRequest } from '../../../../nodes/Money/helpers/pin';

const { publicKey, privateKey } = generateKeyPairSync('rsa', {
	modulusLength: 2048,
	publicKeyEncoding: { type: 'spki', format: 'pem' },
	privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

const decrypt = (ciphertext: string) =>
	privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(ciphertext, 'base64')).toString('utf8');

describe('PIN encryption (spec 5.5)', () => {
	it('encrypts with RSA-OAEP SHA-256 as base64', () => {
		const ciphertext = encryptPin('4821', publicKey);
		expect(ciphertext).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
		expect(ciphertext).not.toContain('4821');
		expect(decrypt(ciphertext)).toBe('4821');
	});

	it('does not decrypt with SHA-1 OAEP (the hash matters)', () => {
		const ciphertext = encryptPin('4821', publicKey);
		expect(() =>
			privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, Buffer.from(ciphertext, 'base64')),
		).toThrow();
	});

	it('sends the plain PIN when no public key is set', () => {
		expect(pinForRequest('4821', '', 'key-1')).toBe('4821');
		expect(pinForRequest('4821', undefined, 'key-1')).toBe('4821');
	});

	it('reuses the ciphertext for the same idempotency key, so a repeated create has the same bytes', () => {
		const first = pinForRequest('4821', publicKey, 'key-a');
		expect(pinForRequest('4821', publicKey, 'key-a')).toBe(first);
		expect(pinForRequest('4821', publicKey, 'key-b')).not.toBe(first);
		expect(pinForRequest('9999', publicKey, 'key-a')).not.toBe(first);
		expect(decrypt(first)).toBe('4821');
	});

	it('throws on a key that is not a public key PEM', () => {
		expect(() => pinForRequest('4821', 'not a key', 'key-c')).toThrow();
	});
});

import { constants, generateKeyPairSync, privateDecrypt } from 'node:crypto';

import { encryptPin, pinForRequest } from '../../../../../nodes/Money/helpers/create/pin';

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
		expect(pinForRequest('4821', '', 'key-1', 'hmac-secret')).toBe('4821');
		expect(pinForRequest('4821', undefined, 'key-1', 'hmac-secret')).toBe('4821');
	});

	it('gives the same ciphertext for the same idempotency key in any process, a standard OAEP ciphertext', () => {
		const first = pinForRequest('4821', publicKey, 'key-a', 'hmac-secret');
		// Another process (an n8n restart, another queue-mode worker) loads the module afresh.
		let elsewhere = '';
		jest.isolateModules(() => {
			const fresh = require('../../../../../nodes/Money/helpers/create/pin') as typeof import('../../../../../nodes/Money/helpers/create/pin');
			elsewhere = fresh.pinForRequest('4821', publicKey, 'key-a', 'hmac-secret');
		});
		expect(elsewhere).toBe(first);
		expect(decrypt(first)).toBe('4821');
		expect(Buffer.from(first, 'base64')).toHaveLength(256);
	});

	it('gives unrelated ciphertexts for another key, PIN or secret, so only a resend repeats one', () => {
		const first = pinForRequest('4821', publicKey, 'key-a', 'hmac-secret');
		const others = [
			pinForRequest('4821', publicKey, 'key-b', 'hmac-secret'),
			pinForRequest('9999', publicKey, 'key-a', 'hmac-secret'),
			pinForRequest('4821', publicKey, 'key-a', 'another-secret'),
		];
		expect(new Set([first, ...others]).size).toBe(4);
		expect(decrypt(others[1])).toBe('9999');
	});

	it('throws on a key that is not a public key PEM', () => {
		expect(() => pinForRequest('4821', 'not a key', 'key-c', 'hmac-secret')).toThrow();
	});
});

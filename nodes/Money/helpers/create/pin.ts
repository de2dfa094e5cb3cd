import { constants, createHash, createHmac, createPublicKey, publicEncrypt } from 'node:crypto';

/**
 * The Money API's PIN encryption: RSA-OAEP with SHA-256 (MGF1-SHA-256, empty label) under the
 * client's public key, base64 (spec 5.5).
 *
 * OAEP draws a random seed, so encrypting the same PIN twice gives two ciphertexts, and a create
 * resent under the same idempotency key would carry another body: an API that compares a repeated
 * key's body byte for byte answers IDEMPOTENCY_CONFLICT. The seed is therefore derived, not drawn:
 * HMAC-SHA-256 keyed with the credential's HMAC secret over the idempotency key, the PIN and the
 * public key. Every process (a restarted n8n, another queue-mode worker) computes the same
 * ciphertext for the same key, and it is a standard OAEP ciphertext any decryptor accepts. The
 * seed stays unknown to anyone without the HMAC secret, so the ciphertext cannot be used to test
 * guesses of the PIN (docs/decisions.md#d4).
 */

const HASH_BYTES = 32;
const SEED_LABEL = 'n8n-nodes-money/pin-oaep-seed/v1';

function sha256(...parts: Buffer[]): Buffer {
	const hash = createHash('sha256');
	for (const part of parts) hash.update(part);
	return hash.digest();
}

/** MGF1 with SHA-256 (RFC 8017 B.2.1). */
function mgf1(seed: Buffer, length: number): Buffer {
	const blocks: Buffer[] = [];
	for (let counter = 0; blocks.length * HASH_BYTES < length; counter++) {
		const counterBytes = Buffer.alloc(4);
		counterBytes.writeUInt32BE(counter);
		blocks.push(sha256(seed, counterBytes));
	}
	return Buffer.concat(blocks).subarray(0, length);
}

function xor(a: Buffer, b: Buffer): Buffer {
	return Buffer.from(a.map((byte, index) => byte ^ b[index]));
}

/** EME-OAEP encoding (RFC 8017 7.1.1, step 2) with SHA-256, an empty label and the given seed. */
function oaepEncode(message: Buffer, modulusBytes: number, seed: Buffer): Buffer {
	const room = modulusBytes - 2 * HASH_BYTES - 2;
	if (message.length > room) throw new Error('The PIN is too long for this RSA key');
	const dataBlock = Buffer.concat([sha256(Buffer.alloc(0)), Buffer.alloc(room - message.length), Buffer.from([1]), message]);
	const maskedDataBlock = xor(dataBlock, mgf1(seed, dataBlock.length));
	const maskedSeed = xor(seed, mgf1(maskedDataBlock, HASH_BYTES));
	return Buffer.concat([Buffer.from([0]), maskedSeed, maskedDataBlock]);
}

/** RSA-OAEP SHA-256 of the PIN as base64: with a random seed, or with the given 32-byte seed. */
export function encryptPin(pin: string, publicKeyPem: string, seed?: Buffer): string {
	const message = Buffer.from(pin, 'utf8');
	if (!seed) return publicEncrypt({ key: publicKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, message).toString('base64');
	const key = createPublicKey(publicKeyPem);
	const bits = key.asymmetricKeyType === 'rsa' ? key.asymmetricKeyDetails?.modulusLength : undefined;
	if (!bits) throw new Error('The RSA Public Key is not an RSA key');
	const encoded = oaepEncode(message, Math.ceil(bits / 8), seed);
	return publicEncrypt({ key, padding: constants.RSA_NO_PADDING }, encoded).toString('base64');
}

/**
 * The PIN as a create sends it under `idempotencyKey`: plain without a public key, else encrypted
 * with the seed derived from `seedSecret` (the credential's HMAC secret), the same in every n8n process and worker.
 * Without a secret the seed is random: still encrypted, but a resend from another process differs.
 */
export function pinForRequest(pin: string, publicKeyPem: string | undefined, idempotencyKey: string, seedSecret: string | undefined): string {
	const key = publicKeyPem?.trim();
	if (!key) return pin;
	if (!seedSecret) return encryptPin(pin, key);
	const seed = createHmac('sha256', seedSecret).update(`${SEED_LABEL}\n${idempotencyKey}\n${pin}\n${key}`).digest();
	return encryptPin(pin, key, seed);
}

import { findSecrets, occursIn } from '../../harness/secrets';

describe('the secret scan of the test tiers (test/harness/secrets.ts)', () => {
	it('finds a short PIN wherever it stands as a value', () => {
		for (const text of ['{"pin":"1234"}', 'PIN 1234 refused', 'pin=1234&x=1', '1234']) expect(occursIn(text, '1234')).toBe(true);
	});

	it('does not take a short PIN inside a random reference, key or ciphertext for a leak', () => {
		for (const text of ['pay_bec3cf12347e9a', 'ab1234', '1234ff', 'key 9f8e12345c']) expect(occursIn(text, '1234')).toBe(false);
	});

	it('finds a long secret anywhere, also inside other text', () => {
		expect(occursIn('xxsandbox-hmac-secretxx', 'sandbox-hmac-secret')).toBe(true);
		expect(findSecrets({ message: 'Bearer tok_abcdef123456 failed' }, { accessTokens: ['tok_abcdef123456'] })).toEqual(['to…(16 chars)']);
	});
});

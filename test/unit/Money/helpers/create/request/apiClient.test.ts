import { apiClientOf } from '../../../../../../nodes/Money/helpers/create/request/apiClient';

describe('the API client a create goes to', () => {
	it('is the client id at the base URL, whatever the secrets (a rotated secret is the same client)', () => {
		const named = apiClientOf({ authentication: 'clientCredentials', baseUrl: 'https://api.example.com/', clientId: 'client-7', clientSecret: 's1', hmacSecret: 'h1' });
		expect(named).toBe('client client-7 at https://api.example.com');
		expect(apiClientOf({ authentication: 'clientCredentials', baseUrl: 'https://api.example.com', clientId: 'client-7', clientSecret: 's2', hmacSecret: 'h2' })).toBe(named);
		expect(apiClientOf({ authentication: 'clientCredentials', baseUrl: 'https://api.example.com', clientId: 'client-8' })).not.toBe(named);
		expect(apiClientOf({ authentication: 'clientCredentials', baseUrl: 'https://other.example.com', clientId: 'client-7' })).not.toBe(named);
	});

	it('names an API key by a fingerprint, never the key', () => {
		const apiKey = 'live-key-0123456789abcdef';
		const named = apiClientOf({ authentication: 'apiKey', baseUrl: 'https://api.example.com', apiKey });
		expect(named).toMatch(/^API key [0-9a-f]{16} at https:\/\/api\.example\.com$/);
		expect(named).not.toContain(apiKey.slice(-8));
		expect(apiClientOf({ authentication: 'apiKey', baseUrl: 'https://api.example.com', apiKey: `${apiKey}x` })).not.toBe(named);
	});
});

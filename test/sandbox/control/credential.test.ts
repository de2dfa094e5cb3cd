import type { SandboxInfo } from '../../../sandbox';
import { moneyCredentialFor } from '../../../sandbox/control/credential';

const info = {
	baseUrl: 'http://127.0.0.1:4010',
	authUrl: 'http://127.0.0.1:4011',
	controlUrl: 'http://127.0.0.1:4010/_control',
	clientId: 'client',
	clientSecret: 'client-secret',
	apiKey: 'api-key',
	hmacSecret: 'hmac',
	webhookSecret: 'webhook',
	rsaPublicKeyPem: '-----BEGIN PUBLIC KEY-----',
	pin: '1234',
} as SandboxInfo;

describe('moneyCredentialFor: SandboxInfo → moneyApi credential data', () => {
	it('maps every field a user would enter', () => {
		expect(moneyCredentialFor(info)).toEqual({
			baseUrl: info.baseUrl,
			tokenUrl: info.authUrl,
			authentication: 'clientCredentials',
			clientId: 'client',
			clientSecret: 'client-secret',
			apiKey: 'api-key',
			hmacSecret: 'hmac',
			webhookSecret: 'webhook',
			rsaPublicKey: '-----BEGIN PUBLIC KEY-----',
			walletPinSecret: '1234',
			accessToken: '',
		});
	});

	it('overrides win; a source without apiKey or RSA key gives empty strings', () => {
		expect(moneyCredentialFor({ ...info, apiKey: undefined, rsaPublicKeyPem: undefined })).toMatchObject({ apiKey: '', rsaPublicKey: '' });
		expect(moneyCredentialFor(info, { rsaPublicKey: '', velocityLimit: 7 })).toMatchObject({ rsaPublicKey: '', velocityLimit: 7, walletPinSecret: '1234' });
	});
});

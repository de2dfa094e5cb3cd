import type { SandboxInfo } from './types';

/**
 * The data of a `moneyApi` credential (field names of credentials/MoneyApi.credentials.ts),
 * written out here because the sandbox shares no code with the node pack.
 */
export type MoneyCredentialData = {
	baseUrl: string;
	tokenUrl: string;
	authentication: 'clientCredentials' | 'apiKey';
	clientId: string;
	clientSecret: string;
	apiKey: string;
	hmacSecret: string;
	webhookSecret: string;
	/** PEM of the sandbox client's RSA key; '' sends the wallet PIN plain. */
	rsaPublicKey: string;
	walletPinSecret: string;
	accessToken: string;
	velocityLimit?: number;
	velocityWindowSeconds?: number;
};

/** What the mapping reads of a SandboxInfo; a hand-made source (no running sandbox) may leave out the optional keys. */
export type SandboxCredentialSource = Pick<SandboxInfo, 'baseUrl' | 'authUrl' | 'clientId' | 'clientSecret' | 'hmacSecret' | 'webhookSecret' | 'pin'> &
	Partial<Pick<SandboxInfo, 'apiKey' | 'rsaPublicKeyPem'>>;

/**
 * The one mapping SandboxInfo → `moneyApi` credential data, as a user would enter it for the
 * sandbox's primary client (client credentials, every secret, the RSA public key so PINs go
 * encrypted), then `overrides` on top (e.g. `{ rsaPublicKey: '' }` for plain PINs,
 * `{ velocityLimit }`, a wrong secret).
 */
export function moneyCredentialFor(info: SandboxCredentialSource, overrides: Partial<MoneyCredentialData> = {}): MoneyCredentialData {
	return {
		baseUrl: info.baseUrl,
		tokenUrl: info.authUrl,
		authentication: 'clientCredentials',
		clientId: info.clientId,
		clientSecret: info.clientSecret,
		apiKey: info.apiKey ?? '',
		hmacSecret: info.hmacSecret,
		webhookSecret: info.webhookSecret,
		rsaPublicKey: info.rsaPublicKeyPem ?? '',
		walletPinSecret: info.pin,
		accessToken: '',
		...overrides,
	};
}

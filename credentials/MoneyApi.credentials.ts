import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { MONEY_API_CREDENTIAL_TYPE, ROUTES } from '../nodes/api/values';
import { signMoneyRequest } from './signing/signRequest';

/** Stored in the expirable field in API-key mode, where no bearer token exists. */
const API_KEY_MODE_TOKEN = 'api-key-mode';

const TOKEN_ERROR_ADVICE: Record<string, string> = {
	invalid_client: 'check the Client ID and Client Secret of the Money API credential',
	invalid_grant: 'the token endpoint refused the client-credentials grant; check the Token URL',
	unauthorized: 'check the Client ID and Client Secret of the Money API credential',
};

export function tokenEndpointOf(tokenUrl: string): string {
	const trimmed = tokenUrl.trim().replace(/\/+$/, '');
	return /\/oauth2\/token$/.test(trimmed) ? trimmed : `${trimmed}/oauth2/token`;
}

function describeTokenFailure(statusCode: number, body: unknown): string {
	const errorCode =
		body && typeof body === 'object' && typeof (body as IDataObject).error === 'string'
			? ((body as IDataObject).error as string)
			: undefined;
	const advice = (errorCode && TOKEN_ERROR_ADVICE[errorCode]) ?? 'check the Token URL, Client ID and Client Secret';
	return `Money API token request failed (HTTP ${statusCode}${errorCode ? `, ${errorCode}` : ''}): ${advice}`;
}

export class MoneyApi implements ICredentialType {
	name = MONEY_API_CREDENTIAL_TYPE;

	displayName = 'Money API';

	documentationUrl = 'https://github.com/n8n-nodes-money/n8n-nodes-money#credentials';

	icon: Icon = { light: 'file:../nodes/Money/money.svg', dark: 'file:../nodes/Money/money.dark.svg' };

	properties: INodeProperties[] = [
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				'Address of the Money API host, without /money/v1. It may carry a gateway prefix (e.g. https://gw.example.com/partner); the prefix is left out of the signed path.',
		},
		{
			displayName: 'Token URL',
			name: 'tokenUrl',
			type: 'string',
			default: '',
			placeholder: 'https://auth.example.com',
			description:
				'Address of the separate authentication host; the token is requested from {Token URL}/oauth2/token',
			displayOptions: { show: { authentication: ['clientCredentials'] } },
		},
		{
			displayName: 'Authentication',
			name: 'authentication',
			type: 'options',
			options: [
				{ name: 'Client Credentials (OAuth 2.0 Bearer Token)', value: 'clientCredentials' },
				{ name: 'Platform API Key', value: 'apiKey' },
			],
			default: 'clientCredentials',
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			displayOptions: { show: { authentication: ['clientCredentials'] } },
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { authentication: ['clientCredentials'] } },
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'Sent as the x-api-key header instead of a bearer token',
			displayOptions: { show: { authentication: ['apiKey'] } },
		},
		{
			displayName: 'HMAC Secret',
			name: 'hmacSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Signs every request (x-hmac-signature)',
		},
		{
			displayName: 'Webhook Secret',
			name: 'webhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'Verifies the webhooks the Money Trigger receives. The trigger refuses to activate without it.',
		},
		{
			displayName: 'RSA Public Key',
			name: 'rsaPublicKey',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			placeholder: '-----BEGIN PUBLIC KEY-----',
			description:
				'Optional. PEM public key issued for this client; when set, the wallet PIN is sent RSA-OAEP (SHA-256) encrypted.',
		},
		{
			displayName: 'Wallet PIN',
			name: 'walletPinSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Merchant wallet PIN that authorizes charges and payouts. Kept here so it never lives in workflow JSON.',
		},
		{
			displayName: 'Payout Velocity Limit',
			name: 'velocityLimit',
			type: 'number',
			typeOptions: { minValue: 1, numberPrecision: 0 },
			default: 20,
			description:
				'How many payouts this client may create per velocity window. The Money node paces payout runs to it (and to what a LIMIT_EXCEEDED answer reports). The API default is 20.',
		},
		{
			displayName: 'Velocity Window (Seconds)',
			name: 'velocityWindowSeconds',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 300,
			description: 'Length of the rolling window of the payout velocity limit. The API default is 300 (5 minutes).',
		},
	];

	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		if (credentials.authentication === 'apiKey') return { accessToken: API_KEY_MODE_TOKEN };

		let response: { statusCode: number; body: unknown };
		try {
			response = (await this.helpers.httpRequest({
				method: 'POST',
				url: tokenEndpointOf(String(credentials.tokenUrl ?? '')),
				body: {
					grant_type: 'client_credentials',
					client_id: credentials.clientId,
					client_secret: credentials.clientSecret,
				},
				json: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			})) as { statusCode: number; body: unknown };
		} catch {
			// No answer from the token host: the request this token was for was never sent (nodes/transport/errors.ts reads this message).
			throw new Error('Money API token request failed: the token host could not be reached; check the Token URL of the Money API credential');
		}

		const accessToken = (response.body as IDataObject | undefined)?.access_token;
		if (response.statusCode >= 400 || typeof accessToken !== 'string' || accessToken === '') {
			throw new Error(describeTokenFailure(response.statusCode, response.body));
		}
		return { accessToken };
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const authHeaders: Record<string, string> =
			credentials.authentication === 'apiKey'
				? { 'x-api-key': String(credentials.apiKey ?? '') }
				: { authorization: `Bearer ${String(credentials.accessToken ?? '')}` };
		return signMoneyRequest(requestOptions, {
			baseUrl: String(credentials.baseUrl ?? ''),
			hmacSecret: String(credentials.hmacSecret ?? ''),
			authHeaders,
		});
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: ROUTES.account,
			method: 'GET',
		},
	};
}

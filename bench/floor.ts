import { Client, Pool } from 'undici';

import { computeRequestSignature, EMPTY_BODY_STRING } from '../credentials/signing/signature';
import type { SandboxInfo } from '../sandbox';

/** OAuth2 client-credentials token straight from the sandbox token host (one request). */
export async function fetchToken(info: SandboxInfo): Promise<string> {
	const url = `${info.authUrl.replace(/\/+$/, '')}/oauth2/token`;
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ grant_type: 'client_credentials', client_id: info.clientId, client_secret: info.clientSecret }),
	});
	const body = (await response.json()) as { access_token?: string };
	if (!response.ok || !body.access_token) throw new Error(`token request failed with ${response.status}`);
	return body.access_token;
}

type Dispatcher = Client | Pool;

/**
 * The floor: what the same signed GETs cost with nothing in between. A keep-alive undici client,
 * the pack's own signer (so the floor signs exactly like the credential does), the bearer token,
 * and the JSON body parsed, since every variant returns parsed JSON.
 */
export class FloorClient {
	private readonly dispatcher: Dispatcher;
	private readonly origin: string;
	private readonly prefix: string;

	/**
	 * @param connections keep-alive connections (1: one connection, requests one after the other)
	 * @param keepAlive false opens a new connection for every request, as n8n-core's helpers do
	 */
	constructor(
		private readonly info: SandboxInfo,
		private readonly token: string,
		connections = 1,
		private readonly keepAlive = true,
	) {
		const base = new URL(info.baseUrl);
		this.origin = base.origin;
		this.prefix = base.pathname.replace(/\/+$/, '');
		this.dispatcher =
			connections === 1
				? new Client(this.origin, { pipelining: 1, keepAliveTimeout: 60_000 })
				: new Pool(this.origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
	}

	private async send(path: string, dispatcher: Dispatcher) {
		const timestamp = String(Math.floor(Date.now() / 1000));
		const signature = computeRequestSignature(this.info.hmacSecret, timestamp, 'GET', path, EMPTY_BODY_STRING);
		return await dispatcher.request({
			method: 'GET',
			path: `${this.prefix}${path}`,
			headers: {
				authorization: `Bearer ${this.token}`,
				'x-timestamp': timestamp,
				'x-hmac-signature': signature,
				accept: 'application/json',
			},
		});
	}

	/** One signed GET of `path` (the API path, e.g. /money/v1/charge/REF), parsed JSON back. */
	async get(path: string): Promise<unknown> {
		const dispatcher = this.keepAlive ? this.dispatcher : new Client(this.origin, { pipelining: 0 });
		const response = await this.send(path, dispatcher);
		const body = await response.body.json();
		if (!this.keepAlive) await dispatcher.close();
		if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}: ${JSON.stringify(body)}`);
		return body;
	}

	/** A signed GET whose body is read and dropped unparsed: the least a load generator can do. */
	async hit(path: string): Promise<void> {
		const response = await this.send(path, this.dispatcher);
		await response.body.dump({ limit: Infinity });
		if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}`);
	}

	async close(): Promise<void> {
		await this.dispatcher.close();
	}
}

export const chargePath = (reference: string): string => `/money/v1/charge/${encodeURIComponent(reference)}`;

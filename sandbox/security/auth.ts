import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { setNewest } from '../domain/bounded-map';
import type { ClientRegistry, ClientState } from '../domain/clients';

interface TokenRecord {
	clientId: string;
	expiresAt: number;
	generation: number;
	entitlements: string[] | null;
}

export interface PersistedToken extends TokenRecord {
	token: string;
}

export interface TokenResponse {
	access_token: string;
	token_type: 'Bearer';
	expires_in: number;
	created_at: string;
}

export type Authentication =
	| { ok: true; client: ClientState; entitlements: string[]; via: 'bearer' | 'api-key' }
	| { ok: false; message: string };

export class TokenStore {
	private readonly tokens = new Map<string, TokenRecord>();

	constructor(
		private readonly capacity: number,
		private readonly snapshotEntitlements: boolean,
	) {}

	issue(client: ClientState, ttlSeconds: number, nowMs: number): TokenResponse {
		this.evictExpired(nowMs);
		const token = `sbx_at_${randomBytes(24).toString('base64url')}`;
		const record = {
			clientId: client.clientId,
			expiresAt: nowMs + ttlSeconds * 1000,
			generation: client.tokenGeneration,
			entitlements: this.snapshotEntitlements ? [...client.settings.entitlements] : null,
		};
		setNewest(this.tokens, token, record, this.capacity);
		return { access_token: token, token_type: 'Bearer', expires_in: ttlSeconds, created_at: new Date(nowMs).toISOString() };
	}

	lookup(token: string, clients: ClientRegistry, nowMs: number): { client: ClientState; entitlements: string[] } | string {
		const record = this.tokens.get(token);
		if (!record) return 'unknown access token';
		const client = clients.get(record.clientId);
		if (!client) return 'unknown access token';
		if (record.expiresAt <= nowMs) return 'access token expired';
		if (record.generation !== client.tokenGeneration) return 'access token revoked';
		return { client, entitlements: record.entitlements ?? client.settings.entitlements };
	}

	private evictExpired(nowMs: number): void {
		if (this.tokens.size < this.capacity / 2) return;
		for (const [token, record] of this.tokens) {
			if (record.expiresAt <= nowMs) this.tokens.delete(token);
		}
	}

	snapshot(nowMs: number): PersistedToken[] {
		return [...this.tokens].filter(([, record]) => record.expiresAt > nowMs).map(([token, record]) => ({ token, ...record }));
	}

	restore(tokens: PersistedToken[]): void {
		for (const { token, ...record } of tokens) this.tokens.set(token, record);
	}
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
	const value = headers[name];
	return Array.isArray(value) ? value[0] : value;
}

/** Bearer wins when both credentials are present (spec 5.2). */
export function authenticate(headers: IncomingHttpHeaders, tokens: TokenStore, clients: ClientRegistry, nowMs: number): Authentication {
	const authorization = headerValue(headers, 'authorization');
	if (authorization !== undefined) {
		const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
		if (!match) return { ok: false, message: 'Authorization header must be "Bearer <token>"' };
		const found = tokens.lookup(match[1], clients, nowMs);
		if (typeof found === 'string') return { ok: false, message: found };
		return { ok: true, client: found.client, entitlements: found.entitlements, via: 'bearer' };
	}
	const apiKey = headerValue(headers, 'x-api-key');
	if (apiKey !== undefined) {
		const client = clients.byKey(apiKey);
		if (!client) return { ok: false, message: 'unknown api key' };
		return { ok: true, client, entitlements: client.settings.entitlements, via: 'api-key' };
	}
	return { ok: false, message: 'missing credentials: send Authorization: Bearer <token> or x-api-key' };
}

export function sourceAddressAllowed(client: ClientState, remoteAddress: string | undefined): boolean {
	const allowlist = client.settings.ipAllowlist;
	if (!allowlist || allowlist.length === 0) return true;
	const address = (remoteAddress ?? '').replace(/^::ffff:/, '');
	return allowlist.some((allowed) => allowed.replace(/^::ffff:/, '') === address);
}

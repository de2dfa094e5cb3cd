import { createHash } from 'node:crypto';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/**
 * The API client a create goes to, as the node names it (docs/idempotency.md, "A run keeps its
 * API client and Business References"): the Money API keeps idempotency keys per client, so a create sent again to another
 * client is a second payment whatever its key. `client <id> at <base URL>`, or with an API key
 * `API key <fingerprint> at <base URL>`: the first 16 hex digits of the key's SHA-256, never the
 * key itself (the name is kept in the execution and shown in errors).
 */
export function apiClientOf(credentials: ICredentialDataDecryptedObject): string {
	const baseUrl = String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	if (credentials.authentication === 'apiKey') {
		const fingerprint = createHash('sha256').update(String(credentials.apiKey ?? '')).digest('hex').slice(0, 16);
		return `API key ${fingerprint} at ${baseUrl}`;
	}
	return `client ${String(credentials.clientId ?? '').trim()} at ${baseUrl}`;
}

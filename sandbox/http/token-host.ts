import type { IncomingMessage, ServerResponse } from 'node:http';
import { TOKEN_ROUTE_SLUG } from '../domain/types';
import type { SandboxRuntime } from '../runtime';
import { BodyTooLargeError, readRawBody, sendJson, sleep } from './util';

function parseTokenRequest(request: IncomingMessage, rawBody: Buffer): Record<string, unknown> | null {
	const text = rawBody.toString('utf8');
	const contentType = request.headers['content-type'] ?? '';
	if (contentType.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
	try {
		const parsed: unknown = JSON.parse(text);
		return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
	} catch {
		return null;
	}
}

/** The token host of spec 5.2 with the error bodies of docs/decisions.md#d3. */
export function createTokenHandler(runtime: SandboxRuntime) {
	const oauthError = (response: ServerResponse, status: number, error: string, description: string, headers: Record<string, string> = {}) =>
		sendJson(response, runtime.clock, status, { error, error_description: description }, headers);

	return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
		let rawBody: Buffer;
		try {
			rawBody = await readRawBody(request, 64 * 1024);
		} catch (error) {
			if (error instanceof BodyTooLargeError) oauthError(response, 413, 'invalid_request', 'body too large');
			else request.socket.destroy();
			return;
		}
		const path = (request.url ?? '/').split('?')[0];
		if (request.method !== 'POST' || path !== '/oauth2/token') {
			oauthError(response, 404, 'not_found', `no route ${request.method} ${path}`);
			return;
		}
		runtime.counters.tokenRequests++;
		const fault = runtime.faults.pick(TOKEN_ROUTE_SLUG, false);
		if (fault) {
			runtime.counters.faultsInjected++;
			if (fault.kind === 'drop' || fault.kind === 'drop-after-commit') {
				request.socket.destroy();
				return;
			}
			if (fault.kind === 'delay') await sleep(fault.delayMs ?? 1000);
			else if (fault.kind === '429') {
				oauthError(response, 429, 'rate_limit_exceeded', 'too many token requests (injected fault)', { 'retry-after': String(fault.retryAfterSeconds ?? 1) });
				return;
			} else {
				oauthError(response, Number(fault.kind), 'temporarily_unavailable', 'token service unavailable (injected fault)');
				return;
			}
		}
		const body = parseTokenRequest(request, rawBody);
		if (!body) {
			oauthError(response, 400, 'invalid_request', 'body must be a JSON object { grant_type, client_id, client_secret }');
			return;
		}
		if (body.grant_type !== 'client_credentials') {
			oauthError(response, 400, 'invalid_grant', 'grant_type must be client_credentials');
			return;
		}
		const client = typeof body.client_id === 'string' ? runtime.clients.get(body.client_id) : undefined;
		if (!client || typeof body.client_secret !== 'string' || body.client_secret !== client.settings.clientSecret) {
			oauthError(response, 401, 'invalid_client', 'client credentials are wrong or missing');
			return;
		}
		const token = runtime.tokens.issue(client, runtime.tokenTtlSeconds, runtime.clock.now());
		runtime.changed();
		sendJson(response, runtime.clock, 200, token, { 'cache-control': 'no-store' });
	};
}

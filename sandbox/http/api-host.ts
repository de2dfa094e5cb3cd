import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientState } from '../domain/clients';
import { faultAnswer } from '../faults/answers';
import type { FaultSpec } from '../faults/injector';
import type { SandboxRuntime } from '../runtime';
import { authenticate, sourceAddressAllowed } from '../security/auth';
import { verifyRequestSignature } from '../security/signature';
import { ApiError, byFamily, type ErrorFamily } from './errors';
import { matchRoute, type RouteDefinition } from './routes';
import { BodyTooLargeError, headerValue, readRawBody, sendJson, sleep } from './util';

export const CONTROL_PREFIX = '/_control';
export const PAYMENT_PAGE_PREFIX = '/_pay/';

export type SideHandler = (request: IncomingMessage, response: ServerResponse, rawBody: Buffer) => Promise<void> | void;

function unauthenticated(family: ErrorFamily, message: string): ApiError {
	return new ApiError(401, byFamily(family, 'unauthorized', 'unauthenticated'), message);
}

/** Spec 5.7, in order: entitlement, scope (no scope names are specified), signature, merchant linkage. */
function authorize(runtime: SandboxRuntime, route: RouteDefinition, client: ClientState, entitlements: string[], request: IncomingMessage, signedPath: string, rawBody: Buffer): void {
	const family = route.family;
	if (!sourceAddressAllowed(client, request.socket.remoteAddress)) {
		throw new ApiError(403, 'forbidden', `source address ${request.socket.remoteAddress ?? 'unknown'} is not allowed for this client`);
	}
	const retryAfter = client.rateLimitRetryAfter(runtime.clock.now());
	if (retryAfter !== null) {
		throw new ApiError(429, 'rate_limit_exceeded', 'client rate limit exceeded', undefined, { 'retry-after': String(retryAfter) });
	}
	if (!entitlements.includes(route.slug)) {
		throw new ApiError(403, byFamily(family, 'SEC_ENDPOINT_NOT_AUTHORIZED', 'forbidden'), `client is not entitled to ${route.slug}`);
	}
	const signature = verifyRequestSignature(
		{
			method: request.method ?? 'GET',
			path: signedPath,
			rawBody,
			timestampHeader: headerValue(request, 'x-timestamp'),
			signatureHeader: headerValue(request, 'x-hmac-signature'),
		},
		client.settings.hmacSecret,
		runtime.clock.nowSeconds(),
	);
	if (!signature.ok) throw unauthenticated(family, signature.message);
	const settings = client.settings;
	if (!settings.linked) {
		throw new ApiError(403, byFamily(family, 'SEC_ENDPOINT_NOT_AUTHORIZED', 'merchant_not_linked'), 'client is not linked to a merchant account');
	}
	if (!settings.merchantResolvable) {
		throw new ApiError(403, byFamily(family, 'MERCHANT_NOT_RESOLVED', 'merchant_not_resolved'), 'merchant profile could not be loaded');
	}
	if (!settings.hasPrimaryWallet) {
		throw new ApiError(400, byFamily(family, 'MERCHANT_ACCOUNT_NOT_CONFIGURED', 'merchant_account_not_configured'), 'no primary wallet configured');
	}
	if (settings.profileIncomplete) {
		throw new ApiError(400, byFamily(family, 'MERCHANT_PROFILE_INCOMPLETE', 'merchant_profile_incomplete'), 'required merchant fields are missing');
	}
}

/** An answer whose every transaction shows `label` (fault status-label: a label the specification does not list). */
function withStatusLabel(body: unknown, label: string): unknown {
	if (!body || typeof body !== 'object') return body;
	const relabel = (transaction: unknown) =>
		transaction && typeof transaction === 'object' && 'status' in transaction
			? { ...transaction, status: { ...((transaction as { status: object }).status ?? {}), label } }
			: transaction;
	const data = (body as { data?: unknown }).data;
	return { ...body, data: Array.isArray(data) ? data.map(relabel) : relabel(data) };
}

/** What a gateway in maintenance answers in place of the API: 200 and a web page (faults page-200*). */
const MAINTENANCE_PAGE = '<!doctype html><html><head><title>Maintenance</title></head><body><h1>We will be back soon</h1></body></html>';

export function createApiHandler(runtime: SandboxRuntime, gatewayPrefix: string, sideRoutes: { control: SideHandler; paymentPage: SideHandler }) {
	const respond = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
		runtime.counters.countResponse(status);
		sendJson(response, runtime.clock, status, body, headers);
	};

	return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
		let rawBody: Buffer;
		try {
			rawBody = await readRawBody(request, runtime.config.maxBodyBytes);
		} catch (error) {
			if (error instanceof BodyTooLargeError) {
				respond(response, 413, { success: false, error_code: 'PAYLOAD_TOO_LARGE', message: `body exceeds ${runtime.config.maxBodyBytes} bytes` }, { connection: 'close' });
			} else {
				request.socket.destroy();
			}
			return;
		}
		const target = request.url ?? '/';
		if (target === CONTROL_PREFIX || target.startsWith(`${CONTROL_PREFIX}/`) || target.startsWith(`${CONTROL_PREFIX}?`)) {
			await sideRoutes.control(request, response, rawBody);
			return;
		}
		if (target.startsWith(PAYMENT_PAGE_PREFIX)) {
			await sideRoutes.paymentPage(request, response, rawBody);
			return;
		}

		const notFound = () => respond(response, 404, new ApiError(404, 'not_found', `no route ${request.method} ${target}`).body('lower'));
		let signedPath = target;
		if (gatewayPrefix) {
			const rest = target.slice(gatewayPrefix.length);
			if (!target.startsWith(gatewayPrefix) || !(rest.startsWith('/') || rest.startsWith('?'))) return notFound();
			signedPath = rest;
		}
		const queryStart = signedPath.indexOf('?');
		const pathname = queryStart === -1 ? signedPath : signedPath.slice(0, queryStart);
		const query = new URLSearchParams(queryStart === -1 ? '' : signedPath.slice(queryStart + 1));
		const match = matchRoute(request.method ?? 'GET', pathname);
		if (!match) return notFound();
		const { route, params } = match;
		runtime.counters.countRequest(route.slug);

		let afterCommit: FaultSpec | undefined;
		let relabel: string | undefined;
		try {
			const fault = runtime.faults.pick(route.slug, route.isCreate);
			if (fault?.kind === 'drop-after-commit' || fault?.kind === 'page-200-after-commit') afterCommit = fault;
			else if (fault) {
				runtime.counters.faultsInjected++;
				if (fault.kind === 'drop') {
					request.socket.destroy();
					return;
				}
				if (fault.kind === 'page-200') return respond(response, 200, MAINTENANCE_PAGE, { 'content-type': 'text/html; charset=utf-8' });
				if (fault.kind === 'not-success-200') return respond(response, 200, { success: false, error_code: 'PROVIDER_UNAVAILABLE', message: 'provider temporarily unavailable (injected fault)' });
				if (fault.kind === 'delay') await sleep(fault.delayMs ?? 1000);
				else if (fault.kind === 'status-label') relabel = fault.label;
				else throw faultAnswer(fault, route.family);
			}

			const authentication = authenticate(request.headers, runtime.tokens, runtime.clients, runtime.clock.now());
			if (!authentication.ok) throw unauthenticated(route.family, authentication.message);
			const client = authentication.client;
			client.authenticatedCalls++;
			if (runtime.revokeEvery && client.authenticatedCalls % runtime.revokeEvery === 0) {
				client.tokenGeneration++;
			}
			authorize(runtime, route, client, authentication.entitlements, request, signedPath, rawBody);

			const result = route.handle({ runtime, client, params, query, rawBody, idempotencyKey: headerValue(request, 'idempotency-key') });
			if (afterCommit && result.status < 300) {
				runtime.faults.consume(afterCommit);
				runtime.counters.faultsInjected++;
			} else afterCommit = undefined;
			if (afterCommit?.kind === 'drop-after-commit') {
				request.socket.destroy();
				return;
			}
			if (afterCommit?.kind === 'page-200-after-commit') return respond(response, 200, MAINTENANCE_PAGE, { 'content-type': 'text/html; charset=utf-8' });
			respond(response, result.status, relabel === undefined ? result.body : withStatusLabel(result.body, relabel), result.headers);
		} catch (error) {
			if (error instanceof ApiError) {
				respond(response, error.status, error.body(route.family), error.headers);
				return;
			}
			const internal = new ApiError(500, byFamily(route.family, 'INTERNAL_ERROR', 'internal_error'), error instanceof Error ? error.message : 'unexpected failure');
			respond(response, 500, internal.body(route.family));
		}
	};
}

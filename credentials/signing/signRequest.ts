import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { computeRequestSignature, EMPTY_BODY_STRING, type SignedBody, unixSeconds } from './signature';

/**
 * Both request shapes n8n hands to a credential's `authenticate`: nodes' `url` (+ `baseURL`), and
 * the HTTP Request node's legacy `uri`.
 */
export type MoneyRequestOptions = IHttpRequestOptions & { uri?: string };

export interface RequestSigningKeys {
	baseUrl: string;
	hmacSecret: string;
	authHeaders: Record<string, string>;
}

const SIGNING_HEADERS = new Set(['authorization', 'x-api-key', 'x-timestamp', 'x-hmac-signature']);
const METHODS_WITHOUT_BODY = new Set(['GET', 'HEAD', 'OPTIONS']);

function joinUrl(base: string, relative: string): string {
	return `${base.replace(/\/+$/, '')}/${relative.replace(/^\/+/, '')}`;
}

function appendQueryValue(parts: string[], key: string, value: unknown): void {
	if (value === undefined || value === null) return;
	if (Array.isArray(value)) {
		for (const entry of value) appendQueryValue(parts, key, entry);
		return;
	}
	const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
	parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(text)}`);
}

export function serializeQuery(qs: IDataObject | undefined): string {
	const parts: string[] = [];
	for (const [key, value] of Object.entries(qs ?? {})) appendQueryValue(parts, key, value);
	return parts.join('&');
}

/** A base URL that is only a scheme and a host (and slashes) has no gateway prefix to parse for. */
const BASE_URL_WITHOUT_PATH = /^https?:\/\/[^/?#]*\/*$/i;

function gatewayPrefix(baseUrl: URL): string {
	return baseUrl.pathname.replace(/\/+$/, '');
}

/**
 * The path the API verifies: everything after the host, with the query, minus the base URL's
 * gateway prefix (the gateway strips it before verification).
 */
export function signedPathOf(target: URL, baseUrl: string): string {
	const pathAndQuery = target.pathname + target.search;
	if (BASE_URL_WITHOUT_PATH.test(baseUrl)) return pathAndQuery;
	let base: URL;
	try {
		base = new URL(baseUrl);
	} catch {
		return pathAndQuery;
	}
	const prefix = gatewayPrefix(base);
	if (!prefix || base.origin !== target.origin) return pathAndQuery;
	if (target.pathname === prefix || target.pathname.startsWith(`${prefix}/`)) {
		return pathAndQuery.slice(prefix.length) || '/';
	}
	return pathAndQuery;
}

function isEmptyBody(body: unknown): boolean {
	if (body === undefined || body === null) return true;
	if (typeof body === 'string' || Buffer.isBuffer(body)) return body.length === 0;
	if (typeof body === 'object') return Object.keys(body as object).length === 0;
	return false;
}

function isPlainJsonValue(body: unknown): body is IDataObject | unknown[] {
	if (Array.isArray(body)) return true;
	if (typeof body !== 'object' || body === null) return false;
	const prototype = Object.getPrototypeOf(body);
	return prototype === Object.prototype || prototype === null;
}

/**
 * The request's headers without any it had of the four signing headers (whatever their case),
 * then the signing headers, then a JSON content type when there is a body and none was given.
 */
function signedHeaders(existing: IDataObject | undefined, signing: Record<string, string>, hasBody: boolean): IDataObject {
	const headers: IDataObject = {};
	let hasContentType = false;
	for (const [name, value] of Object.entries(existing ?? {})) {
		const lower = name.toLowerCase();
		if (SIGNING_HEADERS.has(lower)) continue;
		if (lower === 'content-type') hasContentType = true;
		headers[name] = value;
	}
	Object.assign(headers, signing);
	if (hasBody && !hasContentType) headers['content-type'] = 'application/json';
	return headers;
}

function resolveTarget(options: MoneyRequestOptions, baseUrl: string): { key: 'uri' | 'url'; href: string } {
	const key: 'uri' | 'url' = options.uri !== undefined ? 'uri' : 'url';
	const raw = String((key === 'uri' ? options.uri : options.url) ?? '');
	if (/^https?:\/\//i.test(raw)) return { key, href: raw };
	const base = options.baseURL ? String(options.baseURL) : baseUrl;
	return { key, href: joinUrl(base, raw) };
}

function takeBody(options: MoneyRequestOptions, method: string): SignedBody {
	const body: unknown = options.body;
	if (METHODS_WITHOUT_BODY.has(method) || isEmptyBody(body)) {
		delete options.body;
		return EMPTY_BODY_STRING;
	}
	if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
	if (isPlainJsonValue(body)) {
		const serialised = JSON.stringify(body);
		options.body = serialised;
		return serialised;
	}
	throw new Error(
		'The Money API accepts JSON bodies only: send the body as JSON (Body Content Type "JSON") so it can be signed',
	);
}

/**
 * Signs a request byte-exactly (docs/signing.md): the query is folded into the URL so the signed path is
 * the one sent, the body is serialised once and that very string is both signed and sent.
 * Running it again on its own output (n8n's resend after a 401) signs the same bytes anew.
 */
export function signMoneyRequest<T extends MoneyRequestOptions>(
	options: T,
	keys: RequestSigningKeys,
	nowSeconds: number = unixSeconds(),
): T {
	const method = String(options.method ?? 'GET').toUpperCase();
	const { key, href } = resolveTarget(options, keys.baseUrl);

	const target = new URL(href);
	if (target.hash) target.hash = '';
	const query = serializeQuery(options.qs as IDataObject | undefined);
	if (query) target.search = target.search ? `${target.search}&${query}` : `?${query}`;
	delete options.qs;

	const body = takeBody(options, method);
	const timestamp = String(nowSeconds);
	const signature = computeRequestSignature(
		keys.hmacSecret,
		timestamp,
		method,
		signedPathOf(target, keys.baseUrl),
		body,
	);

	const headers = signedHeaders(
		options.headers as IDataObject | undefined,
		{ ...keys.authHeaders, 'x-timestamp': timestamp, 'x-hmac-signature': signature },
		options.body !== undefined,
	);

	options.method = method as T['method'];
	options.headers = headers;
	if (key === 'uri') {
		options.uri = target.href;
	} else {
		options.url = target.href;
		delete options.baseURL;
	}
	return options;
}

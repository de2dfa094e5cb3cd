import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { LIST_PAGE_SIZE_MAX, MONEY_CREDENTIAL_TYPE } from './constants';
import { moneyApiError, redactFailure, type MoneyApiFailure } from './errors';

export type MoneyApiContext = IExecuteFunctions | IPollFunctions | IWebhookFunctions | ILoadOptionsFunctions;

export interface RetryPolicy {
	maxRetries: number;
	baseDelayMs?: number;
	maxDelayMs?: number;
	/** A Retry-After longer than this is not waited for: the call fails instead. */
	maxRetryAfterMs?: number;
}

export interface MoneyApiRequestOptions {
	qs?: IDataObject;
	body?: IDataObject;
	headers?: IDataObject;
	itemIndex?: number;
	retry?: RetryPolicy;
	timeoutMs?: number;
	/** Values to blank out of any error text (the PIN and its ciphertext). */
	redact?: Array<string | undefined>;
}

export const DEFAULT_RETRY_POLICY: Required<RetryPolicy> = {
	maxRetries: 3,
	baseDelayMs: 500,
	maxDelayMs: 30_000,
	maxRetryAfterMs: 120_000,
};

export const DEFAULT_TIMEOUT_MS = 60_000;

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

const RETRYABLE_NETWORK_CODES = new Set([
	'ECONNRESET',
	'ECONNREFUSED',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'EAI_AGAIN',
	'ENETUNREACH',
	'EHOSTUNREACH',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
	'UND_ERR_SOCKET',
]);

interface FullResponse {
	statusCode: number;
	body: unknown;
	headers: Record<string, unknown>;
}

export function isRetryableStatus(statusCode: number): boolean {
	return RETRYABLE_STATUSES.has(statusCode);
}

export function isRetryableNetworkError(code: string | undefined, message: string | undefined): boolean {
	if (code && RETRYABLE_NETWORK_CODES.has(code)) return true;
	return /socket hang up|timeout|network|ECONNRESET/i.test(message ?? '');
}

/** Seconds to wait from a Retry-After header (delta-seconds or an HTTP date). */
export function parseRetryAfter(value: unknown, nowMs: number = Date.now()): number | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, (date - nowMs) / 1000);
}

/**
 * Exponential backoff with jitter: attempt n waits between half and all of base·2ⁿ (capped). A
 * Retry-After from the server is honoured when longer.
 */
export function retryDelayMs(
	attempt: number,
	policy: RetryPolicy,
	retryAfterSeconds?: number,
	random: () => number = Math.random,
): number {
	const base = policy.baseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs;
	const cap = policy.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs;
	const ceiling = Math.min(cap, base * 2 ** attempt);
	const backoff = Math.round(ceiling / 2 + random() * (ceiling / 2));
	if (retryAfterSeconds === undefined) return backoff;
	return Math.max(backoff, Math.ceil(retryAfterSeconds * 1000));
}

function headerValue(headers: Record<string, unknown> | undefined, name: string): string | undefined {
	if (!headers) return undefined;
	const value = headers[name] ?? headers[name.toLowerCase()];
	return typeof value === 'string' ? value : undefined;
}

function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseBody(body: unknown): unknown {
	if (typeof body !== 'string') return body;
	try {
		return JSON.parse(body);
	} catch {
		return body;
	}
}

export function failureFromResponse(
	statusCode: number,
	rawBody: unknown,
	headers?: Record<string, unknown>,
): MoneyApiFailure {
	const body = parseBody(rawBody);
	const failure: MoneyApiFailure = { httpCode: statusCode };
	if (isObject(body)) {
		const code = body.error_code ?? body.error ?? body.code;
		if (typeof code === 'string') failure.errorCode = code;
		const message = body.message ?? body.error_description;
		if (typeof message === 'string') failure.apiMessage = message;
		if (isObject(body.details)) failure.details = body.details;
		if (typeof body.available_balance !== 'undefined') {
			failure.details = { ...(failure.details ?? {}), available_balance: body.available_balance as number };
		}
	} else if (typeof body === 'string' && body.trim() !== '') {
		failure.apiMessage = body.trim().slice(0, 300);
	}
	const serverDate = headerValue(headers, 'date');
	if (serverDate) failure.serverDate = serverDate;
	const retryAfter = parseRetryAfter(headerValue(headers, 'retry-after'));
	if (retryAfter !== undefined) failure.retryAfterSeconds = retryAfter;
	return failure;
}

interface ThrownShape {
	message?: unknown;
	code?: unknown;
	cause?: unknown;
	response?: { status?: unknown; data?: unknown; headers?: unknown };
}

/**
 * Reads what a thrown request error says, keeping only the status, the response body and the Date
 * and Retry-After headers. The error itself (with the request's headers and body) is dropped.
 */
export function failureFromThrown(error: unknown): { failure: MoneyApiFailure; retryable: boolean } {
	const chain: ThrownShape[] = [];
	let current: unknown = error;
	while (current && typeof current === 'object' && chain.length < 5) {
		chain.push(current as ThrownShape);
		current = (current as ThrownShape).cause;
	}
	const withResponse = chain.find((entry) => typeof entry.response?.status === 'number');
	if (withResponse?.response) {
		const { status, data, headers } = withResponse.response;
		const failure = failureFromResponse(status as number, data, headers as Record<string, unknown>);
		return { failure, retryable: isRetryableStatus(status as number) };
	}
	const code = chain.map((entry) => entry.code).find((value): value is string => typeof value === 'string');
	const innermost = chain[chain.length - 1];
	const message = typeof innermost?.message === 'string' ? innermost.message : 'no response';
	return {
		failure: { transportMessage: code && !message.includes(code) ? `${message} (${code})` : message },
		retryable: isRetryableNetworkError(code, message),
	};
}

function cancelSignalOf(context: MoneyApiContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
}

/**
 * The one way the pack calls the Money API. The credential signs each attempt; the node never
 * touches auth headers. Retries 429, 502, 503, 504 and lost connections with backoff, resending
 * the same headers (idempotency key included) and the same body, so a create moves money once.
 * A 401 is left to n8n, which refreshes the token and resends once.
 */
export async function moneyApiRequest(
	this: MoneyApiContext,
	method: 'GET' | 'POST',
	route: string,
	options: MoneyApiRequestOptions = {},
): Promise<IDataObject> {
	return (await moneyApiCall.call(this, method, route, options)).body;
}

export interface MoneyApiAnswer {
	body: IDataObject;
	/** The answer's headers, names in lower case. */
	headers: Record<string, unknown>;
}

/** moneyApiRequest, with the successful answer's headers (a create's replay marker is one). */
export async function moneyApiCall(
	this: MoneyApiContext,
	method: 'GET' | 'POST',
	route: string,
	options: MoneyApiRequestOptions = {},
): Promise<MoneyApiAnswer> {
	const policy = { ...DEFAULT_RETRY_POLICY, ...(options.retry ?? {}) };
	const signal = cancelSignalOf(this);
	let attempt = 0;
	for (;;) {
		const requestOptions: IHttpRequestOptions = {
			method,
			url: route,
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: { ignore: true, except: [401] },
			timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
			headers: { ...(options.headers ?? {}) },
		};
		if (options.qs && Object.keys(options.qs).length > 0) requestOptions.qs = { ...options.qs };
		if (options.body) requestOptions.body = options.body;

		let failure: MoneyApiFailure;
		let retryable: boolean;
		try {
			const response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				MONEY_CREDENTIAL_TYPE,
				requestOptions,
			)) as FullResponse;
			if (response.statusCode >= 200 && response.statusCode < 300) {
				const body = parseBody(response.body);
				return { body: isObject(body) ? body : { data: body as IDataObject[] }, headers: response.headers ?? {} };
			}
			failure = failureFromResponse(response.statusCode, response.body, response.headers);
			retryable = isRetryableStatus(response.statusCode);
		} catch (error) {
			({ failure, retryable } = failureFromThrown(error));
		}

		failure.attempts = attempt + 1;
		const waitMs = retryable && !signal?.aborted ? retryDelayMs(attempt, policy, failure.retryAfterSeconds) : -1;
		if (!retryable || attempt >= policy.maxRetries || waitMs < 0 || waitMs > policy.maxRetryAfterMs) {
			throw moneyApiError(this.getNode(), redactFailure(failure, options.redact ?? []), options.itemIndex);
		}
		this.logger.debug('Money API call will be retried', {
			route,
			method,
			httpCode: failure.httpCode,
			errorCode: failure.errorCode,
			attempt: attempt + 1,
			waitMs,
		});
		await sleep(waitMs, signal);
		attempt++;
	}
}

export interface MoneyListPage {
	items: IDataObject[];
	page: number;
	pages: number;
	total?: number;
}

/** Pages of a list route, fetched one at a time, following `pagination.pages`. */
export async function* moneyApiPages(
	this: MoneyApiContext,
	route: string,
	qs: IDataObject,
	options: Omit<MoneyApiRequestOptions, 'qs' | 'body'> & { pageSize?: number; startPage?: number } = {},
): AsyncGenerator<MoneyListPage> {
	const pageSize = Math.min(Math.max(1, options.pageSize ?? LIST_PAGE_SIZE_MAX), LIST_PAGE_SIZE_MAX);
	let page = options.startPage ?? 1;
	for (;;) {
		const response = await moneyApiRequest.call(this, 'GET', route, {
			...options,
			qs: { ...qs, page, limit: pageSize },
		});
		const items = Array.isArray(response.data) ? (response.data as IDataObject[]) : [];
		const pagination = isObject(response.pagination) ? response.pagination : {};
		const pages = typeof pagination.pages === 'number' ? pagination.pages : page;
		yield { items, page, pages, total: typeof pagination.total === 'number' ? pagination.total : undefined };
		if (items.length === 0 || page >= pages) return;
		page++;
	}
}

/** Every item of a list route, or the first `limit` of them. */
export async function moneyApiListAll(
	this: MoneyApiContext,
	route: string,
	qs: IDataObject,
	options: Omit<MoneyApiRequestOptions, 'qs' | 'body'> & { limit?: number } = {},
): Promise<IDataObject[]> {
	const results: IDataObject[] = [];
	const pageSize = options.limit !== undefined ? Math.min(options.limit, LIST_PAGE_SIZE_MAX) : LIST_PAGE_SIZE_MAX;
	for await (const page of moneyApiPages.call(this, route, qs, { ...options, pageSize })) {
		for (const item of page.items) {
			results.push(item);
			if (options.limit !== undefined && results.length >= options.limit) return results;
		}
	}
	return results;
}

import type { IDataObject } from 'n8n-workflow';

/**
 * What a failed call leaves behind (the status, the API's error envelope, the Date and Retry-After
 * headers, never the request), and whether it is sent again.
 */
export interface MoneyApiFailure {
	httpCode?: number;
	errorCode?: string;
	apiMessage?: string;
	details?: IDataObject;
	serverDate?: string;
	retryAfterSeconds?: number;
	transportMessage?: string;
	/** A 2xx that is not the answer the specification gives (a web page, `success: false`): what came back. */
	unexpectedAnswer?: string;
	attempts?: number;
	/** A create whose outcome is unknown: its last attempt, or an earlier one, may have been carried out. */
	createOutcomeUnknown?: boolean;
	/** What the first earlier attempt that may have been carried out got ('no answer', 'HTTP 503'). */
	earlierUnanswered?: string;
}

export interface FullResponse {
	statusCode: number;
	body: unknown;
	headers: Record<string, unknown>;
}

export interface RetryPolicy {
	maxRetries: number;
	baseDelayMs?: number;
	maxDelayMs?: number;
	/** A Retry-After longer than this is not waited for: the call fails instead. */
	maxRetryAfterMs?: number;
}

export const DEFAULT_RETRY_POLICY: Required<RetryPolicy> = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 120_000 };
export const DEFAULT_TIMEOUT_MS = 60_000;

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
const RETRYABLE_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'ERR_SOCKET_CONNECTION_TIMEOUT', 'UND_ERR_SOCKET']);
const TOKEN_FAILURE = /token request failed/i;

export function isRetryableStatus(statusCode: number): boolean {
	return RETRYABLE_STATUSES.has(statusCode);
}

export function isRetryableNetworkError(code: string | undefined, message: string | undefined): boolean {
	if (code && RETRYABLE_NETWORK_CODES.has(code)) return true;
	return /socket hang up|timeout|network|ECONNRESET/i.test(message ?? '');
}

/**
 * Whether a failed attempt leaves open that the API carried the request out: no answer at all (a
 * token that could not be fetched aside: nothing was sent then), any 5xx (a proxy answers 503 or
 * 502 after its upstream committed), a 2xx that is not the API's answer, or a redirect left
 * unfollowed (a 303 after a commit). A 4xx is a refusal made before anything is done.
 */
export function mayHaveBeenCarriedOut(failure: MoneyApiFailure): boolean {
	if (failure.unexpectedAnswer !== undefined) return true;
	if (failure.httpCode === undefined) return !TOKEN_FAILURE.test(failure.transportMessage ?? '');
	return failure.httpCode < 400 || failure.httpCode >= 500;
}

export function isTokenFailure(failure: MoneyApiFailure): boolean {
	return failure.httpCode === undefined && TOKEN_FAILURE.test(failure.transportMessage ?? '');
}

/** Seconds to wait from a Retry-After header (delta-seconds or an HTTP date). */
export function parseRetryAfter(value: unknown, nowMs: number = Date.now()): number | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, (date - nowMs) / 1000);
}

/** Exponential backoff with jitter: attempt n waits between half and all of base·2ⁿ (capped); a longer Retry-After wins. */
export function retryDelayMs(attempt: number, policy: RetryPolicy, retryAfterSeconds?: number, random: () => number = Math.random): number {
	const base = policy.baseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs;
	const ceiling = Math.min(policy.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs, base * 2 ** attempt);
	const backoff = Math.round(ceiling / 2 + random() * (ceiling / 2));
	return retryAfterSeconds === undefined ? backoff : Math.max(backoff, Math.ceil(retryAfterSeconds * 1000));
}

export function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseBody(body: unknown): unknown {
	if (typeof body !== 'string') return body;
	try {
		return JSON.parse(body);
	} catch {
		return body;
	}
}

export function headerValue(headers: Record<string, unknown> | undefined, name: string): string | undefined {
	const value = headers?.[name] ?? headers?.[name.toLowerCase()];
	if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
	return typeof value === 'string' ? value : undefined;
}

/** An answer's content type and size, said in place of a body that is not the API's (it may echo the request: its token, its signature). */
export function answerForm(headers: Record<string, unknown> | undefined, rawBody: unknown): string {
	const type = headerValue(headers, 'content-type')?.split(';')[0].trim() || 'no content type';
	const size = typeof rawBody === 'string' ? `${Buffer.byteLength(rawBody)} bytes` : rawBody === undefined || rawBody === null || rawBody === '' ? 'no body' : 'a body';
	return `${type} (${size})`;
}

/**
 * What a failed answer says: the API's error envelope (its code, message, details), never another
 * body's text. A 4xx that is not the envelope (a gateway's page) is not the API's refusal: it is an
 * answer that is not one the API gives (docs/decisions.md#d13); the spec's plain 401 and 429 are.
 */
export function failureFromResponse(statusCode: number, rawBody: unknown, headers?: Record<string, unknown>): MoneyApiFailure {
	const body = parseBody(rawBody);
	const failure: MoneyApiFailure = { httpCode: statusCode };
	const code = isObject(body) ? (body.error_code ?? body.error ?? body.code) : undefined;
	if (isObject(body) && typeof code === 'string') {
		// A code is a word (SEC_TOKEN_EXPIRED, invalid_token); other text there is a message, and may echo the request.
		const isCode = /^[A-Za-z0-9_.-]{1,64}$/.test(code);
		if (isCode) failure.errorCode = code;
		const message = body.message ?? body.error_description ?? (isCode ? undefined : code);
		if (typeof message === 'string') failure.apiMessage = message;
		if (isObject(body.details)) failure.details = body.details;
		if (body.available_balance !== undefined) failure.details = { ...(failure.details ?? {}), available_balance: body.available_balance as number };
	} else if (statusCode >= 400 && statusCode < 500 && statusCode !== 401 && statusCode !== 429) {
		failure.unexpectedAnswer = `${answerForm(headers, rawBody)}, not the Money API's error envelope`;
	} else if (rawBody !== undefined && rawBody !== null && rawBody !== '') {
		failure.apiMessage = `${answerForm(headers, rawBody)}, not the Money API's error envelope`;
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

/** What a thrown request error says: the status, the response body and two headers; the error itself (with the request's headers) is dropped. */
export function failureFromThrown(error: unknown): { failure: MoneyApiFailure; retryable: boolean } {
	const chain: ThrownShape[] = [];
	for (let current: unknown = error; current && typeof current === 'object' && chain.length < 5; current = (current as ThrownShape).cause) {
		chain.push(current as ThrownShape);
	}
	const withResponse = chain.find((entry) => typeof entry.response?.status === 'number');
	if (withResponse?.response) {
		const { status, data, headers } = withResponse.response;
		return { failure: failureFromResponse(status as number, data, headers as Record<string, unknown>), retryable: isRetryableStatus(status as number) };
	}
	const code = chain.map((entry) => entry.code).find((value): value is string => typeof value === 'string');
	const innermost = chain[chain.length - 1];
	const message = typeof innermost?.message === 'string' ? innermost.message : 'no response';
	return {
		failure: { transportMessage: code && !message.includes(code) ? `${message} (${code})` : message },
		retryable: isRetryableNetworkError(code, message),
	};
}

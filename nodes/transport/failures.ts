import type { IDataObject } from 'n8n-workflow';

import type { MoneyApiFailure } from './errors';
import { isRetryableNetworkError, isRetryableStatus, parseRetryAfter } from './retry';

/** What a failed call leaves behind: status, the API's error envelope and two headers, never the request. */

export interface FullResponse {
	statusCode: number;
	body: unknown;
	headers: Record<string, unknown>;
}

function headerValue(headers: Record<string, unknown> | undefined, name: string): string | undefined {
	if (!headers) return undefined;
	const value = headers[name] ?? headers[name.toLowerCase()];
	return typeof value === 'string' ? value : undefined;
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

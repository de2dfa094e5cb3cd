import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import {
	failureFromResponse,
	failureFromThrown,
	headerValue,
	isRetryableStatus,
	mayHaveBeenCarriedOut,
	parseRetryAfter,
	retryDelayMs,
} from '../../../nodes/transport/failures';

const node: INode = { id: 'n1', name: 'Money', type: 'n8n-nodes-money.money', typeVersion: 1, position: [0, 0], parameters: {} };

describe('retry policy', () => {
	it('retries 429, 502, 503, 504 and nothing else', () => {
		for (const status of [429, 502, 503, 504]) expect(isRetryableStatus(status)).toBe(true);
		for (const status of [400, 401, 402, 403, 404, 409, 422, 500]) expect(isRetryableStatus(status)).toBe(false);
	});

	it('backs off exponentially with jitter between half and all of the ceiling', () => {
		const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1000 };
		expect(retryDelayMs(0, policy, undefined, () => 0)).toBe(50);
		expect(retryDelayMs(0, policy, undefined, () => 1)).toBe(100);
		expect(retryDelayMs(3, policy, undefined, () => 1)).toBe(800);
		expect(retryDelayMs(6, policy, undefined, () => 1)).toBe(1000);
	});

	it('honours a longer Retry-After', () => {
		expect(retryDelayMs(0, { maxRetries: 1, baseDelayMs: 10 }, 2, () => 0)).toBe(2000);
		expect(parseRetryAfter('3')).toBe(3);
		expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3);
		expect(parseRetryAfter('soon')).toBeUndefined();
	});
});

describe('what a failed attempt leaves behind', () => {
	it('reads both envelopes and the token error shape', () => {
		expect(
			failureFromResponse(402, { success: false, error_code: 'INSUFFICIENT_FUNDS', message: 'no', details: { available_balance: 5 } }, { date: 'x' }),
		).toEqual({ httpCode: 402, errorCode: 'INSUFFICIENT_FUNDS', apiMessage: 'no', details: { available_balance: 5 }, serverDate: 'x' });
		expect(failureFromResponse(404, { success: false, message: 'gone', error_code: 'transaction_not_found' })).toEqual({
			httpCode: 404,
			errorCode: 'transaction_not_found',
			apiMessage: 'gone',
		});
		expect(failureFromResponse(401, { error: 'invalid_client', error_description: 'bad' })).toMatchObject({
			errorCode: 'invalid_client',
			apiMessage: 'bad',
		});
		expect(failureFromResponse(429, '', { 'retry-after': '3' })).toMatchObject({ retryAfterSeconds: 3 });
	});

	it('never keeps the text of a body that is not the API\'s envelope (it may echo the request headers): its type and size only', () => {
		const echo = 'Bad gateway. Request: authorization: Bearer tok-123 x-hmac-signature: abcdef';
		const upstream = failureFromResponse(502, echo, { 'content-type': 'text/plain' });
		expect(upstream).toEqual({ httpCode: 502, apiMessage: `text/plain (${echo.length} bytes), not the Money API's error envelope` });
		// A 4xx that is not the API's refusal is an answer the API does not give (docs/decisions.md#d13); its plain 401 and 429 are the spec's.
		expect(failureFromResponse(408, '<html>timeout</html>', { 'content-type': 'text/html' })).toEqual({ httpCode: 408, unexpectedAnswer: "text/html (20 bytes), not the Money API's error envelope" });
		expect(failureFromResponse(401, 'Unauthorized')).toEqual({ httpCode: 401, apiMessage: "no content type (12 bytes), not the Money API's error envelope" });
		expect(JSON.stringify([upstream])).not.toMatch(/tok-123|abcdef/);
	});

	it('reads a header given as a list (its first value)', () => {
		expect(headerValue({ 'content-type': ['text/html', 'x'] }, 'content-type')).toBe('text/html');
		expect(failureFromResponse(429, '', { 'retry-after': ['3'] } as unknown as Record<string, string>)).toMatchObject({ retryAfterSeconds: 3 });
		expect(headerValue(undefined, 'date')).toBeUndefined();
	});

	it('classifies lost connections as retryable', () => {
		const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
		expect(failureFromThrown(new NodeApiError(node, reset as unknown as JsonObject))).toMatchObject({ retryable: true, failure: { transportMessage: 'socket hang up (ECONNRESET)' } });
		expect(failureFromThrown(new Error('Money API token request failed (HTTP 401, invalid_client): check'))).toMatchObject({ retryable: false });
	});

	it('may have been carried out: no answer (a token that could not be fetched aside), a 5xx, a 2xx that was not the API answer; never a 4xx', () => {
		expect(mayHaveBeenCarriedOut({ transportMessage: 'socket hang up' })).toBe(true);
		expect(mayHaveBeenCarriedOut({ transportMessage: 'Money API token request failed: ECONNREFUSED' })).toBe(false);
		expect(mayHaveBeenCarriedOut({ httpCode: 500 })).toBe(true);
		expect(mayHaveBeenCarriedOut({ httpCode: 503 })).toBe(true);
		expect(mayHaveBeenCarriedOut({ httpCode: 200, unexpectedAnswer: 'text/html, not a JSON object (10 bytes)' })).toBe(true);
		expect(mayHaveBeenCarriedOut({ httpCode: 429 })).toBe(false);
		expect(mayHaveBeenCarriedOut({ httpCode: 401 })).toBe(false);
	});
});

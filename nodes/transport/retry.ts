/** When a failed call is sent again, and how long to wait first. */

export interface RetryPolicy {
	maxRetries: number;
	baseDelayMs?: number;
	maxDelayMs?: number;
	/** A Retry-After longer than this is not waited for: the call fails instead. */
	maxRetryAfterMs?: number;
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

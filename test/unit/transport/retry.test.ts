import { isRetryableStatus, parseRetryAfter, retryDelayMs } from '../../../nodes/transport/retry';

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

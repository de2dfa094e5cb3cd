import { isRetryableStatus, parseRetryAfter, pauseUnlessCancelled, retryDelayMs } from '../../../nodes/transport/retry';

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

describe('pauseUnlessCancelled', () => {
	// n8n 1.x's sleep: resolves at the end of the wait whatever the signal says.
	const sleepIgnoringSignal = async (ms: number) => await new Promise<void>((resolve) => setTimeout(resolve, ms));

	it('stops after the wait when the execution was cancelled during it, as n8n 1.x cannot abort the wait', async () => {
		const controller = new AbortController();
		setTimeout(() => controller.abort(new Error('cancelled by the user')), 5);
		await expect(pauseUnlessCancelled(30, controller.signal, sleepIgnoringSignal)).rejects.toThrow('cancelled by the user');
	});

	it('says the execution was cancelled when the abort gave no reason error', async () => {
		const controller = new AbortController();
		controller.abort('stop');
		await expect(pauseUnlessCancelled(1, controller.signal, sleepIgnoringSignal)).rejects.toThrow(/cancelled; nothing more was sent/);
	});

	it('just waits when nothing was cancelled, with or without a signal', async () => {
		await expect(pauseUnlessCancelled(1, new AbortController().signal, sleepIgnoringSignal)).resolves.toBeUndefined();
		await expect(pauseUnlessCancelled(1, undefined)).resolves.toBeUndefined();
	});
});

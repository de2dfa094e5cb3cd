import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, INode } from 'n8n-workflow';

import { moneyApiCall, moneyApiPages, moneyApiRequest } from '../../../nodes/transport/request';

const node: INode = { id: 'n1', name: 'Money', type: 'n8n-nodes-money.money', typeVersion: 1, position: [0, 0], parameters: {} };

type Reply = { statusCode: number; body?: unknown; headers?: Record<string, string> } | Error;

function fakeContext(replies: Reply[], signal?: AbortSignal) {
	const calls: IHttpRequestOptions[] = [];
	const context = {
		getNode: () => node,
		getExecutionCancelSignal: () => signal,
		logger: { debug: () => {}, warn: () => {} },
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
				calls.push(JSON.parse(JSON.stringify(options)));
				const reply = replies.shift();
				if (!reply) throw new Error('no more replies');
				if (reply instanceof Error) throw reply;
				return { headers: {}, body: {}, ...reply };
			},
		},
	};
	return { context: context as unknown as IExecuteFunctions, calls };
}

const fast = { maxRetries: 3, baseDelayMs: 1 };

describe('moneyApiRequest in a cancelled execution', () => {
	it('sends nothing once the execution is cancelled: the error says so, attempted: false', async () => {
		const controller = new AbortController();
		controller.abort();
		const { context, calls } = fakeContext([{ statusCode: 201 }], controller.signal);
		await expect(moneyApiRequest.call(context, 'POST', '/money/v1/payout', { itemIndex: 3, retry: fast })).rejects.toMatchObject({
			message: 'The execution was cancelled; this request was not sent',
			context: { cancelled: true, attempted: false, itemIndex: 3 },
		});
		expect(calls).toHaveLength(0);
	});

	it('does not resend after a backoff during which the execution was cancelled; the first attempt may have gone through', async () => {
		const controller = new AbortController();
		const { context, calls } = fakeContext([{ statusCode: 503, body: { error_code: 'PROVIDER_UNAVAILABLE' } }, { statusCode: 201 }], controller.signal);
		setTimeout(() => controller.abort(), 20);
		const error = await moneyApiRequest.call(context, 'POST', '/money/v1/payout', { retry: { maxRetries: 3, baseDelayMs: 200 } }).catch((thrown: unknown) => thrown);
		expect(error).toMatchObject({ message: expect.stringContaining('before this request was sent again (1 attempt went out)'), context: { cancelled: true } });
		expect((error as { context: IDataObject }).context.attempted).toBeUndefined();
		expect(calls).toHaveLength(1);
	});

	it('reports a request cut off by the cancel as possibly received, not as a network failure to retry', async () => {
		// n8n 2.x aborts a request in flight: the signal reads aborted once the request went out.
		let sent: IHttpRequestOptions[] = [];
		const signal = { get aborted() { return sent.length > 0; } } as unknown as AbortSignal;
		const { context, calls } = fakeContext([Object.assign(new Error('canceled'), { code: 'ERR_CANCELED' })], signal);
		sent = calls;
		await expect(moneyApiRequest.call(context, 'POST', '/money/v1/payout', { retry: fast })).rejects.toMatchObject({
			message: expect.stringContaining('while this request was under way'),
			context: { cancelled: true },
		});
		expect(calls).toHaveLength(1);
	});
});

describe('moneyApiRequest', () => {
	it('resends the same idempotency key and body after a 503 and a lost connection', async () => {
		const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
		const { context, calls } = fakeContext([
			{ statusCode: 503, body: { success: false, error_code: 'PROVIDER_UNAVAILABLE', message: 'later' } },
			reset,
			{ statusCode: 201, body: { success: true, reference: 'po_1' } },
		]);
		const body = { amount: 5, pin: '1234' };
		const result = await moneyApiRequest.call(context, 'POST', '/money/v1/payout', {
			body,
			headers: { 'idempotency-key': 'k-1' },
			retry: fast,
		});
		expect(result).toEqual({ success: true, reference: 'po_1' });
		expect(calls).toHaveLength(3);
		for (const call of calls) {
			expect(call.headers).toEqual({ 'idempotency-key': 'k-1' });
			expect(call.body).toEqual(body);
			expect(call.url).toBe('/money/v1/payout');
			expect(call.ignoreHttpStatusErrors).toEqual({ ignore: true, except: [401] });
			expect(call.returnFullResponse).toBe(true);
		}
	});

	it('counts the attempts that went unanswered (no answer, 5xx) before the answer, or before it gave up', async () => {
		const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
		const busy = { statusCode: 429, body: { error_code: 'rate_limit_exceeded' }, headers: { 'retry-after': '0' } };
		const answered = fakeContext([reset, busy, { statusCode: 502, body: {} }, { statusCode: 201, body: { success: true } }]);
		expect((await moneyApiCall.call(answered.context, 'POST', '/money/v1/payout', { retry: fast })).unansweredAttempts).toBe(2);
		const clean = fakeContext([{ statusCode: 201, body: { success: true } }]);
		expect((await moneyApiCall.call(clean.context, 'POST', '/money/v1/payout', { retry: fast })).unansweredAttempts).toBe(0);
		const gaveUp = fakeContext([reset, busy]);
		await expect(moneyApiCall.call(gaveUp.context, 'POST', '/money/v1/payout', { retry: { maxRetries: 1, baseDelayMs: 1 } })).rejects.toMatchObject({
			httpCode: '429',
			context: { unansweredAttempts: 1 },
		});
	});

	it('never retries a 4xx', async () => {
		const { context, calls } = fakeContext([{ statusCode: 409, body: { success: false, error_code: 'IDEMPOTENCY_CONFLICT', message: 'x' } }]);
		await expect(moneyApiRequest.call(context, 'POST', '/money/v1/charge', { retry: fast })).rejects.toMatchObject({
			message: 'Money API error IDEMPOTENCY_CONFLICT (HTTP 409): x',
			httpCode: '409',
		});
		expect(calls).toHaveLength(1);
	});

	it('stops after maxRetries and says how many attempts were made', async () => {
		const busy = { statusCode: 429, body: { error_code: 'rate_limit_exceeded' }, headers: { 'retry-after': '0' } };
		const { context, calls } = fakeContext([busy, busy, busy]);
		await expect(moneyApiRequest.call(context, 'GET', '/money/v1/account', { retry: { maxRetries: 2, baseDelayMs: 1 } })).rejects.toMatchObject({
			description: expect.stringContaining('3 attempts'),
		});
		expect(calls).toHaveLength(3);
	});

	it('gives a 401 (a token revoked again after n8n refreshed it) one more round, once per call', async () => {
		const unauthorized = () => Object.assign(new Error('Request failed with status code 401'), { response: { status: 401, data: { error_code: 'unauthorized' }, headers: {} } });
		const once = fakeContext([unauthorized(), { statusCode: 201, body: { success: true } }]);
		await expect(moneyApiRequest.call(once.context, 'POST', '/money/v1/payout', { retry: fast })).resolves.toMatchObject({ success: true });
		expect(once.calls).toHaveLength(2);
		const twice = fakeContext([unauthorized(), unauthorized(), { statusCode: 201 }]);
		await expect(moneyApiRequest.call(twice.context, 'POST', '/money/v1/payout', { retry: fast })).rejects.toMatchObject({ httpCode: '401' });
		expect(twice.calls).toHaveLength(2);
	});

	it('does not wait for a Retry-After beyond the cap', async () => {
		const { context, calls } = fakeContext([{ statusCode: 429, body: {}, headers: { 'retry-after': '3600' } }]);
		await expect(moneyApiRequest.call(context, 'GET', '/money/v1/account', { retry: fast })).rejects.toMatchObject({ httpCode: '429' });
		expect(calls).toHaveLength(1);
	});

	it('pages through a list until pagination.pages', async () => {
		const page = (n: number, pages: number): Reply => ({
			statusCode: 200,
			body: { success: true, data: [{ reference: `r${n}a` }, { reference: `r${n}b` }], pagination: { page: n, limit: 2, total: pages * 2, pages } },
		});
		const { context, calls } = fakeContext([page(1, 3), page(2, 3), page(3, 3)]);
		const all: IDataObject[] = [];
		for await (const listed of moneyApiPages.call(context, '/money/v1/charge', { status: 'PENDING' }, { retry: fast })) all.push(...listed.items);
		expect(all.map((entry: IDataObject) => entry.reference)).toEqual(['r1a', 'r1b', 'r2a', 'r2b', 'r3a', 'r3b']);
		expect(calls.map((call) => call.qs)).toEqual([
			{ status: 'PENDING', page: 1, limit: 100 },
			{ status: 'PENDING', page: 2, limit: 100 },
			{ status: 'PENDING', page: 3, limit: 100 },
		]);
	});
});

describe('a create whose outcome is unknown says so', () => {
	const unavailable = { statusCode: 503, body: { error_code: 'PROVIDER_UNAVAILABLE' } };
	const tooMany = { statusCode: 429, body: { error_code: 'rate_limit_exceeded' }, headers: { 'retry-after': '0' } };

	it('a POST that ends in 503, or in 429 after a 503, may have moved money; a GET that ends in 503 is to be tried later', async () => {
		const descriptionOf = async (method: 'GET' | 'POST', replies: Reply[]) => {
			const { context } = fakeContext(replies);
			const error = await moneyApiRequest.call(context, method, '/money/v1/payout', { retry: { maxRetries: 1, baseDelayMs: 1 } }).catch((thrown: unknown) => thrown);
			return String((error as { description?: string }).description);
		};
		expect(await descriptionOf('POST', [unavailable, unavailable])).toContain('The money may have moved');
		expect(await descriptionOf('POST', [unavailable, tooMany])).toMatch(/An earlier attempt of this request got HTTP 503\. The money may have moved/);
		expect(await descriptionOf('POST', [tooMany, tooMany])).not.toContain('may have moved');
		const read = await descriptionOf('GET', [unavailable, unavailable]);
		expect(read).not.toContain('may have moved');
		expect(read).toContain('Try again later');
	});
});

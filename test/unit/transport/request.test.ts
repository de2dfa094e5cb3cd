import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { itemRoute, ROUTES } from '../../../nodes/api/values';
import { callSettingsOf, cancelSignalOf, moneyApiCreate, moneyApiRequest, waitUnlessCancelled } from '../../../nodes/transport/request';
import { fakeContext, fast, type Reply } from './replies';

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

describe('waitUnlessCancelled', () => {
	// n8n 1.x's sleep: resolves at the end of the wait whatever the signal says.
	const sleepIgnoringSignal = async (ms: number) => await new Promise<void>((resolve) => setTimeout(resolve, ms));
	// n8n 2.x's sleep: rejects with the abort reason as soon as the signal aborts.
	const sleepHonouringSignal = async (ms: number, signal?: AbortSignal) =>
		await new Promise<void>((resolve, reject) => {
			const timer = setTimeout(resolve, ms);
			signal?.addEventListener('abort', () => {
				clearTimeout(timer);
				reject(new Error('This operation was aborted'));
			});
		});

	it('says "cancelled" after the wait when the execution was cancelled during it, as n8n 1.x cannot abort the wait', async () => {
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 5);
		await expect(waitUnlessCancelled(30, controller.signal, sleepIgnoringSignal)).resolves.toBe(true);
	});

	it('says "cancelled" at once when n8n 2.x aborts the wait, instead of throwing its abort error', async () => {
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 5);
		const started = Date.now();
		await expect(waitUnlessCancelled(10_000, controller.signal, sleepHonouringSignal)).resolves.toBe(true);
		expect(Date.now() - started).toBeLessThan(5_000);
	});

	it('does not wait at all once cancelled', async () => {
		const controller = new AbortController();
		controller.abort();
		const wait = jest.fn(sleepIgnoringSignal);
		await expect(waitUnlessCancelled(10_000, controller.signal, wait)).resolves.toBe(true);
		expect(wait).not.toHaveBeenCalled();
	});

	it('just waits when nothing was cancelled, with or without a signal; another failure of the wait is thrown', async () => {
		await expect(waitUnlessCancelled(1, new AbortController().signal, sleepIgnoringSignal)).resolves.toBe(false);
		await expect(waitUnlessCancelled(1, undefined)).resolves.toBe(false);
		await expect(waitUnlessCancelled(1, undefined, async () => await Promise.reject(new Error('timer broke')))).rejects.toThrow('timer broke');
	});

	it('reads the signal of contexts that have one, and none of those that do not', () => {
		const signal = new AbortController().signal;
		expect(cancelSignalOf({ getExecutionCancelSignal: () => signal })).toBe(signal);
		expect(cancelSignalOf({})).toBeUndefined();
	});
});

describe('callSettingsOf', () => {
	it('reads Max Retries, Retry Base Delay and Request Timeout from the Options, the defaults where they are missing or not numbers', () => {
		expect(callSettingsOf({ maxRetries: 2.7, retryBaseDelayMs: 10, requestTimeoutMs: 5000 })).toEqual({ retry: { maxRetries: 2, baseDelayMs: 10 }, timeoutMs: 5000 });
		expect(callSettingsOf({})).toEqual({ retry: { maxRetries: 3, baseDelayMs: 500 }, timeoutMs: 60_000 });
		expect(callSettingsOf({ maxRetries: -1, retryBaseDelayMs: 'x', requestTimeoutMs: 0 })).toEqual({ retry: { maxRetries: 3, baseDelayMs: 500 }, timeoutMs: 60_000 });
		expect(callSettingsOf({ maxRetries: 0 }).retry.maxRetries).toBe(0);
	});
});

describe('moneyApiRequest', () => {
	const acknowledged = { statusCode: 201, body: { success: true, reference: 'po_1' } };

	it('resends the same idempotency key and body after a 503 and a lost connection', async () => {
		const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
		const { context, calls } = fakeContext([
			{ statusCode: 503, body: { success: false, error_code: 'PROVIDER_UNAVAILABLE', message: 'later' } },
			reset,
			acknowledged,
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

	it('says what the first attempt that may have been carried out got (no answer, 5xx), before the answer or before it gave up', async () => {
		const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
		const busy = { statusCode: 429, body: { error_code: 'rate_limit_exceeded' }, headers: { 'retry-after': '0' } };
		const answered = fakeContext([busy, reset, { statusCode: 502, body: {} }, acknowledged]);
		expect(await moneyApiCreate.call(answered.context, '/money/v1/payout', { retry: fast })).toMatchObject({ kind: 'accepted', answer: { unanswered: 'no answer' } });
		const clean = fakeContext([acknowledged]);
		expect((await moneyApiCreate.call(clean.context, '/money/v1/payout', { retry: fast })).kind).toBe('accepted');
		expect(await moneyApiCreate.call(clean.context, '/money/v1/payout', { retry: fast })).not.toHaveProperty('answer.unanswered');
		const gaveUp = fakeContext([{ statusCode: 503, body: {} }, busy]);
		expect(await moneyApiCreate.call(gaveUp.context, '/money/v1/payout', { retry: { maxRetries: 1, baseDelayMs: 1 } })).toMatchObject({ kind: 'unknown', unanswered: 'HTTP 503', error: { httpCode: '429' } });
		const refused = fakeContext([busy, { statusCode: 402, body: { error_code: 'INSUFFICIENT_FUNDS' } }]);
		expect(await moneyApiCreate.call(refused.context, '/money/v1/payout', { retry: fast })).toMatchObject({ kind: 'refused', error: { httpCode: '402' } });
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
		const once = fakeContext([unauthorized(), acknowledged]);
		await expect(moneyApiRequest.call(once.context, 'POST', '/money/v1/payout', { retry: fast })).resolves.toMatchObject({ success: true });
		expect(once.calls).toHaveLength(2);
		const twice = fakeContext([unauthorized(), unauthorized(), acknowledged]);
		await expect(moneyApiRequest.call(twice.context, 'POST', '/money/v1/payout', { retry: fast })).rejects.toMatchObject({ httpCode: '401' });
		expect(twice.calls).toHaveLength(2);
	});

	it('does not wait for a Retry-After beyond the cap', async () => {
		const { context, calls } = fakeContext([{ statusCode: 429, body: {}, headers: { 'retry-after': '3600' } }]);
		await expect(moneyApiRequest.call(context, 'GET', '/money/v1/account', { retry: fast })).rejects.toMatchObject({ httpCode: '429' });
		expect(calls).toHaveLength(1);
	});
});

describe('an error that echoes the request', () => {
	const stored = { authentication: 'clientCredentials', clientId: 'c1', clientSecret: 'cs_0a1b2c3d4e5f', hmacSecret: 'hm_5e6f7a8b', walletPinSecret: '2500', accessToken: 'eyJhbGciOiJSUzI1NiJ9.c2lnbmF0dXJl' };
	const echo = (text: string, code = 'VALIDATION_ERROR') => ({ statusCode: 400, body: { success: false, error_code: code, message: `rejected: ${text}`, details: { request: text, pin: 4321 } } });

	it('carries neither the token or API key the call sent nor the PIN nor any bearer token in what the user reads; the longest secret first', async () => {
		const sent = { id: 'cr1', name: 'Money', type: 'moneyApi', data: { ...stored, accessToken: 'refreshed.token.9', apiKey: 'sk_live_4321abcdef' } };
		const echoed = 'refreshed.token.9 sk_live_4321abcdef pin 4321 Authorization: Bearer someone.elses-token9==';
		const { context } = fakeContext([echo(echoed)], undefined, { ...stored, getCredentialsMustNotBeNeeded: true });
		const outcome = await moneyApiCreate.call(context, ROUTES.payout, { retry: fast, credential: sent, redact: ['4321'] });
		const text = JSON.stringify(outcome);
		for (const secret of ['refreshed.token', 'sk_live', 'abcdef', '4321', 'someone.elses-token']) expect(text).not.toContain(secret);
		expect(text).toContain('Bearer [redacted]');
	});

	it("on a read: the token as n8n stores it; the other secrets, never sent, are left (the Wallet PIN's digits in an amount stay readable)", async () => {
		const { context } = fakeContext([echo(`${stored.accessToken} limit 2500.50, ${stored.clientSecret}`)], undefined, stored);
		const thrown = await moneyApiRequest.call(context, 'GET', ROUTES.account, { retry: fast }).catch((error: unknown) => error as Error & { description?: string });
		const text = `${thrown.message} ${thrown.description ?? ''}`;
		expect(text).not.toContain(stored.accessToken);
		expect(text).toContain('limit 2500.50');
		expect(text).toContain('VALIDATION_ERROR');
	});

	it('leaves the error_code and the server date as they came, and logs no error_code that is not one', async () => {
		const logged: unknown[] = [];
		const { context } = fakeContext([{ statusCode: 503, body: { error: `token ${stored.accessToken} rejected` } }, echo('x', 'SEC_ENDPOINT_NOT_AUTHORIZED')], undefined, { ...stored, accessToken: 'AUTH' });
		(context.logger as unknown as { debug: (...args: unknown[]) => void }).debug = (...args: unknown[]) => logged.push(args);
		const thrown = await moneyApiRequest.call(context, 'GET', ROUTES.account, { retry: fast }).catch((error: unknown) => error as Error);
		expect(thrown.message).toContain('SEC_ENDPOINT_NOT_AUTHORIZED');
		expect(JSON.stringify(logged)).not.toContain(stored.accessToken);
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

describe('a 2xx that is not the Money API answer (docs/decisions.md#d13)', () => {
	const json = { 'content-type': 'application/json; charset=utf-8' };
	const html = '<html><body>Maintenance</body></html>';
	const charge = { reference: 'ch_1', status: 'PENDING' };

	/** The error of a call whose every attempt got `reply`. */
	async function failureOf(method: 'GET' | 'POST', route: string, reply: Reply, maxRetries = 0) {
		const { context, calls } = fakeContext(Array.from({ length: maxRetries + 1 }, () => reply));
		const error = await (method === 'POST' ? moneyApiCreate.call(context, route, { retry: { maxRetries, baseDelayMs: 1 } }) : moneyApiRequest.call(context, method, route, { retry: { maxRetries, baseDelayMs: 1 } })).then(
			(outcome) => (outcome && 'error' in outcome ? (outcome.error as unknown as { message: string; description: string; httpCode: string; context: IDataObject }) : undefined),
			(thrown: unknown) => thrown as { message: string; description: string; httpCode: string; context: IDataObject },
		);
		if (!error) throw new Error(`${method} ${route} was taken as answered`);
		return { error, calls };
	}

	it.each([
		['a web page', 'POST', ROUTES.payout, { statusCode: 200, body: html, headers: { 'content-type': 'text/html' } }, `HTTP 200 with text/html (${Buffer.byteLength(html)} bytes), not a JSON object`],
		['success: false', 'GET', itemRoute('charge', 'ch_1'), { statusCode: 200, body: { success: false, error_code: 'MAINTENANCE' }, headers: json }, 'HTTP 200 with application/json, success: false (error_code MAINTENANCE)'],
		['a create answer without reference', 'POST', ROUTES.charge, { statusCode: 201, body: { success: true, data: charge }, headers: json }, 'HTTP 201 with application/json but without the reference of an acknowledgement'],
		['a list without pagination', 'GET', ROUTES.payout, { statusCode: 200, body: { success: true, data: [charge] }, headers: json }, 'HTTP 200 with application/json but without the data and pagination of a list'],
		['a record without data', 'GET', itemRoute('payout', 'po_1'), { statusCode: 200, body: { success: true }, headers: json }, 'HTTP 200 with application/json but without the data of a transaction'],
		['transaction details without reference', 'GET', itemRoute('transactionDetails', 'T-1'), { statusCode: 200, body: { status: 'COMPLETED' }, headers: json }, 'HTTP 200 with application/json but without the reference of transaction details'],
		['the account without account', 'GET', ROUTES.account, { statusCode: 200, body: { success: true, data: {} } }, 'HTTP 200 with no content type but without the account'],
	] as Array<[string, 'GET' | 'POST', string, Reply, string]>)('is not taken as a result: %s', async (_what, method, route, reply, said) => {
		const { error } = await failureOf(method, route, reply);
		expect(error.message).toBe(`The Money API's answer was not one it gives: ${said}`);
		expect(error.description).toContain('Something other than the Money API may have answered');
		expect(error.context.httpCode).toBe(Number(said.slice(5, 8)));
	});

	it('is sent again like a 503, the same key and body, and the API answer after it is the result', async () => {
		const { context, calls } = fakeContext([{ statusCode: 200, body: html, headers: { 'content-type': 'text/html' } }, { statusCode: 201, body: { success: true, reference: 'po_1' } }]);
		const outcome = await moneyApiCreate.call(context, ROUTES.payout, { body: { amount: 5 }, headers: { 'idempotency-key': 'k-1' }, retry: fast });
		expect(outcome).toMatchObject({ kind: 'accepted', answer: { body: { reference: 'po_1' }, unanswered: 'HTTP 200' } });
		expect(calls).toHaveLength(2);
		expect(calls[1]).toEqual(calls[0]);
	});

	it('after the last attempt, a POST says the money may have moved', async () => {
		const page = { statusCode: 200, body: html, headers: { 'content-type': 'text/html' } };
		const { error, calls } = await failureOf('POST', ROUTES.payout, page, 2);
		expect(calls).toHaveLength(3);
		expect(error.description).toContain('(3 attempts made)');
		expect(error.description).toContain('An earlier attempt of this request got HTTP 200. The money may have moved');
		expect(error.description).not.toContain('Check the Base URL');
	});

	it('a GET says to check the Base URL, never that money may have moved', async () => {
		const { error } = await failureOf('GET', ROUTES.account, { statusCode: 200, body: html, headers: { 'content-type': 'text/html' } }, 1);
		expect(error.description).toContain('Check the Base URL of the Money API credential, then try again later. (2 attempts made)');
		expect(error.description).not.toContain('may have moved');
	});

	it('takes what the specification gives for each route', async () => {
		const answers: Array<[string, unknown]> = [
			[ROUTES.payout, { success: true, data: [], pagination: { page: 1, pages: 1 } }],
			[itemRoute('charge', 'ch_1'), { success: true, data: charge }],
			[itemRoute('transactionDetails', 'T-1'), { reference: 'T-1', status: 'COMPLETED' }],
			[ROUTES.account, { success: true, account: { number: 'WAL-1' } }],
		];
		for (const [route, body] of answers) {
			const { context } = fakeContext([{ statusCode: 200, body: JSON.stringify(body), headers: json }]);
			await expect(moneyApiRequest.call(context, 'GET', route, { retry: fast })).resolves.toEqual(body);
		}
	});
});

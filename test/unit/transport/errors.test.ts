import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { asNodeError, cancelledError, errorItemJson, explainFailure, isCancellation, moneyApiError, notSent, redactFailure } from '../../../nodes/transport/errors';
import { failureFromThrown } from '../../../nodes/transport/failures';

const node: INode = {
	id: 'n1',
	name: 'Money',
	type: 'n8n-nodes-money.money',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

describe('error mapping (spec 7)', () => {
	it.each([
		['VALIDATION_ERROR', 400, { amount: 'must be an integer' }, 'amount: must be an integer'],
		['CHANNEL_NOT_SUPPORTED', 400, undefined, 'channel'],
		['PAYER_NOT_ELIGIBLE', 400, undefined, 'cannot be charged'],
		['BENEFICIARY_NOT_ELIGIBLE', 400, undefined, 'cannot receive funds'],
		['MERCHANT_ACCOUNT_NOT_CONFIGURED', 400, undefined, 'primary wallet'],
		['MERCHANT_PROFILE_INCOMPLETE', 400, undefined, 'complete the merchant profile'],
		['INSUFFICIENT_FUNDS', 402, { available_balance: 1200, currency: 'XOF' }, 'available_balance: 1200'],
		['SEC_ENDPOINT_NOT_AUTHORIZED', 403, undefined, 'entitlement'],
		['LIMIT_EXCEEDED', 403, { limit: 'daily_cap', daily_cap: 100000, max_amount: 5000 }, 'daily_cap: 100000'],
		['MERCHANT_NOT_RESOLVED', 403, undefined, 'merchant profile could not be loaded'],
		['PAYER_NOT_FOUND', 404, undefined, 'No payer'],
		['BENEFICIARY_NOT_FOUND', 404, undefined, 'No beneficiary'],
		['CHARGE_NOT_FOUND', 404, undefined, 'Create Charge'],
		['PAYOUT_NOT_FOUND', 404, undefined, 'Create Payout'],
		['ACCOUNT_NOT_FOUND', 404, undefined, 'not visible'],
		['IDEMPOTENCY_CONFLICT', 409, undefined, 'different payload'],
		['UPSTREAM_ERROR', 502, undefined, 'retried'],
		['PROVIDER_UNAVAILABLE', 503, undefined, 'retried'],
		['INTERNAL_ERROR', 500, undefined, 'failed unexpectedly'],
		['merchant_account_not_configured', 400, undefined, 'primary wallet'],
		['merchant_profile_incomplete', 400, undefined, 'merchant profile'],
		['merchant_not_linked', 403, undefined, 'link the client'],
		['merchant_not_resolved', 403, undefined, 'merchant profile could not be loaded'],
		['transaction_not_found', 404, undefined, 'neither its payer nor its payee'],
		['account_not_found', 404, undefined, 'wallet details'],
		['service_unavailable', 502, undefined, 'retried'],
		['unauthenticated', 401, undefined, 'HMAC Secret'],
		['forbidden', 403, undefined, 'entitlement'],
		['not_found', 404, undefined, 'Base URL'],
		['rate_limit_exceeded', 429, undefined, 'retried'],
	])('%s (HTTP %s) names the code and says what to do', (code, status, details, advice) => {
		const { message, description } = explainFailure({ httpCode: status, errorCode: code, apiMessage: 'api says no', details });
		expect(message).toBe(`Money API error ${code} (HTTP ${status}): api says no`);
		expect(description).toContain(advice);
	});

	/** What a create whose outcome is unknown says: the money may have moved, a Retry is safe, a new run pays again. */
	function expectUnknownOutcome(description: string) {
		expect(description).toContain('The money may have moved');
		expect(description).toContain('A Retry of this execution (or Retry On Fail) sends it again under the same idempotency key');
		expect(description).toContain('a new run of the workflow pays it again unless a Business Reference is mapped');
		expect(description).not.toContain('Try again later');
	}

	it.each([
		[502, 'UPSTREAM_ERROR'],
		[502, undefined],
		[503, 'PROVIDER_UNAVAILABLE'],
		[503, undefined],
		[504, undefined],
		[500, 'INTERNAL_ERROR'],
		[500, undefined],
		[undefined, undefined],
	])('says a create that ended in %s (%s) may have moved money, and how to send it again safely', (httpCode, errorCode) => {
		expectUnknownOutcome(explainFailure({ httpCode, errorCode, transportMessage: 'socket hang up', createOutcomeUnknown: true }).description);
		expect(explainFailure({ httpCode, errorCode, transportMessage: 'socket hang up' }).description).not.toContain('may have moved');
	});

	it.each([
		[429, 'rate_limit_exceeded', 'no answer'],
		[401, 'unauthenticated', 'HTTP 503'],
		[402, 'INSUFFICIENT_FUNDS', 'HTTP 502'],
	])('says a create refused with %s (%s) after an attempt that got %s may have moved money', (httpCode, errorCode, earlierUnanswered) => {
		const { description } = explainFailure({ httpCode, errorCode, earlierUnanswered, createOutcomeUnknown: true, attempts: 3 });
		expect(description).toContain(`An earlier attempt of this request got ${earlierUnanswered}.`);
		expectUnknownOutcome(description);
		expect(explainFailure({ httpCode, errorCode, attempts: 3 }).description).not.toContain('may have moved');
	});

	it('says once, not twice, that a create answered 502 after a lost attempt may have moved money', () => {
		const { description } = explainFailure({ httpCode: 502, errorCode: 'UPSTREAM_ERROR', earlierUnanswered: 'no answer', createOutcomeUnknown: true });
		expect(description.split('may have moved')).toHaveLength(2);
	});

	it('tells a read that failed on a 5xx to try again later', () => {
		expect(explainFailure({ httpCode: 503, errorCode: 'service_unavailable', attempts: 4 }).description).toBe('The data could not be loaded upstream; the node already retried with backoff. Try again later. (4 attempts made)');
	});

	it('says after IDEMPOTENCY_CONFLICT that the payment exists, and that another Business Reference would pay it again', () => {
		const { description } = explainFailure({ httpCode: 409, errorCode: 'IDEMPOTENCY_CONFLICT' });
		expect(description).toContain('already holds a create under this idempotency key');
		expect(description).toContain('second payment');
		expect(description).not.toContain('give each distinct payment its own Business Reference');
	});

	it('handles unknown codes and bare statuses gracefully', () => {
		expect(explainFailure({ httpCode: 418, errorCode: 'TEAPOT' })).toEqual({
			message: 'Money API error TEAPOT (HTTP 418)',
			description: expect.stringContaining('Unrecognised error code TEAPOT'),
		});
		expect(explainFailure({ httpCode: 401 }).description).toContain('Client Secret');
		expect(explainFailure({ httpCode: 599 }).description).toContain('Try again later');
		expect(explainFailure({ transportMessage: 'socket hang up', attempts: 4 }).message).toBe(
			'Money API request failed after 4 attempts: socket hang up',
		);
	});

	it('explains a refused token request as a credential problem', () => {
		const explained = explainFailure({ transportMessage: 'Money API token request failed (HTTP 401, invalid_client): check the Client ID' });
		expect(explained.message).toContain('invalid_client');
		expect(explained.description).toContain('Client Secret');
	});

	it('says the clock is off on a 401 whose Date is more than 300 s away (D5)', () => {
		const now = Date.parse('2024-05-01T12:00:00Z');
		const ahead = explainFailure({ httpCode: 401, serverDate: 'Wed, 01 May 2024 11:50:00 GMT' }, now);
		expect(ahead.message).toContain('600 s ahead of');
		const behind = explainFailure({ httpCode: 401, serverDate: 'Wed, 01 May 2024 12:06:00 GMT' }, now);
		expect(behind.message).toContain('360 s behind');
		const fine = explainFailure({ httpCode: 401, errorCode: 'unauthorized', serverDate: 'Wed, 01 May 2024 12:04:00 GMT' }, now);
		expect(fine.message).not.toContain('clock');
	});

	it('builds a fresh NodeApiError from a thrown client error without its request', () => {
		const pin = '48151623';
		const axiosLike = Object.assign(new Error('Request failed with status code 401'), {
			config: { headers: { authorization: 'Bearer tok-secret-123', 'x-hmac-signature': 'f'.repeat(64) }, data: `{"pin":"${pin}"}` },
			response: { status: 401, data: { success: false, error_code: 'unauthorized', message: 'bad signature' }, headers: { date: new Date().toUTCString() } },
		});
		const wrapped = new NodeApiError(node, axiosLike as unknown as JsonObject);
		const { failure, retryable } = failureFromThrown(wrapped);
		expect(retryable).toBe(false);
		const error = moneyApiError(node, redactFailure(failure, [pin]), 3);
		expect(error).not.toBe(wrapped);
		expect(error.httpCode).toBe('401');
		expect(error.context).toMatchObject({ error_code: 'unauthorized', httpCode: 401, itemIndex: 3 });
		const everything = JSON.stringify({ ...error, message: error.message, description: error.description, cause: error.cause });
		expect(everything).not.toContain('tok-secret-123');
		expect(everything).not.toContain(pin);
		expect(everything).not.toContain('f'.repeat(64));
	});

	it('redacts the PIN if the API ever echoes it', () => {
		const failure = redactFailure({ httpCode: 400, apiMessage: 'pin 48151623 is wrong', details: { pin: '48151623' } }, ['48151623', undefined]);
		expect(JSON.stringify(failure)).not.toContain('48151623');
		expect(failure.apiMessage).toBe('pin [redacted] is wrong');
	});

	it('redacts a secret the API echoes as a key of its details, whatever the depth', () => {
		const failure = redactFailure({ httpCode: 400, details: { fields: { '48151623': 'bad pin', 'Bearer eyJhbGciOi.J9eyJzdWIi': 'expired' } } }, ['48151623']);
		expect(JSON.stringify(failure)).not.toContain('48151623');
		expect(JSON.stringify(failure)).not.toContain('eyJhbGciOi');
		expect(failure.details).toEqual({ fields: { '[redacted]': 'bad pin', 'Bearer [redacted]': 'expired' } });
	});

	it('leaves a PIN of digits inside a longer number, so no marker shows where its digits are', () => {
		const failure = redactFailure({ httpCode: 402, apiMessage: 'available 512345 of 1234', details: {} }, ['1234', 'Q2lwaGVy+/=']);
		expect(failure.apiMessage).toBe('available 512345 of [redacted]');
	});

	it('blanks a bearer token whoever it belongs to, and leaves the word in prose', () => {
		const failure = redactFailure({ httpCode: 401, apiMessage: 'Bearer token expired; got Authorization: Bearer eyJhbGciOi.J9eyJzdWIi', details: { authorization: 'bearer abcdefghijklmnopqrstuvwxyz0==', note: 'Bearer authentication-required' } }, []);
		expect(failure.apiMessage).toBe('Bearer token expired; got Authorization: Bearer [redacted]');
		expect(failure.details).toEqual({ authorization: 'bearer [redacted]', note: 'Bearer authentication-required' });
	});
});

describe('a create whose outcome is unknown says so whatever its last failure was', () => {
	it('a clock refusal (401) after an attempt answered 503', () => {
		const { message, description } = explainFailure({ httpCode: 401, serverDate: new Date(Date.now() - 3_600_000).toUTCString(), createOutcomeUnknown: true, earlierUnanswered: 'HTTP 503' });
		expect(message).toContain('clock');
		expect(description).toContain('An earlier attempt of this request got HTTP 503. The money may have moved');
	});

	it('a token that could not be fetched after an attempt that got no answer: something was sent', () => {
		const { description } = explainFailure({ transportMessage: 'Money API token request failed: ECONNREFUSED', createOutcomeUnknown: true, earlierUnanswered: 'no answer' });
		expect(description).not.toContain('nothing was sent');
		expect(description).toContain('The money may have moved');
	});
});

describe('an answer that was not the Money API answer', () => {
	const unexpectedAnswer = 'text/html, not a JSON object (38 bytes)';

	it('says what came back, and to check the Base URL', () => {
		expect(explainFailure({ httpCode: 200, unexpectedAnswer, attempts: 4 })).toEqual({
			message: "The Money API's answer was not one it gives: HTTP 200 with text/html, not a JSON object (38 bytes)",
			description:
				'Something other than the Money API may have answered (a proxy, a maintenance page, a wrong Base URL in the credential), so the answer was not taken as a result. Check the Base URL of the Money API credential, then try again later. (4 attempts made)',
		});
	});

	it('for a create, says the money may have moved instead of to try again', () => {
		const { description } = explainFailure({ httpCode: 201, unexpectedAnswer, createOutcomeUnknown: true, earlierUnanswered: 'HTTP 201', attempts: 2 });
		expect(description).toContain('(2 attempts made) An earlier attempt of this request got HTTP 201. The money may have moved');
		expect(description).not.toContain('try again later');
	});
});

describe('cancelledError', () => {
	it('marks the error cancelled, and attempted: false only when nothing went out', () => {
		const unsent = cancelledError(node, 'not sent', { itemIndex: 2, attempted: false });
		expect(unsent.context).toMatchObject({ cancelled: true, attempted: false, itemIndex: 2 });
		expect(unsent.description).toBe('Nothing was sent for this item: the execution was stopped.');
		expect(isCancellation(unsent)).toBe(true);
		const underWay = cancelledError(node, 'cut off', { attempted: true });
		expect(underWay.context.attempted).toBeUndefined();
		expect(underWay.description).toMatch(/may have reached the Money API/);
		expect(isCancellation(new Error('x'))).toBe(false);
		expect(isCancellation(undefined)).toBe(false);
	});
});

describe('notSent', () => {
	it('is the one shape of a refusal: attempted: false, the item, what and why, what to do, and what it concerns', () => {
		const error = notSent(node, 4, 'Not sent: no', 'Do this.', { field: 'amount', parameter: 'amount', error_code: null });
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('Not sent: no');
		expect(error.description).toBe('Do this.');
		expect(error.context).toMatchObject({ attempted: false, itemIndex: 4, field: 'amount', parameter: 'amount', error_code: null });
	});
});

describe('asNodeError', () => {
	it('keeps the node own errors, giving them the item when they have none, and makes any other a NodeOperationError with its message only', () => {
		const own = new NodeOperationError(node, 'mine');
		expect(asNodeError(node, own, 3)).toBe(own);
		expect(own.context.itemIndex).toBe(3);
		const placed = new NodeOperationError(node, 'placed', { itemIndex: 1 });
		expect(asNodeError(node, placed, 3).context.itemIndex).toBe(1);
		const other = asNodeError(node, Object.assign(new Error('boom'), { config: { headers: { authorization: 'Bearer secret' } } }), 2);
		expect(other).toBeInstanceOf(NodeOperationError);
		expect(other.message).toBe('boom');
		expect(JSON.stringify(other)).not.toContain('secret');
		expect(asNodeError(node, 'text', 0).message).toBe('text');
	});
});

describe('errorItemJson', () => {
	it('keeps the message, description, code, HTTP status, details, field and attempted: false', () => {
		const error = new NodeOperationError(node, 'Money API error LIMIT_EXCEEDED (HTTP 403): no', { description: 'Lower the amount', itemIndex: 2 });
		Object.assign(error.context, {
			error_code: 'LIMIT_EXCEEDED',
			httpCode: 403,
			details: { max_amount: 3000 },
			field: 'amount',
			attempted: false,
			idempotency_key: 'k-1',
		});
		expect(errorItemJson(error)).toEqual({
			error: 'Money API error LIMIT_EXCEEDED (HTTP 403): no',
			description: 'Lower the amount',
			error_code: 'LIMIT_EXCEEDED',
			httpCode: 403,
			details: { max_amount: 3000 },
			field: 'amount',
			attempted: false,
		});
	});

	it('says null for what a bare error does not know, and leaves the rest out', () => {
		const error = new NodeOperationError(node, 'boom');
		Object.assign(error.context, { attempted: true });
		expect(errorItemJson(error)).toEqual({ error: 'boom', description: null, error_code: null, httpCode: null });
	});

	it('takes the status of an API error and marks a cancelled one', () => {
		expect(errorItemJson(moneyApiError(node, { httpCode: 503, errorCode: 'PROVIDER_UNAVAILABLE' }))).toMatchObject({ error_code: 'PROVIDER_UNAVAILABLE', httpCode: 503 });
		expect(errorItemJson(cancelledError(node, 'stopped', { attempted: false }))).toMatchObject({ attempted: false, cancelled: true });
	});
});

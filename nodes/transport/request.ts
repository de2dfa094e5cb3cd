import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { MONEY_API_CREDENTIAL_TYPE, ROUTES } from '../api/values';
import { cancelledError, moneyApiError, redactFailure } from './errors';
import {
	answerForm,
	DEFAULT_RETRY_POLICY,
	DEFAULT_TIMEOUT_MS,
	failureFromResponse,
	failureFromThrown,
	type FullResponse,
	headerValue,
	isObject,
	isRetryableStatus,
	mayHaveBeenCarriedOut,
	type MoneyApiFailure,
	parseBody,
	retryDelayMs,
	type RetryPolicy,
} from './failures';

export type MoneyApiContext = IExecuteFunctions | IPollFunctions | IWebhookFunctions | ILoadOptionsFunctions;

/** How many times and how long a call is tried: the Options Max Retries, Retry Base Delay and Request Timeout. */
export interface CallSettings {
	retry: RetryPolicy;
	timeoutMs: number;
}

export interface MoneyApiRequestOptions extends Partial<CallSettings> {
	qs?: IDataObject;
	body?: IDataObject;
	headers?: IDataObject;
	itemIndex?: number;
	/** Values to blank out of any error text (the PIN and its ciphertext). */
	redact?: Array<string | undefined>;
	/** The credential to send with, as read once for a create run; without it n8n reads the credential for every attempt. */
	credential?: ICredentialsDecrypted;
}

export interface MoneyApiAnswer {
	body: IDataObject;
	/** The answer's headers, names in lower case. */
	headers: Record<string, unknown>;
	/**
	 * Earlier attempts of this call that may have been carried out (no answer, a 5xx, a 2xx that was
	 * not the API's answer). A failed call's error carries the count, its last attempt included, in
	 * `context.unansweredAttempts`.
	 */
	unansweredAttempts: number;
}

function numberOption(options: IDataObject, name: string, fallback: number): number {
	const value = options[name];
	return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

/** The call settings of a node's Options (descriptions/options.ts). */
export function callSettingsOf(options: IDataObject): CallSettings {
	return {
		retry: { maxRetries: Math.floor(numberOption(options, 'maxRetries', DEFAULT_RETRY_POLICY.maxRetries)), baseDelayMs: numberOption(options, 'retryBaseDelayMs', DEFAULT_RETRY_POLICY.baseDelayMs) },
		timeoutMs: numberOption(options, 'requestTimeoutMs', DEFAULT_TIMEOUT_MS) || DEFAULT_TIMEOUT_MS,
	};
}

/**
 * A stopped execution (the editor's Stop, the Executions list, a workflow timeout) aborts the
 * signal n8n gives the node, but n8n lets a running node run on: the node looks at the signal
 * before sending anything else (docs/idempotency.md, "Cancelling a run").
 */
export function cancelSignalOf(context: object): AbortSignal | undefined {
	const { getExecutionCancelSignal } = context as Partial<Pick<IExecuteFunctions, 'getExecutionCancelSignal'>>;
	return typeof getExecutionCancelSignal === 'function' ? getExecutionCancelSignal.call(context) : undefined;
}

/**
 * Waits `ms` unless the execution is stopped first; true when it was stopped, before or during the
 * wait. n8n 2.x's `sleep` rejects as soon as the signal aborts; n8n 1.x's ignores the signal and
 * resolves at the end of the wait: the check after it keeps a stopped run from sending more.
 */
export async function waitUnlessCancelled(ms: number, signal: AbortSignal | undefined, wait: (ms: number, signal?: AbortSignal) => Promise<void> = sleep): Promise<boolean> {
	if (signal?.aborted) return true;
	const interrupted = await wait(ms, signal).then(
		() => false,
		(error: unknown) => (signal?.aborted ? true : Promise.reject(error)),
	);
	return interrupted || signal?.aborted === true;
}

/**
 * What a 2xx must be to count as the Money API's answer (docs/decisions.md#d13): a JSON object
 * that is not `success: false`, with what the specification gives for the route: a create's
 * acknowledgement its `reference`, a charge or payout its `data`, a list `data` and `pagination`,
 * transaction details their `reference`, the account its `account`. Anything else (a proxy's web
 * page, a body without the result) is not taken as a result: this says what came back.
 */
function unexpectedAnswer(method: 'GET' | 'POST', route: string, response: FullResponse, body: unknown): string | undefined {
	const type = headerValue(response.headers, 'content-type')?.split(';')[0].trim() || 'no content type';
	if (!isObject(body)) return `${answerForm(response.headers, response.body)}, not a JSON object`;
	if (body.success === false) return `${type}, success: false${typeof body.error_code === 'string' ? ` (error_code ${body.error_code})` : ''}`;
	const missing = (what: string) => `${type} but without ${what}`;
	if (method === 'POST') return typeof body.reference === 'string' && body.reference !== '' ? undefined : missing('the reference of an acknowledgement');
	if (route === ROUTES.account) return isObject(body.account) ? undefined : missing('the account');
	if (route.startsWith(`${ROUTES.transactionDetails}/`)) return typeof body.reference === 'string' ? undefined : missing('the reference of transaction details');
	if (route === ROUTES.charge || route === ROUTES.payout) return Array.isArray(body.data) && isObject(body.pagination) ? undefined : missing('the data and pagination of a list');
	return isObject(body.data) ? undefined : missing('the data of a transaction');
}

/**
 * The one way the pack calls the Money API. The credential signs each attempt; the node never
 * touches auth headers. Retries 429, 502, 503, 504, lost connections and answers that were not the
 * API's with backoff, resending the same headers (idempotency key included) and body, so a create
 * moves money once. A 401 is left to n8n, which refreshes the token and resends once; a 401 after
 * that gets one more round. Nothing is sent, first attempt or resend, once the execution is stopped.
 */
export async function moneyApiCall(this: MoneyApiContext, method: 'GET' | 'POST', route: string, options: MoneyApiRequestOptions = {}): Promise<MoneyApiAnswer> {
	const policy = { ...DEFAULT_RETRY_POLICY, ...(options.retry ?? {}) };
	const signal = cancelSignalOf(this);
	const { itemIndex } = options;
	const requestOptions: IHttpRequestOptions = {
		method,
		url: route,
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: { ignore: true, except: [401] },
		timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
		headers: { ...(options.headers ?? {}) },
	};
	if (options.qs && Object.keys(options.qs).length > 0) requestOptions.qs = options.qs;
	if (options.body) requestOptions.body = options.body;
	let unansweredAttempts = 0;
	let authRetried = false;
	/** What the first attempt that may have been carried out got (no answer, a 503, ...). */
	let earlierUnanswered: string | undefined;
	for (let attempt = 0; ; attempt++) {
		if (signal?.aborted) {
			throw attempt === 0
				? cancelledError(this.getNode(), 'The execution was cancelled; this request was not sent', { itemIndex, attempted: false })
				: cancelledError(this.getNode(), `The execution was cancelled before this request was sent again (${attempt} attempt${attempt > 1 ? 's' : ''} went out)`, { itemIndex, attempted: true });
		}
		let failure: MoneyApiFailure;
		let retryable: boolean;
		try {
			const response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				MONEY_API_CREDENTIAL_TYPE,
				{ ...requestOptions, headers: { ...requestOptions.headers }, ...(requestOptions.qs ? { qs: { ...requestOptions.qs } } : {}) },
				options.credential ? { credentialsDecrypted: options.credential } : undefined,
			)) as FullResponse;
			const body = parseBody(response.body);
			if (response.statusCode >= 200 && response.statusCode < 300) {
				const unexpected = unexpectedAnswer(method, route, response, body);
				if (unexpected === undefined) return { body: body as IDataObject, headers: response.headers ?? {}, unansweredAttempts };
				failure = { httpCode: response.statusCode, unexpectedAnswer: unexpected };
				retryable = true;
			} else {
				failure = failureFromResponse(response.statusCode, body, response.headers);
				retryable = isRetryableStatus(response.statusCode);
			}
		} catch (error) {
			if (signal?.aborted) {
				throw cancelledError(this.getNode(), 'The execution was cancelled while this request was under way; it may have reached the Money API', { itemIndex, attempted: true });
			}
			({ failure, retryable } = failureFromThrown(error));
		}
		// n8n answers a 401 with a new token and one resend; a token revoked again before that resend
		// (a rotation under way, other executions refreshing) gets one more round, once per call.
		if (!retryable && failure.httpCode === 401 && !authRetried) retryable = authRetried = true;

		failure.attempts = attempt + 1;
		const carriedOut = mayHaveBeenCarriedOut(failure);
		if (carriedOut) unansweredAttempts++;
		const waitMs = retryable ? retryDelayMs(attempt, policy, failure.retryAfterSeconds) : -1;
		if (!retryable || attempt >= policy.maxRetries || waitMs < 0 || waitMs > policy.maxRetryAfterMs) {
			// A create that may have been carried out must not read as "not made".
			if (method === 'POST' && (earlierUnanswered !== undefined || carriedOut)) {
				failure.createOutcomeUnknown = true;
				if (earlierUnanswered !== undefined) failure.earlierUnanswered = earlierUnanswered;
			}
			const error = moneyApiError(this.getNode(), redactFailure(failure, options.redact ?? []), itemIndex);
			error.context.unansweredAttempts = unansweredAttempts;
			// What the first attempt that may have been carried out got: what a later Retry names as the earlier attempt.
			if (carriedOut || earlierUnanswered !== undefined) error.context.unanswered = earlierUnanswered ?? (failure.httpCode === undefined ? 'no answer' : `HTTP ${failure.httpCode}`);
			throw error;
		}
		if (earlierUnanswered === undefined && carriedOut) earlierUnanswered = failure.httpCode === undefined ? 'no answer' : `HTTP ${failure.httpCode}`;
		this.logger.debug('Money API call will be retried', { route, method, httpCode: failure.httpCode, errorCode: failure.errorCode, attempt: attempt + 1, waitMs });
		await waitUnlessCancelled(waitMs, signal);
	}
}

/** moneyApiCall's answer body. */
export async function moneyApiRequest(this: MoneyApiContext, method: 'GET' | 'POST', route: string, options: MoneyApiRequestOptions = {}): Promise<IDataObject> {
	return (await moneyApiCall.call(this, method, route, options)).body;
}

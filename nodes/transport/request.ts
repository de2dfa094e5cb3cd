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

import { MONEY_API_CREDENTIAL_TYPE, ROUTES, SENT_SECRET_FIELDS } from '../api/values';
import { cancelledError, moneyApiError, type NodeError, redactFailure } from './errors';
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
	/** Values to blank out of any error text besides the token or API key the call sent (the PIN and its ciphertext). */
	redact?: Array<string | undefined>;
	/** The credential to send with, as read once for a create run; without it n8n reads the credential for every attempt. */
	credential?: ICredentialsDecrypted;
}

export interface MoneyApiAnswer {
	body: IDataObject;
	/** The answer's headers, names in lower case. */
	headers: Record<string, unknown>;
	/** What the first earlier attempt of this call that may have been carried out got ('no answer', 'HTTP 503'), if one did. */
	unanswered?: string;
}

/**
 * What a create came to, decided here once: the API's acknowledgement; a refusal (no attempt was
 * carried out); or unknown: an attempt may have been carried out (no answer, a 5xx, a 2xx that was
 * not the API's answer), `unanswered` saying what the first such attempt got.
 */
export type CreateOutcome =
	| { kind: 'accepted'; answer: MoneyApiAnswer }
	| { kind: 'refused'; error: NodeError }
	| { kind: 'unknown'; error: NodeError; unanswered: string };

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
 * The token or API key the call sent, which an API or a gateway that echoes a request into its
 * error must not put in front of the user: from the credential the call sent with (n8n writes a
 * refreshed token into it), else as n8n stores it now, read once the call has failed.
 */
async function sentSecrets(context: MoneyApiContext, sent: ICredentialsDecrypted | undefined): Promise<unknown[]> {
	const data = sent?.data ?? (await Promise.resolve().then(() => context.getCredentials(MONEY_API_CREDENTIAL_TYPE)).catch(() => undefined));
	return SENT_SECRET_FIELDS.map((field) => data?.[field]);
}

/** What an attempt that may have been carried out got, as a Retry names it. */
function unansweredLabel(failure: MoneyApiFailure): string {
	return failure.httpCode === undefined ? 'no answer' : `HTTP ${failure.httpCode}`;
}

/**
 * The one way the pack calls the Money API. The credential signs each attempt; the node never
 * touches auth headers. Retries 429, 502, 503, 504, lost connections and answers that were not the
 * API's with backoff, resending the same headers (idempotency key included) and body, so a create
 * moves money once. A 401 is left to n8n, which refreshes the token and resends once; a 401 after
 * that gets one more round. Nothing is sent, first attempt or resend, once the execution is stopped.
 * Never throws: the answer, or the error with what the first attempt that may have been carried out got.
 */
async function call(this: MoneyApiContext, method: 'GET' | 'POST', route: string, options: MoneyApiRequestOptions): Promise<{ answer: MoneyApiAnswer } | { error: NodeError; unanswered?: string }> {
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
	let authRetried = false;
	/** What the first attempt that may have been carried out got. */
	let unanswered: string | undefined;
	for (let attempt = 0; ; attempt++) {
		if (signal?.aborted) {
			const error =
				attempt === 0
					? cancelledError(this.getNode(), 'The execution was cancelled; this request was not sent', { itemIndex, attempted: false })
					: cancelledError(this.getNode(), `The execution was cancelled before this request was sent again (${attempt} attempt${attempt > 1 ? 's' : ''} went out)`, { itemIndex, attempted: true });
			return { error, unanswered };
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
				if (unexpected === undefined) return { answer: { body: body as IDataObject, headers: response.headers ?? {}, ...(unanswered !== undefined ? { unanswered } : {}) } };
				failure = { httpCode: response.statusCode, unexpectedAnswer: unexpected };
				retryable = true;
			} else {
				failure = failureFromResponse(response.statusCode, body, response.headers);
				retryable = isRetryableStatus(response.statusCode);
			}
		} catch (error) {
			if (signal?.aborted) {
				const cancelled = cancelledError(this.getNode(), 'The execution was cancelled while this request was under way; it may have reached the Money API', { itemIndex, attempted: true });
				return { error: cancelled, unanswered: unanswered ?? 'no answer' };
			}
			({ failure, retryable } = failureFromThrown(error));
		}
		// n8n answers a 401 with a new token and one resend; a token revoked again before that resend
		// (a rotation under way, other executions refreshing) gets one more round, once per call.
		if (!retryable && failure.httpCode === 401 && !authRetried) retryable = authRetried = true;

		failure.attempts = attempt + 1;
		const earlier = unanswered;
		if (unanswered === undefined && mayHaveBeenCarriedOut(failure)) unanswered = unansweredLabel(failure);
		const waitMs = retryable ? retryDelayMs(attempt, policy, failure.retryAfterSeconds) : -1;
		if (!retryable || attempt >= policy.maxRetries || waitMs < 0 || waitMs > policy.maxRetryAfterMs) {
			// A create that may have been carried out must not read as "not made".
			if (method === 'POST' && unanswered !== undefined) {
				failure.createOutcomeUnknown = true;
				if (earlier !== undefined) failure.earlierUnanswered = earlier;
			}
			const secrets = [...(options.redact ?? []), ...(await sentSecrets(this, options.credential))];
			return { error: moneyApiError(this.getNode(), redactFailure(failure, secrets), itemIndex), unanswered: method === 'POST' ? unanswered : undefined };
		}
		this.logger.debug('Money API call will be retried', { route, method, httpCode: failure.httpCode, errorCode: failure.errorCode, attempt: attempt + 1, waitMs });
		await waitUnlessCancelled(waitMs, signal);
	}
}

/** The Money API's answer body to a read; a failed call throws its error. */
export async function moneyApiRequest(this: MoneyApiContext, method: 'GET' | 'POST', route: string, options: MoneyApiRequestOptions = {}): Promise<IDataObject> {
	const result = await call.call(this, method, route, options);
	if ('error' in result) throw result.error;
	return result.answer.body;
}

/** A create under the idempotency key in `options.headers`: its one outcome (CreateOutcome). */
export async function moneyApiCreate(this: MoneyApiContext, route: string, options: MoneyApiRequestOptions): Promise<CreateOutcome> {
	const result = await call.call(this, 'POST', route, options);
	if ('answer' in result) return { kind: 'accepted', answer: result.answer };
	return result.unanswered === undefined ? { kind: 'refused', error: result.error } : { kind: 'unknown', error: result.error, unanswered: result.unanswered };
}

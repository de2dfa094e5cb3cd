import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { MONEY_API_CREDENTIAL_TYPE } from '../api/routes';
import { LIST_PAGE_SIZE_MAX } from '../api/values';
import { cancelledError, cancelSignalOf, waitUnlessCancelled } from './cancellation';
import { mayHaveBeenCarriedOut, moneyApiError, redactFailure, type MoneyApiFailure } from './errors';
import { failureFromResponse, failureFromThrown, type FullResponse, isObject, parseBody } from './failures';
import {
	DEFAULT_RETRY_POLICY,
	DEFAULT_TIMEOUT_MS,
	isRetryableStatus,
	retryDelayMs,
	type RetryPolicy,
} from './retry';

export type MoneyApiContext = IExecuteFunctions | IPollFunctions | IWebhookFunctions | ILoadOptionsFunctions;

export interface MoneyApiRequestOptions {
	qs?: IDataObject;
	body?: IDataObject;
	headers?: IDataObject;
	itemIndex?: number;
	retry?: RetryPolicy;
	timeoutMs?: number;
	/** Values to blank out of any error text (the PIN and its ciphertext). */
	redact?: Array<string | undefined>;
	/** The credential to send with, as read once for the node run; without it n8n reads the credential again for every attempt. */
	credential?: ICredentialsDecrypted;
}

/**
 * The one way the pack calls the Money API. The credential signs each attempt; the node never
 * touches auth headers. Retries 429, 502, 503, 504 and lost connections with backoff, resending
 * the same headers (idempotency key included) and the same body, so a create moves money once.
 * A 401 is left to n8n, which refreshes the token and resends once; a 401 after that gets one more
 * round. Nothing is sent, first attempt
 * or resend, once the execution is cancelled.
 */
export async function moneyApiRequest(
	this: MoneyApiContext,
	method: 'GET' | 'POST',
	route: string,
	options: MoneyApiRequestOptions = {},
): Promise<IDataObject> {
	return (await moneyApiCall.call(this, method, route, options)).body;
}

export interface MoneyApiAnswer {
	body: IDataObject;
	/** The answer's headers, names in lower case. */
	headers: Record<string, unknown>;
	/**
	 * Earlier attempts of this call that got no answer or a 5xx: the API may have carried one of
	 * them out (a create's replayed answer can then be that attempt's own commit). A failed call's
	 * error carries the same count, its last attempt included, in `context.unansweredAttempts`.
	 */
	unansweredAttempts: number;
}

/** moneyApiRequest, with the successful answer's headers (a create's replay marker is one). */
export async function moneyApiCall(
	this: MoneyApiContext,
	method: 'GET' | 'POST',
	route: string,
	options: MoneyApiRequestOptions = {},
): Promise<MoneyApiAnswer> {
	const policy = { ...DEFAULT_RETRY_POLICY, ...(options.retry ?? {}) };
	const signal = cancelSignalOf(this);
	let attempt = 0;
	let unansweredAttempts = 0;
	let authRetried = false;
	/** What the first attempt that may have been carried out got (no answer, a 503, ...). */
	let earlierUnanswered: string | undefined;
	for (;;) {
		if (signal?.aborted) {
			throw attempt === 0
				? cancelledError(this.getNode(), 'The execution was cancelled; this request was not sent', { itemIndex: options.itemIndex, attempted: false })
				: cancelledError(this.getNode(), `The execution was cancelled before this request was sent again (${attempt} attempt${attempt > 1 ? 's' : ''} went out)`, { itemIndex: options.itemIndex, attempted: true });
		}
		const requestOptions: IHttpRequestOptions = {
			method,
			url: route,
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: { ignore: true, except: [401] },
			timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
			headers: { ...(options.headers ?? {}) },
		};
		if (options.qs && Object.keys(options.qs).length > 0) requestOptions.qs = { ...options.qs };
		if (options.body) requestOptions.body = options.body;

		let failure: MoneyApiFailure;
		let retryable: boolean;
		try {
			const response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				MONEY_API_CREDENTIAL_TYPE,
				requestOptions,
				options.credential ? { credentialsDecrypted: options.credential } : undefined,
			)) as FullResponse;
			if (response.statusCode >= 200 && response.statusCode < 300) {
				const body = parseBody(response.body);
				return { body: isObject(body) ? body : { data: body as IDataObject[] }, headers: response.headers ?? {}, unansweredAttempts };
			}
			failure = failureFromResponse(response.statusCode, response.body, response.headers);
			retryable = isRetryableStatus(response.statusCode);
		} catch (error) {
			if (signal?.aborted) {
				throw cancelledError(this.getNode(), 'The execution was cancelled while this request was under way; it may have reached the Money API', { itemIndex: options.itemIndex, attempted: true });
			}
			({ failure, retryable } = failureFromThrown(error));
		}
		// n8n answers a 401 with a new token and one resend; a token revoked again before that resend
		// (a rotation under way, other executions refreshing) gets one more round, once per call.
		if (!retryable && Number(failure.httpCode) === 401 && !authRetried) {
			retryable = true;
			authRetried = true;
		}

		failure.attempts = attempt + 1;
		if (mayHaveBeenCarriedOut(failure)) unansweredAttempts++;
		const waitMs = retryable ? retryDelayMs(attempt, policy, failure.retryAfterSeconds) : -1;
		if (!retryable || attempt >= policy.maxRetries || waitMs < 0 || waitMs > policy.maxRetryAfterMs) {
			// A create that may have been carried out must not read as "not made".
			if (method === 'POST' && (earlierUnanswered !== undefined || mayHaveBeenCarriedOut(failure))) {
				failure.createOutcomeUnknown = true;
				if (earlierUnanswered !== undefined) failure.earlierUnanswered = earlierUnanswered;
			}
			const error = moneyApiError(this.getNode(), redactFailure(failure, options.redact ?? []), options.itemIndex);
			// A create whose call failed after an unanswered attempt may have been carried out all the same.
			error.context.unansweredAttempts = unansweredAttempts;
			throw error;
		}
		if (earlierUnanswered === undefined && mayHaveBeenCarriedOut(failure)) {
			earlierUnanswered = failure.httpCode === undefined ? 'no answer' : `HTTP ${failure.httpCode}`;
		}
		this.logger.debug('Money API call will be retried', {
			route,
			method,
			httpCode: failure.httpCode,
			errorCode: failure.errorCode,
			attempt: attempt + 1,
			waitMs,
		});
		await waitUnlessCancelled(waitMs, signal);
		attempt++;
	}
}

export interface MoneyListPage {
	items: IDataObject[];
	page: number;
	pages: number;
	total?: number;
}

/** Pages of a list route, fetched one at a time, following `pagination.pages`. */
export async function* moneyApiPages(
	this: MoneyApiContext,
	route: string,
	qs: IDataObject,
	options: Omit<MoneyApiRequestOptions, 'qs' | 'body'> & { pageSize?: number; startPage?: number } = {},
): AsyncGenerator<MoneyListPage> {
	const pageSize = Math.min(Math.max(1, options.pageSize ?? LIST_PAGE_SIZE_MAX), LIST_PAGE_SIZE_MAX);
	let page = options.startPage ?? 1;
	for (;;) {
		const response = await moneyApiRequest.call(this, 'GET', route, {
			...options,
			qs: { ...qs, page, limit: pageSize },
		});
		const items = Array.isArray(response.data) ? (response.data as IDataObject[]) : [];
		const pagination = isObject(response.pagination) ? response.pagination : {};
		const pages = typeof pagination.pages === 'number' ? pagination.pages : page;
		yield { items, page, pages, total: typeof pagination.total === 'number' ? pagination.total : undefined };
		if (items.length === 0 || page >= pages) return;
		page++;
	}
}

import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { TIMESTAMP_TOLERANCE_SECONDS } from '../api/values';
import { isTokenFailure, type MoneyApiFailure } from './failures';

/** What the user reads: a failed call explained (its `error_code`, what to do), and the one shape of an item refused before any request. */

export interface ExplainedFailure {
	message: string;
	description: string;
}

const LIMIT_FIELDS = ['min_amount', 'max_amount', 'daily_cap', 'monthly_cap', 'velocity_limit', 'velocity_window_seconds', 'daily_total', 'monthly_total', 'limit', 'requested_amount', 'amount'];

/** A create whose answer does not say whether the API carried it out (docs/idempotency.md, "What `outcome` says"). */
export const CREATE_OUTCOME_UNKNOWN =
	'The money may have moved: the Money API may have made this create although no answer said so. A Retry of this execution (or Retry On Fail) sends it again under the same idempotency key and cannot pay twice; a new run of the workflow pays it again unless a Business Reference is mapped. Check with Get Many before sending it any other way.';

const GENERIC_ADVICE_BY_STATUS: Record<number, string> = {
	400: 'The request was refused as invalid: fix the input before sending it again.',
	401: 'Authentication failed: check the Client ID, Client Secret (or API Key) and HMAC Secret of the Money API credential, and this machine’s clock.',
	402: 'The payment could not be funded: check the amount and the balance it draws on.',
	403: 'The client is not allowed to do this: ask the Money API provider to check the client’s access.',
	404: 'Nothing was found: check the reference or identifier.',
	409: 'The request conflicts with an earlier one: look that one up before sending this again.',
	429: 'Too many requests although the node retried with backoff: lower the rate (fewer items or less concurrency) or raise Max Retries.',
	500: 'The Money API failed unexpectedly.',
	502: 'The Money API could not complete the call upstream; the node already retried with backoff.',
	503: 'The Money API or the payment provider is temporarily unavailable; the node already retried with backoff.',
	504: 'The Money API gateway timed out; the node already retried with backoff.',
};

function describeDetails(details: IDataObject | undefined, only?: string[]): string {
	if (!details) return '';
	const entries = Object.entries(details).filter(([key]) => !only || only.includes(key));
	return entries
		.map(([key, value]) => `${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
		.join('; ');
}

function withDetails(advice: string, summary: string): string {
	return summary ? `${advice} (${summary})` : advice;
}

/** What to do about an `error_code`: a text, or one built from the failure's details. */
type AdviceFor = string | ((failure: MoneyApiFailure) => string);

const ADVICE_BY_CODE: Record<string, AdviceFor> = {
	VALIDATION_ERROR: (failure) =>
		withDetails('The Money API refused some fields: fix them and run again', describeDetails(failure.details)),
	CHANNEL_NOT_SUPPORTED: 'This client cannot use this channel: choose Platform, PSP A (Togo) or PSP B (Togo), or ask the provider to enable it.',
	PAYER_NOT_ELIGIBLE: 'The payer cannot be charged (blocked, limited or wrong account type): check the payer identifier and account type, or ask the payer to contact the provider.',
	BENEFICIARY_NOT_ELIGIBLE: 'The beneficiary cannot receive funds: check the beneficiary identifier and account type.',
	MERCHANT_ACCOUNT_NOT_CONFIGURED: 'Ask the Money API provider to configure the merchant’s primary wallet.',
	MERCHANT_PROFILE_INCOMPLETE: 'Ask the Money API provider to complete the merchant profile (its unique ID or wallet number is missing).',
	INSUFFICIENT_FUNDS: (failure) =>
		withDetails(
			'Top up the merchant wallet, lower the amount, or debit another wallet with Account Number',
			describeDetails(failure.details, ['available_balance', 'currency', 'requested_amount', 'amount']),
		),
	SEC_ENDPOINT_NOT_AUTHORIZED: (failure) =>
		`Ask the Money API provider to grant this client the endpoint entitlement${
			typeof failure.details?.slug === 'string' ? ` (${failure.details.slug})` : ''
		} and to link it to a merchant account.`,
	LIMIT_EXCEEDED: (failure) =>
		`${withDetails(
			'A payout limit was reached: change the amount, wait for its window to pass, or ask the provider to raise it',
			describeDetails(failure.details, LIMIT_FIELDS) || describeDetails(failure.details),
		)}. See docs/errors.md#limit_exceeded.`,
	MERCHANT_NOT_RESOLVED: 'The merchant profile could not be loaded for this client: ask the Money API provider to check its merchant link.',
	merchant_not_linked: 'Ask the Money API provider to link the client to a merchant account.',
	PAYER_NOT_FOUND: 'No payer matches this identifier: check it, its type (GM Account or Phone) and, for a phone number, the account type.',
	BENEFICIARY_NOT_FOUND: 'No beneficiary matches this identifier: check it, its type (GM Account or Phone) and, for a phone number, the account type.',
	CHARGE_NOT_FOUND: 'No charge of this client has this reference: use the reference Create Charge returned.',
	PAYOUT_NOT_FOUND: 'No payout of this client has this reference: use the reference Create Payout returned.',
	ACCOUNT_NOT_FOUND: 'The charge or payout was not found or is not visible to this client: check its reference.',
	account_not_found: 'The wallet details could not be retrieved: try again later or ask the provider to check the wallet.',
	transaction_not_found: 'Use a payment ID or unique ID of this merchant’s transactions: none has this ID, or this client is neither its payer nor its payee.',
	IDEMPOTENCY_CONFLICT:
		'The Money API already holds a create under this idempotency key with a different payload (nothing new was created; that charge or payout exists or is under way): look it up (Get Many, or Reconcile by Business Reference) before sending anything, as another Business Reference would make a second payment. See docs/errors.md#idempotency_conflict.',
	UPSTREAM_ERROR: GENERIC_ADVICE_BY_STATUS[502],
	service_unavailable: 'The data could not be loaded upstream; the node already retried with backoff.',
	PROVIDER_UNAVAILABLE: 'The payment provider is temporarily unavailable; the node already retried with backoff.',
	INTERNAL_ERROR: GENERIC_ADVICE_BY_STATUS[500],
	unauthenticated: 'The Money API refused the credentials, the signature or the timestamp: check the Money API credential (HMAC Secret included) and this machine’s clock.',
	forbidden: 'Ask the Money API provider to grant this client the endpoint entitlement.',
	not_found: 'The Money API has no such route: check the Base URL of the credential (without /money/v1).',
	validation_failed: (failure) => withDetails('The Money API refused the request parameters: fix them and run again', describeDetails(failure.details)),
	rate_limit_exceeded: GENERIC_ADVICE_BY_STATUS[429],
};

/** A sentence as a clause of another; each fallback opens with a common word, never a name. */
function lowerFirst(text: string): string {
	return text.charAt(0).toLowerCase() + text.slice(1);
}

/** The advice of a code; the lower-case codes of the transaction-details envelope share their upper-case twin's. */
function adviceOf(code: string): AdviceFor | undefined {
	return ADVICE_BY_CODE[code] ?? ADVICE_BY_CODE[code.toUpperCase()];
}

export function clockSkewSeconds(serverDate: string | undefined, nowMs: number): number | undefined {
	const serverMs = serverDate ? Date.parse(serverDate) : Number.NaN;
	return Number.isNaN(serverMs) ? undefined : Math.round((nowMs - serverMs) / 1000);
}

export function explainFailure(failure: MoneyApiFailure, nowMs: number = Date.now()): ExplainedFailure {
	const unknownOutcome = failure.createOutcomeUnknown
		? ` ${failure.earlierUnanswered ? `An earlier attempt of this request got ${failure.earlierUnanswered}. ` : ''}${CREATE_OUTCOME_UNKNOWN}`
		: '';
	const attempts = failure.attempts && failure.attempts > 1 ? ` (${failure.attempts} attempts made)` : '';
	if (failure.unexpectedAnswer !== undefined) {
		return {
			message: `The Money API's answer was not one it gives: HTTP ${failure.httpCode ?? '?'} with ${failure.unexpectedAnswer}`,
			description: `Something other than the Money API may have answered (a proxy, a maintenance page, a wrong Base URL in the credential), so the answer was not taken as a result.${
				failure.createOutcomeUnknown ? '' : ' Check the Base URL of the Money API credential, then try again later.'
			}${attempts}${unknownOutcome}`,
		};
	}
	if (failure.httpCode === 401) {
		const skew = clockSkewSeconds(failure.serverDate, nowMs);
		if (skew !== undefined && Math.abs(skew) > TIMESTAMP_TOLERANCE_SECONDS) {
			return {
				message: `Money API rejected the request timestamp: this machine’s clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the server’s (tolerance ${TIMESTAMP_TOLERANCE_SECONDS} s)`,
				description: `Synchronise the clock of the machine running n8n (NTP), then run again: the Money API refuses a request signed more than ${TIMESTAMP_TOLERANCE_SECONDS} s from its own time.${unknownOutcome}`,
			};
		}
	}
	if (isTokenFailure(failure)) {
		const notSent = failure.createOutcomeUnknown ? 'so this attempt was not sent' : 'so nothing was sent to the Money API';
		return {
			message: failure.transportMessage ?? 'token request failed',
			description: `No access token could be obtained, ${notSent}: check the Token URL, Client ID and Client Secret of the Money API credential.${unknownOutcome}`,
		};
	}
	if (failure.httpCode === undefined) {
		const after = failure.attempts && failure.attempts > 1 ? ` after ${failure.attempts} attempts` : '';
		return {
			message: `Money API request failed${after}: ${failure.transportMessage ?? 'no response'}`,
			description: `No answer came from the Money API: check the Base URL and the network.${unknownOutcome}`,
		};
	}
	const code = failure.errorCode;
	const apiMessage = failure.apiMessage ? `: ${failure.apiMessage}` : '';
	const message = `Money API error ${code ? `${code} ` : ''}(HTTP ${failure.httpCode})${apiMessage}`;
	const advice = code ? adviceOf(code) : undefined;
	const fallback =
		GENERIC_ADVICE_BY_STATUS[failure.httpCode] ?? (failure.httpCode >= 500 ? 'The Money API failed.' : 'The Money API refused the request: fix it before sending it again.');
	let description = advice !== undefined ? (typeof advice === 'string' ? advice : advice(failure)) : code ? `Unrecognised error code ${code}; ${lowerFirst(fallback)}` : fallback;
	if (advice === undefined && failure.details) description = withDetails(description, describeDetails(failure.details));
	// A read may simply be tried later; a create whose outcome is unknown may not (unknownOutcome says how).
	if (failure.httpCode >= 500 && !failure.createOutcomeUnknown) description += ' Try again later.';
	return { message, description: `${description}${attempts}${unknownOutcome}` };
}

/** A secret's every occurrence; a PIN of digits only where no digit touches it, so its digits inside an amount are left and no marker tells where they are. */
function redactText(text: string, secret: string): string {
	if (!/^\d+$/.test(secret)) return text.split(secret).join('[redacted]');
	return text.replace(new RegExp(`(?<!\\d)${secret}(?!\\d)`, 'g'), '[redacted]');
}

/** A bearer token, whoever's it is, as an Authorization header writes it (a digit in it: "Bearer token expired" is prose). */
const BEARER = /\b(Bearer\s+)(?=[\w.~+/-]*\d)[\w.~+/-]{16,}=*/gi;

function redactValue(value: unknown, secrets: string[]): unknown {
	if (typeof value === 'string') return secrets.reduce(redactText, value).replace(BEARER, '$1[redacted]');
	if (typeof value === 'number') return secrets.includes(String(value)) ? '[redacted]' : value;
	if (Array.isArray(value)) return value.map((entry) => redactValue(entry, secrets));
	if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value as IDataObject).map(([key, entry]) => [redactValue(key, secrets), redactValue(entry, secrets)]));
	return value;
}

/** The failure's texts that may echo the request; its status, error_code, date and counts are left as they came. */
const ECHOING: Array<keyof MoneyApiFailure> = ['apiMessage', 'details', 'transportMessage', 'unexpectedAnswer'];

/** Replaces every occurrence of the given secrets (the token or API key sent, the PIN, its ciphertext) and every bearer token in the failure's texts. */
export function redactFailure(failure: MoneyApiFailure, secrets: unknown[]): MoneyApiFailure {
	// Longest first: a PIN inside the API key leaves nothing of the key.
	const present = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length > 0).sort((a, b) => b.length - a.length);
	const redacted: MoneyApiFailure = { ...failure };
	for (const field of ECHOING) if (redacted[field] !== undefined) Object.assign(redacted, { [field]: redactValue(redacted[field], present) });
	return redacted;
}

/**
 * A fresh NodeApiError built only from the sanitised failure, so that neither the request (its
 * Authorization header, signature or PIN) nor the HTTP client's error travels with it.
 */
export function moneyApiError(node: INode, failure: MoneyApiFailure, itemIndex?: number): NodeApiError {
	const { message, description } = explainFailure(failure);
	const summary: IDataObject = { httpCode: failure.httpCode ?? null, error_code: failure.errorCode ?? null };
	if (failure.apiMessage) summary.message = failure.apiMessage;
	if (failure.details) summary.details = failure.details;
	const error = new NodeApiError(node, summary as JsonObject, { message, description, httpCode: failure.httpCode !== undefined ? String(failure.httpCode) : undefined, itemIndex });
	error.context.error_code = failure.errorCode ?? null;
	error.context.httpCode = failure.httpCode ?? null;
	if (failure.details) error.context.details = failure.details;
	return error;
}

export type NodeError = NodeApiError | NodeOperationError;

/** Keeps the node's own errors; anything else becomes a NodeOperationError carrying only its message. */
export function asNodeError(node: INode, error: unknown, itemIndex: number): NodeError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(node, error instanceof Error ? error.message : String(error), { itemIndex });
}

/** A failed item's json (On Error: Continue): the message, what to do, the API's code and status, and what the node knows of the failure. */
export function errorItemJson(error: NodeError): IDataObject {
	const context = error.context ?? {};
	const json: IDataObject = {
		error: error.message,
		description: error.description ?? null,
		error_code: (context.error_code as string | undefined) ?? null,
		httpCode: (context.httpCode as number | undefined) ?? (error instanceof NodeApiError && error.httpCode ? Number(error.httpCode) : null),
	};
	if (context.details) json.details = context.details as IDataObject;
	if (context.field) json.field = context.field as string;
	if (context.attempted === false) json.attempted = false;
	if (context.cancelled === true) json.cancelled = true;
	return json;
}

export interface NotSentContext {
	/** The API field the refusal names, or what it concerns ('credential', 'idempotency-key'). */
	field?: string;
	/** The node parameter the editor points at (FieldProblem.parameter in helpers/validation.ts). */
	parameter?: string;
	error_code?: string | null;
	httpCode?: number | null;
	details?: IDataObject;
	idempotency_key?: string;
}

/**
 * The one shape of an item refused before any request of it went out: `attempted: false`, the
 * message says what and why, the description what to do. Every refusal of the pack is one.
 */
export function notSent(node: INode, itemIndex: number | undefined, message: string, description: string, context: NotSentContext = {}): NodeOperationError {
	const error = new NodeOperationError(node, message, { itemIndex, description });
	Object.assign(error.context, context, { attempted: false });
	return error;
}

/**
 * The error that ends a node's work in a stopped execution, marked `cancelled`; `attempted: false`
 * (a refusal) when nothing of it was sent, else it may have reached the Money API.
 */
export function cancelledError(node: INode, message: string, { itemIndex, attempted }: { itemIndex?: number; attempted: boolean }): NodeOperationError {
	const error = attempted
		? new NodeOperationError(node, message, {
				itemIndex,
				description: 'The execution was stopped and this request may have reached the Money API: look it up by its idempotency key or reference before sending it again.',
			})
		: notSent(node, itemIndex, message, 'Nothing was sent for this item: the execution was stopped.');
	error.context.cancelled = true;
	return error;
}

export function isCancellation(error: unknown): boolean {
	return (error as { context?: { cancelled?: unknown } } | undefined)?.context?.cancelled === true;
}

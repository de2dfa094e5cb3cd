import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { TIMESTAMP_TOLERANCE_SECONDS } from '../../credentials/signing/signature';

/**
 * What the node keeps of a failed call: the status, the API's error envelope and the few headers
 * that explain it. Never the request, its headers or the raw client error.
 */
export interface MoneyApiFailure {
	httpCode?: number;
	errorCode?: string;
	apiMessage?: string;
	details?: IDataObject;
	serverDate?: string;
	retryAfterSeconds?: number;
	transportMessage?: string;
	attempts?: number;
	/** A create whose outcome is unknown: its last attempt, or an earlier one, may have been carried out. */
	createOutcomeUnknown?: boolean;
	/** What the first earlier attempt that may have been carried out got ('no answer', 'HTTP 503'). */
	earlierUnanswered?: string;
}

export interface ExplainedFailure {
	message: string;
	description: string;
}

const LIMIT_FIELDS = [
	'min_amount',
	'max_amount',
	'daily_cap',
	'monthly_cap',
	'velocity_limit',
	'velocity_window_seconds',
	'daily_total',
	'monthly_total',
	'limit',
	'requested_amount',
	'amount',
];

/** A create whose answer does not say whether the API carried it out (docs/idempotency.md, "What `outcome` says"). */
export const CREATE_OUTCOME_UNKNOWN =
	'The money may have moved: the Money API may have made this create although no answer said so. A Retry of this execution (or Retry On Fail) sends it again under the same idempotency key and cannot pay twice; a new run of the workflow pays it again unless a Business Reference is mapped. Check with Get Many before sending it any other way.';

const GENERIC_ADVICE_BY_STATUS: Record<number, string> = {
	400: 'The request was refused as invalid. Fix the input; resending it unchanged fails again.',
	401: 'Authentication failed: check the Client ID, Client Secret (or API Key) and HMAC Secret of the Money API credential, and that this machine’s clock is right.',
	402: 'The payment could not be funded.',
	403: 'The client is not allowed to do this. Ask the Money API provider to check the client’s access.',
	404: 'Nothing was found for this request. Check the reference or identifier.',
	409: 'The request conflicts with an earlier one.',
	429: 'Too many requests: the node already retried with backoff. Lower the request rate (fewer items or less concurrency) or raise Max Retries.',
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

type AdviceFor = (failure: MoneyApiFailure) => string;

const ADVICE_BY_CODE: Record<string, AdviceFor> = {
	VALIDATION_ERROR: (failure) =>
		withDetails(
			'The Money API refused some fields. Fix these fields and run again',
			describeDetails(failure.details),
		),
	CHANNEL_NOT_SUPPORTED: () =>
		'The channel is not supported for this client. Use Platform, PSP A (Togo) or PSP B (Togo), or ask the provider to enable the channel.',
	PAYER_NOT_ELIGIBLE: () =>
		'The payer exists but cannot be charged (blocked, limited or wrong account type). Check the payer identifier and account type, or ask the payer to contact the provider.',
	BENEFICIARY_NOT_ELIGIBLE: () =>
		'The beneficiary exists but cannot receive funds. Check the beneficiary identifier and account type.',
	MERCHANT_ACCOUNT_NOT_CONFIGURED: () =>
		'The merchant has no primary wallet configured. Ask the Money API provider to configure the merchant’s primary wallet.',
	merchant_account_not_configured: () =>
		'The merchant has no primary wallet configured. Ask the Money API provider to configure the merchant’s primary wallet.',
	MERCHANT_PROFILE_INCOMPLETE: () =>
		'The merchant profile is missing required fields (unique ID or wallet number). Ask the Money API provider to complete the merchant profile.',
	merchant_profile_incomplete: () =>
		'The merchant profile is missing required fields (unique ID or wallet number). Ask the Money API provider to complete the merchant profile.',
	INSUFFICIENT_FUNDS: (failure) =>
		withDetails(
			'The wallet balance does not cover this payout. Top up the merchant wallet, lower the amount, or debit another wallet with Account Number',
			describeDetails(failure.details, ['available_balance', 'currency', 'requested_amount', 'amount']),
		),
	SEC_ENDPOINT_NOT_AUTHORIZED: (failure) =>
		`This client is not entitled to this endpoint${
			typeof failure.details?.slug === 'string' ? ` (${failure.details.slug})` : ''
		}, or is not linked to a merchant account. Ask the Money API provider to grant the client the endpoint entitlement (slugs such as post_money_v1_payout) and to link it to a merchant account.`,
	LIMIT_EXCEEDED: (failure) =>
		withDetails(
			'A payout limit was reached (minimum or maximum amount, daily or monthly cap, or at most 20 payouts in 5 minutes). Change the amount, wait for the window to pass, or ask the provider to raise the limit',
			describeDetails(failure.details, LIMIT_FIELDS) || describeDetails(failure.details),
		),
	MERCHANT_NOT_RESOLVED: () =>
		'The merchant profile could not be loaded for this client. Ask the Money API provider to check the client’s merchant link.',
	merchant_not_resolved: () =>
		'The merchant profile could not be loaded for this client. Ask the Money API provider to check the client’s merchant link.',
	merchant_not_linked: () =>
		'This client is not linked to a merchant account. Ask the Money API provider to link the client to the merchant account.',
	PAYER_NOT_FOUND: () =>
		'No payer matches this identifier. Check the identifier and its type (GM Account or Phone), and the account type for phone numbers.',
	BENEFICIARY_NOT_FOUND: () =>
		'No beneficiary matches this identifier. Check the identifier and its type (GM Account or Phone), and the account type for phone numbers.',
	CHARGE_NOT_FOUND: () =>
		'No charge with this reference belongs to this client. Use the reference returned by Create Charge.',
	PAYOUT_NOT_FOUND: () =>
		'No payout with this reference belongs to this client. Use the reference returned by Create Payout.',
	ACCOUNT_NOT_FOUND: () => 'The charge or payout was not found or is not visible to this client.',
	account_not_found: () => 'The wallet details could not be retrieved. Try again later or ask the provider to check the wallet.',
	transaction_not_found: () =>
		'No transaction with this ID, or this client is neither its payer nor its payee. Use a payment ID or unique ID of one of this merchant’s transactions.',
	IDEMPOTENCY_CONFLICT: () =>
		'The Money API already holds a create under this idempotency key with a different payload, so nothing new was created: that charge or payout exists, or is under way. Look it up (Get Many, or Reconcile by Business Reference) before sending anything else: this row sent again under another Business Reference would be a second payment, right only if it is another payment. Causes: a Business Reference reused with other values (amount, counterpart, ...), or a Message or Metadata that change from run to run ({{ $now }}, {{ $execution.id }}) on a row paid before: give those values taken from the row, and send the original values to get the original result.',
	UPSTREAM_ERROR: () => GENERIC_ADVICE_BY_STATUS[502],
	service_unavailable: () => 'The data could not be loaded upstream; the node already retried with backoff.',
	PROVIDER_UNAVAILABLE: () => 'The payment provider is temporarily unavailable; the node already retried with backoff.',
	INTERNAL_ERROR: () => GENERIC_ADVICE_BY_STATUS[500],
	unauthenticated: () =>
		'The Money API did not accept the credentials, the signature or the timestamp. Check the Money API credential (HMAC Secret included) and this machine’s clock.',
	forbidden: () =>
		'This client is not entitled to this endpoint. Ask the Money API provider to grant the endpoint entitlement.',
	not_found: () => 'The Money API has no such route. Check the Base URL of the credential (without /money/v1).',
	validation_failed: (failure) =>
		withDetails('The Money API refused the request parameters', describeDetails(failure.details)),
	rate_limit_exceeded: () =>
		'Too many requests: the node already retried with backoff. Lower the request rate (fewer items or less concurrency) or raise Max Retries.',
};

const TOKEN_FAILURE = /token request failed/i;

/**
 * Whether a failed attempt leaves open that the API carried the request out: no answer at all (a
 * token that could not be fetched aside: nothing was sent then), or any 5xx (a proxy answers 503 or
 * 502 after its upstream committed). A 4xx is a refusal made before anything is done.
 */
export function mayHaveBeenCarriedOut(failure: MoneyApiFailure): boolean {
	if (failure.httpCode === undefined) return !TOKEN_FAILURE.test(failure.transportMessage ?? '');
	return failure.httpCode >= 500;
}

export function clockSkewSeconds(serverDate: string | undefined, nowMs: number): number | undefined {
	if (!serverDate) return undefined;
	const serverMs = Date.parse(serverDate);
	if (Number.isNaN(serverMs)) return undefined;
	return Math.round((nowMs - serverMs) / 1000);
}

function clockAdvice(skew: number): ExplainedFailure {
	const direction = skew > 0 ? 'ahead of' : 'behind';
	return {
		message: `Money API rejected the request timestamp: this machine’s clock is ${Math.abs(skew)} s ${direction} the server’s (tolerance ${TIMESTAMP_TOLERANCE_SECONDS} s)`,
		description:
			'Requests are signed with the local time and refused when it differs from the server time by more than 300 seconds. Synchronise the clock of the machine running n8n (NTP), then run again.',
	};
}

export function explainFailure(failure: MoneyApiFailure, nowMs: number = Date.now()): ExplainedFailure {
	const unknownOutcome = failure.createOutcomeUnknown
		? ` ${failure.earlierUnanswered ? `An earlier attempt of this request got ${failure.earlierUnanswered}. ` : ''}${CREATE_OUTCOME_UNKNOWN}`
		: '';
	if (failure.httpCode === 401) {
		const skew = clockSkewSeconds(failure.serverDate, nowMs);
		if (skew !== undefined && Math.abs(skew) > TIMESTAMP_TOLERANCE_SECONDS) {
			const clock = clockAdvice(skew);
			return { message: clock.message, description: `${clock.description}${unknownOutcome}` };
		}
	}

	if (failure.httpCode === undefined && failure.transportMessage && TOKEN_FAILURE.test(failure.transportMessage)) {
		const notSent = failure.createOutcomeUnknown ? 'so this attempt was not sent' : 'so nothing was sent to the Money API';
		return {
			message: failure.transportMessage,
			description: `No access token could be obtained, ${notSent}. Check the Token URL, Client ID and Client Secret of the Money API credential.${unknownOutcome}`,
		};
	}

	if (failure.httpCode === undefined) {
		const attempts = failure.attempts && failure.attempts > 1 ? ` after ${failure.attempts} attempts` : '';
		return {
			message: `Money API request failed${attempts}: ${failure.transportMessage ?? 'no response'}`,
			description: `No answer was received from the Money API. Check the Base URL and the network.${unknownOutcome}`,
		};
	}

	const code = failure.errorCode;
	const apiMessage = failure.apiMessage ? `: ${failure.apiMessage}` : '';
	const message = code
		? `Money API error ${code} (HTTP ${failure.httpCode})${apiMessage}`
		: `Money API error (HTTP ${failure.httpCode})${apiMessage}`;
	const advice = code ? ADVICE_BY_CODE[code] : undefined;
	const fallback =
		GENERIC_ADVICE_BY_STATUS[failure.httpCode] ??
		(failure.httpCode >= 500 ? 'The Money API failed.' : 'The Money API refused the request; fix it before sending it again.');
	let description = advice ? advice(failure) : code ? `Unrecognised error code ${code}. ${fallback}` : fallback;
	if (!advice && failure.details) description = withDetails(description, describeDetails(failure.details));
	// A read may simply be tried later; a create whose outcome is unknown may not (unknownOutcome says how).
	if (failure.httpCode >= 500 && !failure.createOutcomeUnknown) description += ' Try again later.';
	if (failure.attempts && failure.attempts > 1) description += ` (${failure.attempts} attempts made)`;
	return { message, description: `${description}${unknownOutcome}` };
}

function redactText(text: string, secrets: string[]): string {
	return secrets.reduce((result, secret) => result.split(secret).join('[redacted]'), text);
}

function redactValue(value: unknown, secrets: string[]): unknown {
	if (typeof value === 'string') return redactText(value, secrets);
	if (Array.isArray(value)) return value.map((entry) => redactValue(entry, secrets));
	if (value && typeof value === 'object') {
		return Object.fromEntries(
			Object.entries(value as IDataObject).map(([key, entry]) => [key, redactValue(entry, secrets)]),
		);
	}
	return value;
}

/** Replaces every occurrence of the given secrets (the PIN, its ciphertext) in the failure's texts. */
export function redactFailure(failure: MoneyApiFailure, secrets: Array<string | undefined>): MoneyApiFailure {
	const present = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length > 0);
	if (present.length === 0) return failure;
	return redactValue(failure, present) as MoneyApiFailure;
}

export function failureSummary(failure: MoneyApiFailure): IDataObject {
	const summary: IDataObject = { httpCode: failure.httpCode ?? null, error_code: failure.errorCode ?? null };
	if (failure.apiMessage) summary.message = failure.apiMessage;
	if (failure.details) summary.details = failure.details;
	return summary;
}

/**
 * A fresh NodeApiError built only from the sanitised failure, so that neither the request (its
 * Authorization header, signature or PIN) nor the HTTP client's error travels with it.
 */
export function moneyApiError(node: INode, failure: MoneyApiFailure, itemIndex?: number): NodeApiError {
	const { message, description } = explainFailure(failure);
	const error = new NodeApiError(node, failureSummary(failure) as JsonObject, {
		message,
		description,
		httpCode: failure.httpCode !== undefined ? String(failure.httpCode) : undefined,
		itemIndex,
	});
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
	const message = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(node, message, { itemIndex });
}

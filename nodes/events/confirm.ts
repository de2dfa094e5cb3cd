import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { itemRoute, TRANSACTION_RESOURCES, type TransactionResource } from '../api/values';
import { moneyApiRequest } from '../transport/request';
import { envelopeOfReadResponse, resourceOfEnvelope, statusOfEnvelope } from './envelope';
import type { MoneyEvent } from './parse';
import { judgeRead } from './statusOrder';

/**
 * Confirm With the API: the transaction as the API returns it, read by the event's reference. A
 * read at the event's status, or one known to come after it, confirms the event. A 404, or a
 * status known to come before the event's, is not a verdict: the API's reads can lag its webhooks,
 * so the sender is asked to come back. A read at another status whose order against the event's is
 * not known (D2), or without a status label, neither confirms nor contradicts the event: it runs
 * as delivered, with the status the API showed beside it (docs/webhook-memory.md).
 */

export type ConfirmOutcome =
	| { kind: 'confirmed'; envelope: IDataObject; resource: TransactionResource }
	| { kind: 'unordered'; apiStatus: string | null }
	| { kind: 'unavailable'; reason: 'read-failed' | 'read-lags' };

/** A Retry-After longer than this is answered to the sender instead of waited for. */
const MAX_RETRY_AFTER_MS = 5_000;

function isNotFound(error: unknown): boolean {
	return error instanceof NodeApiError && error.httpCode === '404';
}

export async function confirmWithApi(context: IWebhookFunctions, event: MoneyEvent & { reference: string }): Promise<ConfirmOutcome> {
	const candidates: readonly TransactionResource[] = event.resource ? [event.resource] : TRANSACTION_RESOURCES;
	for (const resource of candidates) {
		try {
			const response = await moneyApiRequest.call(context, 'GET', itemRoute(resource, event.reference), {
				retry: { maxRetries: 1, maxRetryAfterMs: MAX_RETRY_AFTER_MS },
				timeoutMs: 8000,
			});
			const envelope = envelopeOfReadResponse(response);
			if (!envelope) return { kind: 'unavailable', reason: 'read-failed' };
			const read = statusOfEnvelope(envelope);
			// A read without a status label shows nothing of the event's status: it confirms nothing.
			if (!read) return { kind: 'unordered', apiStatus: null };
			const verdict = judgeRead(read, event.status);
			if (verdict === 'lags') return { kind: 'unavailable', reason: 'read-lags' };
			if (verdict === 'unordered') return { kind: 'unordered', apiStatus: read };
			return { kind: 'confirmed', envelope, resource: resourceOfEnvelope(envelope) ?? resource };
		} catch (error) {
			if (isNotFound(error)) continue;
			context.logger.warn('Money Trigger could not confirm an event with the Money API; the sender will retry', {
				reference: event.reference,
				httpCode: error instanceof NodeApiError ? error.httpCode : undefined,
			});
			return { kind: 'unavailable', reason: 'read-failed' };
		}
	}
	context.logger.info('Money Trigger: the Money API does not show the event\'s transaction yet; the sender will retry', { reference: event.reference });
	return { kind: 'unavailable', reason: 'read-lags' };
}

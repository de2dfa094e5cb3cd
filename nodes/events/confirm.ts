import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { itemRoute, TRANSACTION_RESOURCES, type TransactionResource } from '../api/values';
import { moneyApiRequest } from '../transport/request';
import { envelopeOfReadResponse, resourceOfEnvelope, statusOfEnvelope } from './envelope';
import type { MoneyEvent } from './parse';
import { readConfirms } from './statusOrder';

/**
 * Confirm With the API: the transaction as the API returns it, read by the event's reference. A
 * read that does not confirm what the event reports (404, or a status neither the event's nor one
 * known to come after it) is not a verdict: the API's reads can lag its webhooks, so the sender is
 * asked to come back (docs/webhook-memory.md).
 */

export type ConfirmOutcome =
	| { kind: 'confirmed'; envelope: IDataObject; resource: TransactionResource }
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
			if (read && !readConfirms(read, event.status)) return { kind: 'unavailable', reason: 'read-lags' };
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

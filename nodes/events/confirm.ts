import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { itemRoute } from '../api/routes';
import { TRANSACTION_RESOURCES, type TransactionResource } from '../api/values';
import { moneyApiRequest } from '../transport/request';
import { envelopeOfReadResponse, resourceOfEnvelope } from './envelope';
import type { MoneyEvent } from './parse';

/** Confirm With the API: the transaction as the API returns it, read by the event's reference. */

export type ConfirmOutcome =
	| { kind: 'confirmed'; envelope: IDataObject; resource: TransactionResource }
	| { kind: 'unknown' }
	| { kind: 'unavailable' };

function isNotFound(error: unknown): boolean {
	return error instanceof NodeApiError && error.httpCode === '404';
}

export async function confirmWithApi(context: IWebhookFunctions, event: MoneyEvent): Promise<ConfirmOutcome> {
	if (!event.reference) return { kind: 'unknown' };
	const candidates: readonly TransactionResource[] = event.resource ? [event.resource] : TRANSACTION_RESOURCES;
	for (const resource of candidates) {
		try {
			const response = await moneyApiRequest.call(context, 'GET', itemRoute(resource, event.reference), {
				retry: { maxRetries: 1 },
				timeoutMs: 8000,
			});
			const envelope = envelopeOfReadResponse(response);
			if (!envelope) return { kind: 'unavailable' };
			return { kind: 'confirmed', envelope, resource: resourceOfEnvelope(envelope) ?? resource };
		} catch (error) {
			if (isNotFound(error)) continue;
			context.logger.warn('Money Trigger could not confirm an event with the Money API; the sender will retry', {
				reference: event.reference,
				httpCode: error instanceof NodeApiError ? error.httpCode : undefined,
			});
			return { kind: 'unavailable' };
		}
	}
	return { kind: 'unknown' };
}

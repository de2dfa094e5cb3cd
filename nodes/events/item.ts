import type { IDataObject } from 'n8n-workflow';

import type { TransactionResource } from '../api/values';
import { amountOfEnvelope, channelOfEnvelope, nonEmptyString, resourceOfEnvelope, statusOfEnvelope } from './envelope';

/** The output item of both triggers: one event. */

export interface MoneyEventItem extends IDataObject {
	event: string;
	id: string;
	source: 'webhook' | 'poll';
	resource: TransactionResource | null;
	status: string;
	reference: string | null;
	channel: string | null;
	amount: number | null;
	currency: string | null;
	created_at: string | null;
	occurred_at: string | null;
	confirmed: boolean;
	data: IDataObject;
}

export function buildEventItem(options: {
	id: string;
	event?: string;
	source: 'webhook' | 'poll';
	resource: TransactionResource | null;
	envelope: IDataObject;
	occurredAt?: string | null;
	confirmed?: boolean;
	reportedStatus?: string;
	/** The status a read of the API showed, when it neither confirmed nor contradicted the event's (events/confirm.ts). */
	apiStatus?: string | null;
}): MoneyEventItem {
	const { envelope } = options;
	const status = statusOfEnvelope(envelope) ?? options.reportedStatus ?? 'UNKNOWN';
	const resource = options.resource ?? resourceOfEnvelope(envelope);
	const { amount, currency } = amountOfEnvelope(envelope);
	const item: MoneyEventItem = {
		event: options.event ?? `${resource ?? 'transaction'}.${status.toLowerCase()}`,
		id: options.id,
		source: options.source,
		resource,
		status,
		reference: nonEmptyString(envelope.reference),
		channel: channelOfEnvelope(envelope),
		amount,
		currency,
		created_at: nonEmptyString(envelope.created_at),
		occurred_at: options.occurredAt ?? nonEmptyString(envelope.updated_at),
		confirmed: options.confirmed ?? false,
		data: envelope,
	};
	if (options.reportedStatus !== undefined && options.reportedStatus !== status) {
		item.reported_status = options.reportedStatus;
	}
	if (options.apiStatus !== undefined) item.api_status = options.apiStatus;
	return item;
}

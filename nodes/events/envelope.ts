import type { IDataObject } from 'n8n-workflow';

import type { TransactionResource } from '../api/values';

/** Readers of a transaction envelope (the `data` of an event, a list entry or a Get). */

export function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function nonEmptyString(value: unknown): string | null {
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

export function resourceFromType(type: unknown): TransactionResource | null {
	const text = nonEmptyString(type)?.toLowerCase();
	if (text === 'charge') return 'charge';
	if (text === 'payout' || text === 'transfer') return 'payout';
	return null;
}

/** `status.label` of an envelope, upper-cased; a bare string status is accepted too. */
export function statusOfEnvelope(envelope: IDataObject): string | null {
	const status = envelope.status;
	if (isPlainObject(status)) return nonEmptyString(status.label)?.toUpperCase() ?? null;
	return nonEmptyString(status)?.toUpperCase() ?? null;
}

export function channelOfEnvelope(envelope: IDataObject): string | null {
	const direct = nonEmptyString(envelope.channel);
	if (direct) return direct;
	for (const key of ['counterpart_account', 'account']) {
		const nested = envelope[key];
		if (isPlainObject(nested)) {
			const channel = nonEmptyString(nested.channel);
			if (channel) return channel;
		}
	}
	return null;
}

/**
 * The resource of an envelope: its `type`, else the sign of its amount (a payout's is negative,
 * docs/decisions.md#d1); null when neither tells.
 */
export function resourceOfEnvelope(envelope: IDataObject): TransactionResource | null {
	const byType = resourceFromType(envelope.type);
	if (byType) return byType;
	const { amount } = amountOfEnvelope(envelope);
	if (amount === null || amount === 0) return null;
	return amount < 0 ? 'payout' : 'charge';
}

export function amountOfEnvelope(envelope: IDataObject): { amount: number | null; currency: string | null } {
	const amount = envelope.amount;
	if (isPlainObject(amount)) {
		return {
			amount: typeof amount.value === 'number' ? amount.value : null,
			currency: nonEmptyString(amount.currency),
		};
	}
	return { amount: typeof amount === 'number' ? amount : null, currency: nonEmptyString(envelope.currency) };
}

/** The envelope of a Get response (`{success, data}`), or the body itself when unwrapped. */
export function envelopeOfReadResponse(response: unknown): IDataObject | null {
	if (!isPlainObject(response)) return null;
	if (isPlainObject(response.data)) return response.data as IDataObject;
	if (response.reference !== undefined) return response;
	return null;
}

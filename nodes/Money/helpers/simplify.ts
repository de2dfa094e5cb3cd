import type { IDataObject } from 'n8n-workflow';

import { businessReferenceOf } from './businessReference';

export function objectAt(source: IDataObject, key: string): IDataObject {
	const value = source[key];
	return value && typeof value === 'object' && !Array.isArray(value) ? (value as IDataObject) : {};
}

function valueOrNull<T>(value: T | undefined): T | null {
	return value === undefined ? null : value;
}

/**
 * A charge, payout or transaction-details envelope flattened to the fields workflows branch on, in
 * the order a create item reads: the status, how much, with whom, the Business Reference, then the
 * API's reference and the rest.
 */
export function simplifyTransaction(envelope: IDataObject): IDataObject {
	const status = objectAt(envelope, 'status');
	const amount = objectAt(envelope, 'amount');
	const counterpart = objectAt(envelope, 'counterpart_account');
	const account = objectAt(envelope, 'account');
	return {
		status: valueOrNull(status.label),
		amount: valueOrNull(amount.value),
		currency: valueOrNull(amount.currency),
		counterpart_identifier: valueOrNull(counterpart.identifier),
		counterpart_name: valueOrNull(counterpart.name),
		channel: valueOrNull(envelope.channel ?? counterpart.channel),
		business_reference: businessReferenceOf(envelope) ?? null,
		reference: valueOrNull(envelope.reference),
		type: valueOrNull(envelope.type),
		account_identifier: valueOrNull(account.identifier),
		shared_note: valueOrNull(envelope.shared_note),
		created_at: valueOrNull(envelope.created_at),
	};
}

/** The merchant account flattened: who, its status, the primary wallet's balance, then the identifiers. */
export function simplifyAccount(response: IDataObject): IDataObject {
	const account = objectAt(response, 'account');
	const balance = objectAt(account, 'balance');
	return {
		name: valueOrNull(response.name),
		status: valueOrNull(response.status),
		balance: valueOrNull(balance.value),
		currency: valueOrNull(balance.currency),
		account_number: valueOrNull(account.number),
		id: valueOrNull(response.id),
		type: valueOrNull(response.type),
		payment_link: valueOrNull(account.payment_link),
	};
}

export function withoutEnvelopeFlags(response: IDataObject): IDataObject {
	const copy = { ...response };
	delete copy.success;
	return copy;
}

import type { IDataObject } from 'n8n-workflow';

export function objectAt(source: IDataObject, key: string): IDataObject {
	const value = source[key];
	return value && typeof value === 'object' && !Array.isArray(value) ? (value as IDataObject) : {};
}

function valueOrNull<T>(value: T | undefined): T | null {
	return value === undefined ? null : value;
}

/** A charge, payout or transaction-details envelope flattened to the fields workflows branch on. */
export function simplifyTransaction(envelope: IDataObject): IDataObject {
	const status = objectAt(envelope, 'status');
	const amount = objectAt(envelope, 'amount');
	const counterpart = objectAt(envelope, 'counterpart_account');
	const account = objectAt(envelope, 'account');
	return {
		reference: valueOrNull(envelope.reference),
		status: valueOrNull(status.label),
		type: valueOrNull(envelope.type),
		amount: valueOrNull(amount.value),
		currency: valueOrNull(amount.currency),
		channel: valueOrNull(envelope.channel ?? counterpart.channel),
		counterpart_identifier: valueOrNull(counterpart.identifier),
		counterpart_name: valueOrNull(counterpart.name),
		account_identifier: valueOrNull(account.identifier),
		shared_note: valueOrNull(envelope.shared_note),
		created_at: valueOrNull(envelope.created_at),
	};
}

export function simplifyAccount(response: IDataObject): IDataObject {
	const account = objectAt(response, 'account');
	const balance = objectAt(account, 'balance');
	return {
		id: valueOrNull(response.id),
		name: valueOrNull(response.name),
		type: valueOrNull(response.type),
		status: valueOrNull(response.status),
		account_number: valueOrNull(account.number),
		balance: valueOrNull(balance.value),
		currency: valueOrNull(balance.currency),
		payment_link: valueOrNull(account.payment_link),
	};
}

export function withoutEnvelopeFlags(response: IDataObject): IDataObject {
	const copy = { ...response };
	delete copy.success;
	return copy;
}

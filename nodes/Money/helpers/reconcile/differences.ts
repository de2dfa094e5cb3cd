import type { IDataObject } from 'n8n-workflow';

import { PENDING_STATUS } from '../../../api/values';
import { objectAt } from '../simplify';
import type { IndexedTransaction } from './transactionIndex';
import type { Difference, MatchKey, MatchSettings, ReconcileRecord } from './types';

/** The transaction's amount without sign: payouts are listed negative, records state what was paid. */
export function transactionAmount(envelope: IDataObject): number | null {
	const value = objectAt(envelope, 'amount').value;
	return typeof value === 'number' && Number.isFinite(value) ? Math.abs(value) : null;
}

export function transactionCurrency(envelope: IDataObject): string | null {
	const currency = objectAt(envelope, 'amount').currency;
	return typeof currency === 'string' ? currency.toUpperCase() : null;
}

export function transactionStatus(envelope: IDataObject): string | null {
	const label = objectAt(envelope, 'status').label;
	return typeof label === 'string' ? label : null;
}


export function duplicateClaim(firstItem: number, key: string): Difference {
	return { field: 'duplicate_claim', expected: null, actual: key, claimed_by_item: firstItem };
}

/** What differs between a record and the transaction it was paired with, each with both values. */
export function compareWithTransaction(
	record: ReconcileRecord,
	transaction: IndexedTransaction,
	matchedBy: MatchKey,
	settings: MatchSettings,
): Difference[] {
	const { envelope } = transaction;
	const differences: Difference[] = [];
	const amount = transactionAmount(envelope);
	if (amount === null || Math.abs(amount - record.amount) > settings.amountTolerance) {
		differences.push({ field: 'amount', expected: record.amount, actual: amount });
	}
	const currency = transactionCurrency(envelope);
	if (currency !== record.currency) differences.push({ field: 'currency', expected: record.currency, actual: currency });
	const status = transactionStatus(envelope);
	if (record.status !== undefined && status !== record.status) {
		const notFinalYet = status === PENDING_STATUS && settings.pendingIsNotFinal;
		if (!notFinalYet) differences.push({ field: 'status', expected: record.status, actual: status });
	}
	if (matchedBy === 'business_reference' && record.reference !== undefined && record.reference !== transaction.reference) {
		// The record's own reference was not found: the Business Reference found another transaction.
		differences.push({ field: 'reference', expected: record.reference, actual: transaction.reference });
	}
	if (
		matchedBy === 'reference' &&
		record.businessReference !== undefined &&
		transaction.businessReference !== undefined &&
		transaction.businessReference !== record.businessReference
	) {
		differences.push({ field: 'business_reference', expected: record.businessReference, actual: transaction.businessReference });
	}
	return differences;
}

import { isFinalStatus } from '../../../api/values';
import { compareWithTransaction, duplicateClaim, transactionStatus } from './differences';
import type { TransactionIndex } from './transactionIndex';
import type { Difference, MatchSettings, Outcomes, Reconciliation, ReconcileRecord } from './types';

/**
 * Pairs each record with its transaction (by API reference, else by Business Reference) and sorts
 * every record and every unclaimed transaction of the period into one of four outcomes. The first
 * record to claim a transaction (or, when none is found, a key) is judged on its values; any later
 * claim is reported as well, mismatched (or missing) with a duplicate_claim difference. A missing
 * record with a Business Reference says the window it was `searched` in.
 */
export function matchRecords(
	records: readonly ReconcileRecord[],
	index: TransactionIndex,
	settings: MatchSettings,
	searched?: Reconciliation['searched'],
): Outcomes {
	const outcomes: Outcomes = { matched: [], mismatched: [], missing: [], unexpected: [] };
	const missingClaims = new Map<string, number>();

	for (const record of records) {
		const transaction = index.find(record.reference, record.businessReference);
		if (!transaction) {
			const key = record.reference ?? (record.businessReference as string);
			const claimKey = `${record.reference !== undefined ? 'reference' : 'business_reference'}:${key}`;
			const first = missingClaims.get(claimKey);
			const differences: Difference[] = first === undefined ? [] : [duplicateClaim(first, key)];
			if (first === undefined) missingClaims.set(claimKey, record.itemIndex);
			const reconciliation: Reconciliation = { status: 'missing', differences, matched_by: null, final: null, outside_period: false };
			if (record.businessReference !== undefined && searched) reconciliation.searched = { ...searched };
			outcomes.missing.push({ record, reconciliation });
			continue;
		}

		const matchedBy = record.reference !== undefined && transaction.reference === record.reference ? 'reference' : 'business_reference';
		const differences = compareWithTransaction(record, transaction, matchedBy, settings);
		if (transaction.claimedBy === undefined) transaction.claimedBy = record.itemIndex;
		else differences.push(duplicateClaim(transaction.claimedBy, transaction.reference));
		const status = differences.length === 0 ? 'matched' : 'mismatched';
		outcomes[status].push({
			record,
			transaction: transaction.envelope,
			reconciliation: {
				status,
				differences,
				matched_by: matchedBy,
				final: isFinalStatus(transactionStatus(transaction.envelope)),
				outside_period: transaction.outsidePeriod,
			},
		});
	}

	for (const transaction of index.unclaimed()) {
		outcomes.unexpected.push({
			transaction: transaction.envelope,
			reconciliation: {
				status: 'unexpected',
				differences: [],
				matched_by: null,
				final: isFinalStatus(transactionStatus(transaction.envelope)),
				outside_period: transaction.outsidePeriod,
			},
		});
	}
	return outcomes;
}

import type { IDataObject } from 'n8n-workflow';

export type ReconciliationStatus = 'matched' | 'mismatched' | 'missing' | 'unexpected';

export const RECONCILIATION_STATUSES: readonly ReconciliationStatus[] = ['matched', 'mismatched', 'missing', 'unexpected'];

/** One line of the merchant's own records, read from an input item. */
export interface ReconcileRecord {
	itemIndex: number;
	/** The API's `reference`, when the record knows it. */
	reference?: string;
	/** The merchant's own id, stamped into the transaction's metadata at create. */
	businessReference?: string;
	/** Expected amount, a positive whole number in the smallest unit (payouts: without the API's minus sign). */
	amount: number;
	currency: string;
	/** Expected status label; undefined when the record does not say. */
	status?: string;
	json: IDataObject;
}

export type DifferenceField = 'amount' | 'currency' | 'status' | 'reference' | 'business_reference' | 'duplicate_claim';

export interface Difference {
	field: DifferenceField;
	expected: string | number | null;
	actual: string | number | null;
	/** duplicate_claim: the input item that claimed the same transaction (or key) first. */
	claimed_by_item?: number;
}

export interface MatchSettings {
	/** Largest accepted |expected − actual|, a whole number; 0 means exact. */
	amountTolerance: number;
	/** A PENDING transaction whose record expects another status is matched but not final. */
	pendingIsNotFinal: boolean;
}

export type MatchKey = 'reference' | 'business_reference';

export interface Reconciliation {
	status: ReconciliationStatus;
	differences: Difference[];
	matched_by: MatchKey | null;
	/** Whether the transaction's status is final (isFinalStatus: COMPLETED, FAILED, CANCELLED, REVERSED); null without a transaction. */
	final: boolean | null;
	/** The transaction was found by its reference or Business Reference but created outside the period. */
	outside_period: boolean;
	/**
	 * Missing in API, a record with a Business Reference: the created_at window in which no
	 * transaction carries it (one period's length before the period, up to the read).
	 */
	searched?: { start_date: string; end_date: string };
	/** How the node read the period: the transactions it read and the API's count of them. */
	period_read?: { transactions: number; api_total: number };
	/** What the run found about the whole period that bears on this verdict (a period holding no transaction). */
	note?: string;
}

export interface Outcome {
	record?: ReconcileRecord;
	transaction?: IDataObject;
	reconciliation: Reconciliation;
}

export type Outcomes = Record<ReconciliationStatus, Outcome[]>;

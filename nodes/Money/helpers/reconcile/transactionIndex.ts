import type { IDataObject } from 'n8n-workflow';

import { businessReferenceOf } from '../businessReference';

export interface IndexedTransaction {
	envelope: IDataObject;
	reference: string;
	businessReference?: string;
	/** Found by a lookup outside the listed period: never reported as unexpected. */
	outsidePeriod: boolean;
	/** Input item of the first record that claimed it. */
	claimedBy?: number;
}

/**
 * The period's transactions by API reference and by Business Reference, each reference once (a
 * lookup may find one the period held). When two transactions carry one Business
 * Reference, the first keeps it and the other can only be claimed by its reference.
 */
export class TransactionIndex {
	private readonly byReference = new Map<string, IndexedTransaction>();
	private readonly byBusinessReference = new Map<string, IndexedTransaction>();
	/** The period's transactions (not those a lookup found), and how many carry the metadata field (null included) and a Business Reference. */
	readonly period = { transactions: 0, withMetadata: 0, withBusinessReference: 0 };

	get size(): number {
		return this.byReference.size;
	}

	add(envelope: IDataObject, outsidePeriod = false): void {
		const reference = typeof envelope.reference === 'string' ? envelope.reference : undefined;
		if (reference === undefined || this.byReference.has(reference)) return;
		const entry: IndexedTransaction = { envelope, reference, businessReference: businessReferenceOf(envelope), outsidePeriod };
		this.byReference.set(reference, entry);
		if (!outsidePeriod) {
			this.period.transactions++;
			if (envelope.metadata !== undefined) this.period.withMetadata++;
			if (entry.businessReference !== undefined) this.period.withBusinessReference++;
		}
		if (entry.businessReference !== undefined && !this.byBusinessReference.has(entry.businessReference)) {
			this.byBusinessReference.set(entry.businessReference, entry);
		}
	}

	hasReference(reference: string): boolean {
		return this.byReference.has(reference);
	}

	find(reference: string | undefined, businessReference: string | undefined): IndexedTransaction | undefined {
		const byReference = reference !== undefined ? this.byReference.get(reference) : undefined;
		if (byReference) return byReference;
		return businessReference !== undefined ? this.byBusinessReference.get(businessReference) : undefined;
	}

	/** Transactions of the period no record claimed, in the order the API listed them. */
	*unclaimed(): Generator<IndexedTransaction> {
		for (const entry of this.byReference.values()) {
			if (entry.claimedBy === undefined && !entry.outsidePeriod) yield entry;
		}
	}
}

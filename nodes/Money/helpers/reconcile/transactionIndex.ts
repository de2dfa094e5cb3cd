import type { IDataObject } from 'n8n-workflow';

import { businessReferenceOf } from '../businessReference';

export interface IndexedTransaction {
	envelope: IDataObject;
	reference: string;
	businessReference?: string;
	/** Created outside the period, found by a lookup: a record claims it, or, a second transaction of a Business Reference, it is unexpected. */
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
	/** The transactions of every list read (the period and the windows around it, not those read by reference), and how many carry the metadata field (null included) and a Business Reference. */
	readonly listed = { transactions: 0, withMetadata: 0, withBusinessReference: 0 };
	private readonly counted = new Set<unknown>();

	get size(): number {
		return this.byReference.size;
	}

	/** Counts a row of a list read (listed) once, whether or not it is added. */
	countListed(envelope: IDataObject): void {
		if (this.counted.has(envelope.reference)) return;
		this.counted.add(envelope.reference);
		this.listed.transactions++;
		if (envelope.metadata !== undefined) this.listed.withMetadata++;
		if (businessReferenceOf(envelope) !== undefined) this.listed.withBusinessReference++;
	}

	add(envelope: IDataObject, outsidePeriod = false): void {
		const reference = typeof envelope.reference === 'string' ? envelope.reference : undefined;
		if (reference === undefined || this.byReference.has(reference)) return;
		const entry: IndexedTransaction = { envelope, reference, businessReference: businessReferenceOf(envelope), outsidePeriod };
		this.byReference.set(reference, entry);
		if (entry.businessReference !== undefined && !this.byBusinessReference.has(entry.businessReference)) {
			this.byBusinessReference.set(entry.businessReference, entry);
		}
	}

	find(reference: string | undefined, businessReference: string | undefined): IndexedTransaction | undefined {
		const byReference = reference !== undefined ? this.byReference.get(reference) : undefined;
		if (byReference) return byReference;
		return businessReference !== undefined ? this.byBusinessReference.get(businessReference) : undefined;
	}

	/** Transactions no record claimed, in the order the API listed them. */
	*unclaimed(): Generator<IndexedTransaction> {
		for (const entry of this.byReference.values()) {
			if (entry.claimedBy === undefined) yield entry;
		}
	}
}

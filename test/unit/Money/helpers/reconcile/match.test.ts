import type { IDataObject } from 'n8n-workflow';

import { matchRecords } from '../../../../../nodes/Money/helpers/reconcile/match';
import { TransactionIndex } from '../../../../../nodes/Money/helpers/reconcile/transactionIndex';
import type { MatchSettings, ReconcileRecord } from '../../../../../nodes/Money/helpers/reconcile/types';

const EXACT: MatchSettings = { amountTolerance: 0, pendingIsNotFinal: true };

function envelope(reference: string, value: number, status = 'COMPLETED', business?: string, currency = 'XOF'): IDataObject {
	return {
		reference,
		status: { code: 1, label: status },
		amount: { value, currency },
		metadata: business === undefined ? null : { n8n_business_reference: business, other: 'x' },
	};
}

function record(itemIndex: number, values: Partial<ReconcileRecord>): ReconcileRecord {
	return { itemIndex, amount: 1000, currency: 'XOF', status: 'COMPLETED', json: { line: itemIndex }, ...values };
}

function indexOf(...envelopes: IDataObject[]): TransactionIndex {
	const index = new TransactionIndex();
	for (const entry of envelopes) index.add(entry);
	return index;
}

describe('TransactionIndex', () => {
	it('keeps a reference once (a shifted page repeats it) and finds by reference before business reference', () => {
		const index = indexOf(envelope('a', 1), envelope('a', 2), envelope('b', 3, 'COMPLETED', 'ord-1'), { no: 'reference' });
		expect(index.size).toBe(2);
		expect(index.find('a', undefined)?.envelope.amount).toEqual({ value: 1, currency: 'XOF' });
		expect(index.find(undefined, 'ord-1')?.reference).toBe('b');
		expect(index.find('missing', 'ord-1')?.reference).toBe('b');
		expect(index.find('a', 'ord-1')?.reference).toBe('a');
	});

	it('lets the first of two transactions with one business reference keep it', () => {
		const index = indexOf(envelope('a', 1, 'COMPLETED', 'ord'), envelope('b', 1, 'COMPLETED', 'ord'));
		expect(index.find(undefined, 'ord')?.reference).toBe('a');
	});

	it('lists a transaction found outside the period as unclaimed while no record claims it (a second of its Business Reference)', () => {
		const index = indexOf(envelope('a', 1));
		index.add(envelope('z', 1), true);
		expect([...index.unclaimed()].map((entry) => [entry.reference, entry.outsidePeriod])).toEqual([
			['a', false],
			['z', true],
		]);
	});
});

describe('matchRecords', () => {
	it('sorts records and unclaimed transactions into the four outcomes', () => {
		const index = indexOf(
			envelope('a', 1000, 'COMPLETED', 'ord-a'),
			envelope('b', 1000, 'FAILED'),
			envelope('c', 999),
			envelope('d', 1000, 'COMPLETED', undefined, 'XAF'),
			envelope('u', 50),
		);
		const outcomes = matchRecords(
			[
				record(0, { businessReference: 'ord-a' }),
				record(1, { reference: 'b' }),
				record(2, { reference: 'c' }),
				record(3, { reference: 'd' }),
				record(4, { reference: 'nope' }),
			],
			index,
			EXACT,
		);
		expect(outcomes.matched.map((outcome) => outcome.record?.itemIndex)).toEqual([0]);
		expect(outcomes.mismatched.map((outcome) => outcome.reconciliation.differences)).toEqual([
			[{ field: 'status', expected: 'COMPLETED', actual: 'FAILED' }],
			[{ field: 'amount', expected: 1000, actual: 999 }],
			[{ field: 'currency', expected: 'XOF', actual: 'XAF' }],
		]);
		expect(outcomes.missing.map((outcome) => outcome.record?.itemIndex)).toEqual([4]);
		expect(outcomes.unexpected.map((outcome) => outcome.transaction?.reference)).toEqual(['u']);
		expect(outcomes.unexpected[0].reconciliation).toEqual({
			status: 'unexpected',
			differences: [],
			matched_by: null,
			final: true,
			outside_period: false,
		});
	});

	it('compares payouts by magnitude, within the tolerance, and names every difference at once', () => {
		const index = indexOf(envelope('p', -1002), envelope('q', -5, 'PENDING', 'ord-q', 'XAF'));
		const tolerant = matchRecords([record(0, { reference: 'p' })], index, { ...EXACT, amountTolerance: 2 });
		expect(tolerant.matched).toHaveLength(1);
		const several = matchRecords([record(0, { reference: 'q', businessReference: 'ord-other', amount: 6 })], index, {
			amountTolerance: 0,
			pendingIsNotFinal: false,
		});
		expect(several.mismatched[0].reconciliation.differences.map((difference) => difference.field)).toEqual([
			'amount',
			'currency',
			'status',
			'business_reference',
		]);
	});

	it('counts a PENDING transaction as matched but not final unless told otherwise, and skips status when none is expected', () => {
		const index = indexOf(envelope('p', 1000, 'PENDING'));
		const [matched] = matchRecords([record(0, { reference: 'p' })], index, EXACT).matched;
		expect(matched.reconciliation).toMatchObject({ status: 'matched', final: false, matched_by: 'reference' });
		const strict = matchRecords([record(0, { reference: 'p' })], indexOf(envelope('p', 1000, 'PENDING')), { ...EXACT, pendingIsNotFinal: false });
		expect(strict.mismatched).toHaveLength(1);
		const anyStatus = matchRecords([record(0, { reference: 'p', status: undefined })], indexOf(envelope('p', 1000, 'FAILED')), EXACT);
		expect(anyStatus.matched).toHaveLength(1);
	});

	it('reports a second claim on one transaction, or on one missing key, as a duplicate claim', () => {
		const index = indexOf(envelope('a', 1000, 'COMPLETED', 'ord-a'));
		const outcomes = matchRecords(
			[
				record(0, { reference: 'a' }),
				record(1, { businessReference: 'ord-a' }),
				record(2, { businessReference: 'ord-x' }),
				record(3, { businessReference: 'ord-x' }),
				record(4, { reference: 'ord-x' }),
			],
			index,
			EXACT,
		);
		expect(outcomes.matched.map((outcome) => outcome.record?.itemIndex)).toEqual([0]);
		expect(outcomes.mismatched[0].reconciliation).toMatchObject({
			matched_by: 'business_reference',
			differences: [{ field: 'duplicate_claim', expected: null, actual: 'a', claimed_by_item: 0 }],
		});
		expect(outcomes.missing.map((outcome) => outcome.reconciliation.differences)).toEqual([
			[],
			[{ field: 'duplicate_claim', expected: null, actual: 'ord-x', claimed_by_item: 2 }],
			[],
		]);
		expect(outcomes.unexpected).toEqual([]);
	});

	it('says on a missing record with a Business Reference the window searched for it, and on no other', () => {
		const searched = { start_date: '2024-04-01T00:00:00.000Z', end_date: '2024-04-03T06:00:00.000Z' };
		const records = [record(0, { businessReference: 'ord-x' }), record(1, { reference: 'nope', businessReference: 'ord-y' }), record(2, { reference: 'gone' })];
		const outcomes = matchRecords(records, indexOf(), EXACT, searched);
		expect(outcomes.missing.map((outcome) => outcome.reconciliation.searched)).toEqual([searched, searched, undefined]);
		expect(matchRecords([record(0, { businessReference: 'ord-x' })], indexOf(), EXACT).missing[0].reconciliation).not.toHaveProperty('searched');
	});

	it('reports the reference difference when a record whose Reference is not found is matched by its Business Reference', () => {
		const index = indexOf(envelope('tx-2', 1000, 'COMPLETED', 'ord-7'));
		const outcomes = matchRecords([record(0, { reference: 'tx-1', businessReference: 'ord-7' })], index, EXACT);
		expect(outcomes.matched).toEqual([]);
		expect(outcomes.mismatched[0].reconciliation).toMatchObject({
			status: 'mismatched',
			matched_by: 'business_reference',
			differences: [{ field: 'reference', expected: 'tx-1', actual: 'tx-2' }],
		});
	});

	it('treats an envelope without amount or status as differing', () => {
		const index = indexOf({ reference: 'x' });
		const [outcome] = matchRecords([record(0, { reference: 'x' })], index, EXACT).mismatched;
		expect(outcome.reconciliation.differences).toEqual([
			{ field: 'amount', expected: 1000, actual: null },
			{ field: 'currency', expected: 'XOF', actual: null },
			{ field: 'status', expected: 'COMPLETED', actual: null },
		]);
	});
});

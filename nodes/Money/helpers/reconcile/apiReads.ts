import type { IDataObject, IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { createdAtMs } from '../../../api/time';
import { itemRoute, type TransactionResource } from '../../../api/values';
import type { WindowRead } from '../../../transport/listRead';
import { type CallSettings, moneyApiRequest } from '../../../transport/request';
import { businessReferenceOf } from '../businessReference';
import { runBounded } from '../bounded';
import { readPeriod } from '../read/list';
import type { Period } from './input';
import type { ReconcileRecord } from './types';
import { TransactionIndex } from './transactionIndex';

/** What Reconcile reads from the API: every transaction of the period, then those records name that it did not hold (docs/decisions.md#d11). */

export interface PeriodIndex {
	index: TransactionIndex;
	/** How the period was read: transactions read and the API's count of them. */
	read: Pick<WindowRead, 'total' | 'requests'> & { transactions: number };
}

/** Every transaction of the period, each once, checked against the API's count (read/list.ts), in an index by reference and business reference. */
export async function indexPeriod(
	this: IExecuteFunctions,
	resource: TransactionResource,
	period: Period,
	settings: CallSettings,
): Promise<PeriodIndex> {
	const index = new TransactionIndex();
	const read = await readPeriod.call(this, resource, { ...period }, { ...settings, itemIndex: 0 });
	for (const envelope of read.envelopes) {
		index.countListed(envelope);
		index.add(envelope);
	}
	return { index, read: { transactions: index.size, total: read.total, requests: read.requests } };
}

/**
 * Reads by its reference, `concurrency` at a time, each transaction a record names that the period
 * did not hold, so that no record is called missing while the API holds its transaction. One
 * created outside the period is marked so (its record is compared, never called unexpected).
 */
export async function lookUpByReference(
	this: IExecuteFunctions,
	resource: TransactionResource,
	records: readonly ReconcileRecord[],
	period: Period,
	settings: CallSettings & { concurrency: number },
	index: TransactionIndex,
): Promise<void> {
	const wanted = new Map<string, number>();
	for (const record of records) {
		const { reference } = record;
		if (reference === undefined || wanted.has(reference) || index.find(reference, record.businessReference)) continue;
		wanted.set(reference, record.itemIndex);
	}
	const lookups = [...wanted];
	const found: Array<IDataObject | undefined> = new Array(lookups.length);
	const [from, to] = [Date.parse(period.start_date), Date.parse(period.end_date)];
	await runBounded(lookups.length, settings.concurrency, async (at) => {
		const [reference, itemIndex] = lookups[at];
		try {
			const response = await moneyApiRequest.call(this, 'GET', itemRoute(resource, reference), { itemIndex, retry: settings.retry, timeoutMs: settings.timeoutMs });
			const envelope = response.data;
			if (envelope && typeof envelope === 'object' && !Array.isArray(envelope)) found[at] = envelope as IDataObject;
		} catch (error) {
			if (!(error instanceof NodeApiError)) throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
			// NodeApiError's constructor hands back the same instance: its error_code and httpCode stay.
			if (error.context.httpCode !== 404) throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
		}
	});
	for (const envelope of found) {
		if (envelope) index.add(envelope, outsidePeriod(envelope, from, to));
	}
}

/** Whether a transaction a lookup found was created outside the period (from, to in ms). */
function outsidePeriod(envelope: IDataObject, from: number, to: number): boolean {
	const created = createdAtMs(envelope);
	return created === null || created < from || created > to;
}

/** How far each window searched around the period reaches into it: a transaction created at a bound is in a window whether the API's bounds include their instant or not (D6). */
const BOUND_OVERLAP_MS = 1000;

/**
 * Looks for the transactions of records with a Business Reference that neither it nor their
 * reference found, before any is called missing: the API filters no list on metadata, so windows
 * are read whole like the period. First every transaction created since the period's end (a paced
 * run creates its transactions after the records it pays), then, for those still not found, those
 * created in one period's length before its start; each window reaches a second into the period.
 * One found is marked by its created_at (its record is compared; a second transaction of its
 * Business Reference is unexpected). Returns the created_at window searched in all, or undefined
 * when no record needed a search (nothing more is read). docs/decisions.md#d11 says why these
 * windows and no earlier.
 */
export async function lookUpByBusinessReference(
	this: IExecuteFunctions,
	resource: TransactionResource,
	records: readonly ReconcileRecord[],
	period: Period,
	settings: CallSettings,
	index: TransactionIndex,
): Promise<Period | undefined> {
	const unfound = () => {
		const wanted = new Set<string>();
		for (const { reference, businessReference } of records) {
			if (businessReference !== undefined && !index.find(reference, businessReference)) wanted.add(businessReference);
		}
		return wanted;
	};
	let wanted = unfound();
	if (wanted.size === 0) return undefined;
	const [from, to] = [Date.parse(period.start_date), Date.parse(period.end_date)];
	const iso = (ms: number) => new Date(ms).toISOString();
	const after = { start_date: iso(to - BOUND_OVERLAP_MS) };
	const earlier = { start_date: iso(2 * from - to), end_date: iso(from + BOUND_OVERLAP_MS) };
	const searched = { start_date: period.start_date, end_date: iso(Math.max(Date.now(), to)) };
	for (const window of [after, earlier]) {
		if (wanted.size === 0) break;
		const read = await readPeriod.call(this, resource, window, { ...settings, itemIndex: 0 });
		for (const envelope of read.envelopes) {
			index.countListed(envelope);
			const businessReference = businessReferenceOf(envelope);
			if (businessReference !== undefined && wanted.has(businessReference)) index.add(envelope, outsidePeriod(envelope, from, to));
		}
		if (window === earlier) searched.start_date = earlier.start_date;
		wanted = unfound();
	}
	return searched;
}

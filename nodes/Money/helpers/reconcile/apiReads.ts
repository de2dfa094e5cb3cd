import type { IDataObject, IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { itemRoute, type TransactionResource } from '../../../api/values';
import { moneyApiRequest } from '../../../transport/request';
import type { CallSettings } from '../../../transport/request';
import { readList } from '../read/list';
import type { Period } from './input';
import type { ReconcileRecord } from './types';
import { TransactionIndex } from './transactionIndex';

/** What Reconcile reads from the API: every transaction of the period, then those records name outside it. */

/** Every transaction of the period, each once (read/list.ts), in an index by reference and business reference. */
export async function indexPeriod(
	this: IExecuteFunctions,
	resource: TransactionResource,
	period: Period,
	settings: CallSettings,
): Promise<TransactionIndex> {
	const index = new TransactionIndex();
	for (const envelope of await readList.call(this, resource, { ...period }, undefined, { ...settings, itemIndex: 0 })) index.add(envelope);
	return index;
}

/** Reads, one by one, the transactions records name by reference that the period did not hold. */
export async function lookUpOutsidePeriod(
	this: IExecuteFunctions,
	resource: TransactionResource,
	records: readonly ReconcileRecord[],
	settings: CallSettings,
	index: TransactionIndex,
): Promise<void> {
	const looked = new Set<string>();
	for (const record of records) {
		const { reference } = record;
		if (reference === undefined || looked.has(reference) || index.find(reference, record.businessReference)) continue;
		looked.add(reference);
		try {
			const response = await moneyApiRequest.call(this, 'GET', itemRoute(resource, reference), {
				itemIndex: record.itemIndex,
				retry: settings.retry,
				timeoutMs: settings.timeoutMs,
			});
			const envelope = response.data;
			if (envelope && typeof envelope === 'object' && !Array.isArray(envelope)) index.add(envelope as IDataObject, true);
		} catch (error) {
			if (!(error instanceof NodeApiError)) throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: record.itemIndex });
			// NodeApiError's constructor hands back the same instance: its error_code and httpCode stay.
			if (error.context.httpCode !== 404) throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
		}
	}
}

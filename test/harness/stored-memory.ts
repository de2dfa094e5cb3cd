/** Readers of the Money Trigger memory as n8n stores it in a workflow's static data (docs/webhook-memory.md). */

import { referenceKey } from '../../nodes/events/memory';
import { transactionHash, TransactionStatuses } from '../../nodes/MoneyTrigger/memory/statuses';

type StaticData = Record<string, any> | null | undefined;

export interface StoredStatuses {
	/** How many transactions the memories hold (every trigger node of the workflow). */
	size: number;
	/** The status labels the memories hold for a transaction (a charge unless told), or undefined. */
	get(reference: string, resource?: 'charge' | 'payout' | null): string[] | undefined;
}

/** The Money Trigger memories in a workflow's static data (as n8n's API returns it), every trigger node merged. */
export function storedStatuses(staticData: StaticData): StoredStatuses {
	const memory = staticData && staticData.global && staticData.global.moneyTriggerMemory;
	const merged = new TransactionStatuses(Number.POSITIVE_INFINITY);
	for (const stored of Object.values((memory && memory.nodes) || {})) merged.merge(stored);
	return {
		size: merged.size,
		get(reference, resource = 'charge') {
			const labels = merged.labelsOf(transactionHash(referenceKey(resource, reference)));
			return labels.length > 0 ? labels : undefined;
		},
	};
}

/** Readers of the Money Trigger memory as n8n stores it in a workflow's static data (docs/webhook-memory.md). */

import { referenceKey } from '../../nodes/events/memory';
import { transactionHash, TransactionStatuses } from '../../nodes/MoneyTrigger/memory/statuses';

type StaticData = Record<string, any> | null | undefined;

const LABELS: Record<string, string> = { P: 'PENDING', C: 'COMPLETED', F: 'FAILED', X: 'CANCELLED', R: 'REVERSED', U: 'OTHER' };

export interface StoredStatuses {
	/** How many transactions the memories hold (every trigger node of the workflow). */
	size: number;
	/** The last status the memories hold for a transaction (a charge unless told). */
	get(reference: string, resource?: 'charge' | 'payout' | null): string | undefined;
}

/** The Money Trigger memories in a workflow's static data (as n8n's API returns it), every trigger node merged. */
export function storedStatuses(staticData: StaticData): StoredStatuses {
	const memory = staticData && staticData.global && staticData.global.moneyTriggerMemory;
	const merged = new TransactionStatuses(Number.POSITIVE_INFINITY);
	for (const stored of Object.values((memory && memory.nodes) || {})) merged.merge(stored);
	const records = new Map<string, string>();
	for (let at = 0; at < merged.stored.length; at += 11) records.set(merged.stored.slice(at, at + 10), merged.stored[at + 10]);
	return {
		size: records.size,
		get: (reference, resource = 'charge') => LABELS[records.get(transactionHash(referenceKey(resource, reference))) ?? ''],
	};
}

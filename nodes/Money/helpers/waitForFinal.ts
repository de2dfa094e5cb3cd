import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { PENDING_STATUS, type TransactionResource } from '../../api/values';
import { ROUTES } from '../../api/routes';
import { moneyApiRequest } from '../../transport/request';
import { pauseUnlessCancelled, type RetryPolicy } from '../../transport/retry';

export interface WaitOptions {
	timeoutMs: number;
	firstIntervalMs: number;
	retry: RetryPolicy;
	timeoutPerRequestMs?: number;
	itemIndex: number;
}

export interface WaitOutcome {
	final_status_reached: boolean;
	status: string | null;
	transaction: IDataObject | null;
}

const INTERVAL_GROWTH = 1.5;
const INTERVAL_CAP_MS = 30_000;

export function statusLabelOf(envelope: IDataObject | null): string | null {
	const status = envelope?.status;
	if (status && typeof status === 'object' && typeof (status as IDataObject).label === 'string') {
		return (status as IDataObject).label as string;
	}
	return typeof status === 'string' ? status : null;
}

/** Polls the read endpoint with growing intervals until the status is final or the time is up. */
export async function waitForFinalStatus(
	this: IExecuteFunctions,
	resource: TransactionResource,
	reference: string,
	options: WaitOptions,
): Promise<WaitOutcome> {
	const deadline = Date.now() + options.timeoutMs;
	const signal = this.getExecutionCancelSignal();
	let interval = Math.max(1, options.firstIntervalMs);
	let transaction: IDataObject | null = null;
	for (;;) {
		const response = await moneyApiRequest.call(this, 'GET', `${ROUTES[resource]}/${encodeURIComponent(reference)}`, {
			itemIndex: options.itemIndex,
			retry: options.retry,
			timeoutMs: options.timeoutPerRequestMs,
		});
		transaction = (response.data as IDataObject | undefined) ?? null;
		const status = statusLabelOf(transaction);
		if (status !== null && status !== PENDING_STATUS) {
			return { final_status_reached: true, status, transaction };
		}
		const remaining = deadline - Date.now();
		if (remaining <= 0 || signal?.aborted) return { final_status_reached: false, status, transaction };
		await pauseUnlessCancelled(Math.min(interval, remaining), signal);
		interval = Math.min(interval * INTERVAL_GROWTH, INTERVAL_CAP_MS);
	}
}

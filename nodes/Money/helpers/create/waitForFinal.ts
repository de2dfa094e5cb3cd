import type { ICredentialsDecrypted, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { PENDING_STATUS, type TransactionResource } from '../../../api/values';
import { ROUTES } from '../../../api/routes';
import { cancelSignalOf, waitUnlessCancelled } from '../../../transport/cancellation';
import { asNodeError } from '../../../transport/errors';
import { moneyApiRequest } from '../../../transport/request';
import { type RetryPolicy } from '../../../transport/retry';
import type { CreateRequest } from './input';

interface WaitOptions {
	timeoutMs: number;
	firstIntervalMs: number;
	retry: RetryPolicy;
	timeoutPerRequestMs?: number;
	itemIndex: number;
	credential?: ICredentialsDecrypted;
}

interface WaitOutcome {
	final_status_reached: boolean;
	status: string | null;
	transaction: IDataObject | null;
	/** The execution was cancelled during the wait: the create stands, its final status is not known here. */
	wait_cancelled?: true;
}

const INTERVAL_GROWTH = 1.5;
const INTERVAL_CAP_MS = 30_000;

function statusLabelOf(envelope: IDataObject | null): string | null {
	const status = envelope?.status;
	if (status && typeof status === 'object' && typeof (status as IDataObject).label === 'string') {
		return (status as IDataObject).label as string;
	}
	return typeof status === 'string' ? status : null;
}

/**
 * Polls the read endpoint with growing intervals until the status is final or the time is up. A
 * cancelled execution ends the wait with what was last read (`wait_cancelled: true`), never as an error:
 * the create before it was made.
 */
export async function waitForFinalStatus(
	this: IExecuteFunctions,
	resource: TransactionResource,
	reference: string,
	options: WaitOptions,
): Promise<WaitOutcome> {
	const deadline = Date.now() + options.timeoutMs;
	const signal = cancelSignalOf(this);
	let interval = Math.max(1, options.firstIntervalMs);
	let transaction: IDataObject | null = null;
	const cancelled = (): WaitOutcome => ({ final_status_reached: false, status: statusLabelOf(transaction), transaction, wait_cancelled: true });
	for (;;) {
		if (signal?.aborted) return cancelled();
		let response: IDataObject;
		try {
			response = await moneyApiRequest.call(this, 'GET', `${ROUTES[resource]}/${encodeURIComponent(reference)}`, {
				itemIndex: options.itemIndex,
				retry: options.retry,
				timeoutMs: options.timeoutPerRequestMs,
				credential: options.credential,
			});
		} catch (error) {
			if (signal?.aborted) return cancelled();
			throw asNodeError(this.getNode(), error, options.itemIndex);
		}
		transaction = (response.data as IDataObject | undefined) ?? null;
		const status = statusLabelOf(transaction);
		if (status !== null && status !== PENDING_STATUS) {
			return { final_status_reached: true, status, transaction };
		}
		const remaining = deadline - Date.now();
		if (remaining <= 0) return { final_status_reached: false, status, transaction };
		if (await waitUnlessCancelled(Math.min(interval, remaining), signal)) return cancelled();
		interval = Math.min(interval * INTERVAL_GROWTH, INTERVAL_CAP_MS);
	}
}

/**
 * With the Wait for Final Status option: reads the transaction again until its status is final
 * and adds what it found; a failed wait is reported on the item, never as a failed create.
 */
export async function withFinalStatus(this: IExecuteFunctions, create: CreateRequest, created: IDataObject): Promise<IDataObject> {
	const { options, settings, itemIndex } = create;
	if (options.waitForFinalStatus !== true || typeof created.reference !== 'string') return created;
	try {
		const outcome = await waitForFinalStatus.call(this, create.resource, created.reference, {
			timeoutMs: Number(options.waitTimeoutSeconds ?? 60) * 1000,
			firstIntervalMs: Number(options.pollIntervalMs ?? 2000),
			retry: settings.retry,
			timeoutPerRequestMs: settings.timeoutMs,
			itemIndex,
			credential: settings.credential,
		});
		// The status read replaces the one the create item gave, in its place beside the outcome.
		const { status, ...waited } = outcome;
		return { ...created, status, ...waited };
	} catch (error) {
		return { ...created, final_status_reached: false, wait_error: error instanceof Error ? error.message : String(error) };
	}
}

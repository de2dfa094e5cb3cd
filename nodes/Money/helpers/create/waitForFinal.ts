import type { ICredentialsDecrypted, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { isFinalStatus, itemRoute, type TransactionResource } from '../../../api/values';
import { type CallSettings, cancelSignalOf, moneyApiRequest, waitUnlessCancelled } from '../../../transport/request';

const INTERVAL_GROWTH = 1.5;
const INTERVAL_CAP_MS = 30_000;

function statusLabelOf(envelope: IDataObject | null): string | null {
	const status = envelope?.status;
	if (status && typeof status === 'object' && typeof (status as IDataObject).label === 'string') return (status as IDataObject).label as string;
	return typeof status === 'string' ? status : null;
}

/**
 * The Wait for Final Status option: reads the created transaction again, at growing intervals,
 * until its status is final or the time is up, and adds what it found in place of `status`. A
 * failed wait is reported on the item (`wait_error`), never as a failed create; a stopped execution
 * ends the wait with what was last read (`wait_cancelled: true`): the create before it was made.
 */
export async function withFinalStatus(
	context: IExecuteFunctions,
	resource: TransactionResource,
	created: IDataObject,
	options: IDataObject,
	settings: CallSettings & { credential?: ICredentialsDecrypted; itemIndex: number },
): Promise<IDataObject> {
	if (options.waitForFinalStatus !== true || typeof created.reference !== 'string') return created;
	const deadline = Date.now() + Number(options.waitTimeoutSeconds ?? 60) * 1000;
	const signal = cancelSignalOf(context);
	let interval = Math.max(1, Number(options.pollIntervalMs ?? 2000));
	let transaction: IDataObject | null = null;
	const outcome = (final: boolean, cancelled = false): IDataObject => ({
		...created,
		status: statusLabelOf(transaction),
		final_status_reached: final,
		transaction,
		...(cancelled ? { wait_cancelled: true } : {}),
	});
	for (;;) {
		if (signal?.aborted) return outcome(false, true);
		try {
			const response = await moneyApiRequest.call(context, 'GET', itemRoute(resource, created.reference), settings);
			transaction = (response.data as IDataObject | undefined) ?? null;
		} catch (error) {
			if (signal?.aborted) return outcome(false, true);
			return { ...created, final_status_reached: false, wait_error: error instanceof Error ? error.message : String(error) };
		}
		const status = statusLabelOf(transaction);
		if (isFinalStatus(status)) return outcome(true);
		const remaining = deadline - Date.now();
		if (remaining <= 0) return outcome(false);
		if (await waitUnlessCancelled(Math.min(interval, remaining), signal)) return outcome(false, true);
		interval = Math.min(interval * INTERVAL_GROWTH, INTERVAL_CAP_MS);
	}
}

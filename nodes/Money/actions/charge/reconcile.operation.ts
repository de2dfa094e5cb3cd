import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	expectedStatusFields,
	reconcileNotice,
	reconcileOptions,
	reconcilePeriodFields,
	recordFieldNames,
} from '../../descriptions/reconcileFields';
import { runReconcile } from '../../helpers/reconcile/run';

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['charge'], operation: ['reconcile'] } }, [
	reconcileNotice('charge'),
	...reconcilePeriodFields('charge'),
	...recordFieldNames('charge'),
	...expectedStatusFields('charge'),
	reconcileOptions('charge'),
]);

/** The input items are the merchant's records; every charge of the period is read and matched (helpers/reconcile/run.ts). */
export async function executeBatch(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await runReconcile.call(this, 'charge');
}

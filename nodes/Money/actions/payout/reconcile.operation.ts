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

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['payout'], operation: ['reconcile'] } }, [
	reconcileNotice('payout'),
	...reconcilePeriodFields('payout'),
	...recordFieldNames('payout'),
	...expectedStatusFields('payout'),
	reconcileOptions('payout'),
]);

/** The input items are the merchant's records; every payout of the period is read and matched (helpers/reconcile/run.ts). */
export async function executeBatch(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await runReconcile.call(this, 'payout');
}

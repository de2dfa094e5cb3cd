import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import {
	expectedStatusFields,
	reconcileNotice,
	reconcileOptions,
	reconcilePeriodFields,
	recordFieldNames,
} from '../../descriptions/reconcileFields';
import { runReconcile } from '../../helpers/reconcile/run';

export const description = (resource: TransactionResource): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: [resource], operation: ['reconcile'] } }, [
		reconcileNotice(resource),
		...reconcilePeriodFields(resource),
		...recordFieldNames(resource),
		...expectedStatusFields(resource),
		reconcileOptions(resource),
	]);

/** The input items are the merchant's records; every charge or payout of the period is read and matched (helpers/reconcile/run.ts). */
export async function executeBatch(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await runReconcile.call(this, this.getNodeParameter('resource', 0) as TransactionResource);
}

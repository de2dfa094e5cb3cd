import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import { createFields } from '../../descriptions/createFields';
import { type ItemRun, startCreateRun } from '../../helpers/create/run';

export const description = (resource: TransactionResource): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: [resource], operation: ['create'] } }, createFields(resource));

/** Reads every row, decides what must not be sent, then sends row by row (paced) and optionally waits for the final status. */
export async function start(this: IExecuteFunctions): Promise<ItemRun> {
	return await startCreateRun(this, this.getNodeParameter('resource', 0) as TransactionResource);
}

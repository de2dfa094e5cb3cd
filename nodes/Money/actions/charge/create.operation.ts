import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { createFields } from '../../descriptions/createFields';
import { type ItemRun, startCreateRun } from '../../helpers/create/run';

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['charge'], operation: ['create'] } }, createFields('charge'));

/** Reads every row, decides what must not be sent, then sends row by row (paced) and optionally waits for the final status. */
export async function start(this: IExecuteFunctions): Promise<ItemRun> {
	return await startCreateRun(this, 'charge');
}

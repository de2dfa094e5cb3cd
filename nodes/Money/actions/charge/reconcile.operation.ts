import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { reconcileDescription } from '../shared/reconcileDescription';
import { executeReconcile } from '../shared/reconcileTransactions';
import type { OperationContext } from '../types';

export const description: INodeProperties[] = reconcileDescription('charge');

/** Matches the input records against every charge of the period; four outputs (five with Report). */
export async function executeBatch(this: IExecuteFunctions, context: OperationContext): Promise<INodeExecutionData[][]> {
	return await executeReconcile.call(this, 'charge', context);
}
